import { asc, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { coupons, dailyQuotas, emailListEntries, emails, logs } from "../../../src/db/schema";
import { ADMIN, API_KEY, BASE, basic, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { exports } from "cloudflare:workers";

/**
 * Bulk coupon emails (spec "Bulk coupon emails"; decisions.md 9 coupon keywords, 10, 12 "Coupons", 13 roles).
 * Source "1": coupons tied to an address, selected by code prefix/suffix, events, validity window and bounds, each
 * mailed its own. Source "0": the entries of the events' email lists, each given a new coupon with the template
 * coupon's conditions, then mailed. Mails are read from the outbox (`GET /admin/emails?search=<address>`). Storage
 * is shared with every other test file: codes, addresses and events are unique per test.
 */

type Json = Record<string, any>;

const PATH = "/admin/coupons/bulk/emails";
const COUPON_NOT_FOUND = "Coupon not found";
const ENTRY_NOT_FOUND = "Email list entry not found";

const SUBJECT = "Your code {%CODE%} for {%EMAIL%}";
const BODY = [
  "<p>Dear {%EMAIL%},</p>",
  "<p>Code {%CODE%} gives {%AMOUNT%} off.</p>",
  "<p>From {%START-DATE%} until {%END-DATE%}.</p>",
  "<p>Tickets {%MIN-TICKETS%} to {%MAX-TICKETS%}; amount {%MIN-AMOUNT%} to {%MAX-AMOUNT%}.</p>",
  '<p><a href="https://shop.example/?c=%7B%25CODE%25%7D">Shop now</a></p>',
  "<script>alert('x')</script>",
].join("\n");

const address = (label = "mail") => `${unique(label)}@example.com`.toLowerCase();

async function createCoupon(body: Json, auth?: Credentials): Promise<Json> {
  return expectJson(call("POST", "/admin/coupons", { body: { type: "fixed", amount: 5, ...body }, auth }), 201);
}

/** POST /admin/emaillists/<eventId>, multipart with `csv` as the file; answers the event's entries, oldest first. */
async function uploadList(eventId: number, emails: string[]) {
  const form = new FormData();
  form.append("file", new File([emails.map((e, i) => `Person ${i},${e},0`).join("\n") + "\n"], "list.csv", { type: "text/csv" }));
  const res = await exports.default.fetch(
    new Request(`${BASE}/admin/emaillists/${eventId}`, { method: "POST", headers: { "X-EVT-API-KEY": API_KEY, Authorization: basic(ADMIN) }, body: form }),
  );
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  await res.arrayBuffer();
  return db.select().from(emailListEntries).where(eq(emailListEntries.eventId, eventId)).orderBy(asc(emailListEntries.id));
}

/** Source-1 criteria with every bound open, unless `extra` says otherwise. */
function criteria(extra: Json = {}): Json {
  return {
    bulk_source: "1",
    event_ids: "",
    template_code: "",
    code_prefix: "",
    code_suffix: "",
    date_from: "",
    date_to: "",
    tickets_minimum: 0,
    tickets_maximum: 0,
    amount_minimum: 0,
    amount_maximum: 0,
    subject: "Hello",
    body: "<p>Hello</p>",
    ...extra,
  };
}

const list = (body: unknown, auth?: Credentials) => call("POST", `${PATH}/list`, { body, auth });
const listIds = async (body: unknown, auth?: Credentials): Promise<number[]> => (await expectJson(list(body, auth), 200)).ids;
const send = (body: unknown, auth?: Credentials, headers?: Record<string, string>) => call("POST", `${PATH}/send`, { body, auth, headers });
const sendOk = async (body: unknown, auth?: Credentials): Promise<Json[]> => (await expectJson(send(body, auth), 200)).errors;

/** The outbox rows sent to `to` (addresses are unique per test). */
async function mailsTo(to: string): Promise<Json[]> {
  const rows = await expectJson<Json[]>(call("GET", `/admin/emails?search=${encodeURIComponent(to)}&per_page=100`), 200);
  return rows.filter((r) => r.to.toLowerCase() === to.toLowerCase()).sort((a, b) => a.id - b.id);
}

async function onlyMailTo(to: string): Promise<Json> {
  const rows = await mailsTo(to);
  expect(rows, `outbox rows to ${to}`).toHaveLength(1);
  return rows[0]!;
}

function expectNoKeywordLeft(mail: Json): void {
  expect(mail.subject).not.toMatch(/\{%[A-Z-]+%\}/);
  expect(mail.body).not.toMatch(/\{%[A-Z-]+%\}/);
  expect(mail.body).not.toMatch(/%7B%25/i);
  expect(mail.body).not.toMatch(/<script/i);
  expect(mail.body).toContain("max-width:600px");
}

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/coupons/bulk/emails/list: validation", () => {
  const FIELDS = [
    "bulk_source",
    "event_ids",
    "template_code",
    "code_prefix",
    "code_suffix",
    "date_from",
    "date_to",
    "tickets_minimum",
    "tickets_maximum",
    "amount_minimum",
    "amount_maximum",
    "subject",
    "body",
  ];

  it.each(FIELDS)("without %s (even when unused): 400 rest_missing_callback_param naming it", async (field) => {
    const body = criteria();
    delete body[field];
    const err = await expectError(list(body), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params ?? {})).toEqual([field]);
  });

  it("an empty body names every parameter", async () => {
    const err = await expectError(list({}), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params ?? {}).sort()).toEqual([...FIELDS].sort());
  });

  it.each([
    ["bulk_source", "2"],
    ["bulk_source", ""],
    ["bulk_source", 1],
    ["event_ids", "abc"],
    ["event_ids", "1;2"],
    ["event_ids", [1]],
    ["date_from", "2030-01-01"],
    ["date_from", "2030-02-30 00:00:00"],
    ["date_to", "tomorrow"],
    ["tickets_minimum", -1],
    ["tickets_minimum", 1.5],
    ["tickets_maximum", "x"],
    ["amount_minimum", -1],
    ["amount_minimum", "abc"],
    ["amount_maximum", 1.234],
    ["subject", ""],
    ["subject", "   "],
    ["body", ""],
    ["subject", 5],
    ["template_code", 7],
    ["code_prefix", null],
    ["unknown", "x"],
  ])("%s = %j: 400 rest_invalid_param naming it", async (field, value) => {
    const err = await expectError(list(criteria({ [field]: value })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });

  it("event_ids naming an event that does not exist: 400 naming it (decisions.md 12), not an empty selection", async () => {
    const err = await expectError(list(criteria({ event_ids: "987654321" })), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ event_ids: "names events that do not exist: 987654321" });
  });

  it("date_to before date_from: 400", async () => {
    const err = await expectError(list(criteria({ date_from: "2030-05-02 00:00:00", date_to: "2030-05-01 23:59:59" })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("date_to");
  });

  it("source 0 needs an existing coupon as template_code: empty or unknown is a 400 naming it", async () => {
    const event = await createEvent({ event_name: unique("Coupon mail ") });
    for (const template_code of ["", unique("NoSuchCode")]) {
      const err = await expectError(list(criteria({ bulk_source: "0", event_ids: String(event.id), template_code })), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), `template_code ${JSON.stringify(template_code)}`).toContain("template_code");
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("source 1: coupons tied to an address", () => {
  it("selects by prefix, suffix, events, validity window, ticket and amount bounds (0 = no bound); echoes the criteria", async () => {
    const e1 = (await createEvent({ event_name: unique("Coupon mail ") })).id as number;
    const e2 = (await createEvent({ event_name: unique("Coupon mail ") })).id as number;
    const prefix = unique("BcP");
    const suffix = "-VIP";
    let n = 0;
    const make = async (extra: Json, code?: string) =>
      (
        await createCoupon({
          code: code ?? `${prefix}${++n}${suffix}`,
          email: address("holder"),
          start_date: "2030-02-01 00:00:00",
          end_date: "2030-03-01 00:00:00",
          minimum_tickets: 2,
          maximum_tickets: 5,
          minimum_amount: 10,
          maximum_amount: 100,
          ...extra,
        })
      ).id as number;

    const plain = await make({});
    const ofE1 = await make({ events: String(e1) });
    const ofBoth = await make({ events: `${e1},${e2}` });
    const unbounded = await make({ minimum_tickets: 0, maximum_tickets: 0, minimum_amount: 0, maximum_amount: 0 });
    const edges = await make({ start_date: "2030-01-01 00:00:00", end_date: "2030-12-31 23:59:59" });
    const inner = await make({ minimum_tickets: 3, maximum_tickets: 4, minimum_amount: 20, maximum_amount: 50.5 });
    const noEmail = await make({ email: "" });
    const noPrefix = await make({}, `X${prefix}${++n}${suffix}`);
    const noSuffix = await make({}, `${prefix}${++n}${suffix}X`);
    const ofE2 = await make({ events: String(e2) });
    const early = await make({ start_date: "2029-12-31 23:59:59" });
    const late = await make({ end_date: "2031-01-01 00:00:00" });
    const fewTickets = await make({ minimum_tickets: 1 });
    const manyTickets = await make({ maximum_tickets: 6 });
    const lowAmount = await make({ minimum_amount: 9.99 });
    const highAmount = await make({ maximum_amount: 100.01 });

    const body = criteria({
      event_ids: String(e1),
      code_prefix: prefix,
      code_suffix: suffix,
      date_from: "2030-01-01 00:00:00",
      date_to: "2030-12-31 23:59:59",
      tickets_minimum: 2,
      tickets_maximum: 5,
      amount_minimum: 10,
      amount_maximum: "100.00",
      subject: SUBJECT,
      body: BODY,
    });
    const answer = await expectJson(list(body), 200);
    expect(answer).toStrictEqual({
      bulk_source: "1",
      event_ids: String(e1),
      template_code: "",
      code_prefix: prefix,
      code_suffix: suffix,
      date_from: "2030-01-01 00:00:00",
      date_to: "2030-12-31 23:59:59",
      tickets_minimum: 2,
      tickets_maximum: 5,
      amount_minimum: 10,
      amount_maximum: 100,
      batch_size: 25,
      ids: [plain, ofE1, ofBoth, unbounded, edges, inner],
    });

    // Every bound open: every coupon with an address and the prefix and suffix, whatever its events or window.
    const all = await listIds(criteria({ code_prefix: prefix, code_suffix: suffix }));
    expect(all).toEqual([plain, ofE1, ofBoth, unbounded, edges, inner, ofE2, early, late, fewTickets, manyTickets, lowAmount, highAmount]);
    expect(all).not.toContain(noEmail);
    expect(all).not.toContain(noPrefix);
    expect(all).not.toContain(noSuffix);
    // One bound at a time.
    expect(await listIds(criteria({ code_prefix: prefix, code_suffix: suffix, event_ids: String(e2) }))).toEqual([
      plain,
      ofBoth,
      unbounded,
      edges,
      inner,
      ofE2,
      early,
      late,
      fewTickets,
      manyTickets,
      lowAmount,
      highAmount,
    ]);
    expect(await listIds(criteria({ code_prefix: prefix, code_suffix: suffix, tickets_minimum: 2 }))).not.toContain(fewTickets);
    expect(await listIds(criteria({ code_prefix: prefix, code_suffix: suffix, tickets_maximum: 5 }))).not.toContain(manyTickets);
    expect(await listIds(criteria({ code_prefix: prefix, code_suffix: suffix, amount_minimum: 10 }))).not.toContain(lowAmount);
    expect(await listIds(criteria({ code_prefix: prefix, code_suffix: suffix, amount_maximum: 100 }))).not.toContain(highAmount);
    const windowed = await listIds(criteria({ code_prefix: prefix, code_suffix: suffix, date_from: "2030-01-01 00:00:00", date_to: "2030-12-31 23:59:59" }));
    expect(windowed).not.toContain(early);
    expect(windowed).not.toContain(late);
    expect(windowed).toContain(edges);
  });

  it("send mails each coupon to its address with every keyword replaced; unknown and address-less coupons are reported", async () => {
    const event = (await createEvent({ event_name: unique("Coupon mail ") })).id as number;
    const a = address("percent");
    const b = address("fixed");
    const percent = await createCoupon({
      code: unique("Pct"),
      type: "percent",
      amount: 12.5,
      email: a,
      events: String(event),
      start_date: "2030-02-01 09:30:00",
      end_date: "2030-07-15 18:00:00",
      minimum_tickets: 2,
      maximum_tickets: 8,
      minimum_amount: 20,
      maximum_amount: "500.5",
    });
    const fixed = await createCoupon({ code: unique("Fix"), type: "fixed", amount: 5, email: b });
    const noEmail = await createCoupon({ code: unique("NoMail") });
    const unknown = 2_000_000_000;

    const errors = await sendOk({ bulk_source: "1", template_code: "", ids: [percent.id, unknown, fixed.id, noEmail.id], subject: SUBJECT, body: BODY });
    expect(errors).toStrictEqual([
      { id: unknown, error: COUPON_NOT_FOUND },
      { id: noEmail.id, error: COUPON_NOT_FOUND },
    ]);

    const first = await onlyMailTo(a);
    expect(first.subject).toBe(`Your code ${percent.code} for ${a}`);
    expect(first.body).toContain(`<p>Dear ${a},</p>`);
    expect(first.body).toContain(`<p>Code ${percent.code} gives 12.5% off.</p>`);
    expect(first.body).toContain("<p>From 2030-02-01 09:30:00 until 2030-07-15 18:00:00.</p>");
    expect(first.body).toContain("<p>Tickets 2 to 8; amount 20.00 EUR to 500.50 EUR.</p>");
    // Only the link keywords are filled inside an attribute; the code there is empty (decisions.md 14).
    expect(first.body).toContain('<a href="https://shop.example/?c=">Shop now</a>');
    expectNoKeywordLeft(first);
    expect(["queued", "sent"]).toContain(first.status);

    const second = await onlyMailTo(b);
    expect(second.subject).toBe(`Your code ${fixed.code} for ${b}`);
    expect(second.body).toContain(`<p>Code ${fixed.code} gives 5.00 EUR off.</p>`);
    // Unset dates and bounds are empty.
    expect(second.body).toContain("<p>From  until .</p>");
    expect(second.body).toContain("<p>Tickets  to ; amount  to .</p>");
    expectNoKeywordLeft(second);
  });

  it("takes at most batch_size (25) ids: 26 is a 400 and nothing is mailed", async () => {
    const to = address("batch");
    const coupon = await createCoupon({ code: unique("Batch"), email: to });
    const unknown = Array.from({ length: 25 }, (_, i) => 2_000_000_300 + i);
    const err = await expectError(send({ bulk_source: "1", template_code: "", ids: [coupon.id, ...unknown], subject: "s", body: "b" }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("ids");
    expect(await mailsTo(to)).toEqual([]);
    const errors = await sendOk({ bulk_source: "1", template_code: "", ids: [coupon.id, ...unknown.slice(0, 24)], subject: "s", body: "b" });
    expect(errors).toStrictEqual(unknown.slice(0, 24).map((id) => ({ id, error: COUPON_NOT_FOUND })));
    expect(await mailsTo(to)).toHaveLength(1);
  });

  it.each([
    ["bulk_source", { bulk_source: undefined }, "rest_missing_callback_param"],
    ["ids", { ids: undefined }, "rest_missing_callback_param"],
    ["subject", { subject: undefined }, "rest_missing_callback_param"],
    ["body", { body: undefined }, "rest_missing_callback_param"],
    ["ids", { ids: [] }, "rest_invalid_param"],
    ["ids", { ids: ["1"] }, "rest_invalid_param"],
    ["bulk_source", { bulk_source: "3" }, "rest_invalid_param"],
    ["subject", { subject: "" }, "rest_invalid_param"],
    ["body", { body: "" }, "rest_invalid_param"],
    ["event_ids", { event_ids: "1" }, "rest_invalid_param"],
  ])("send with %s (%j): 400 %s", async (field, change, code) => {
    const body: Json = { bulk_source: "1", template_code: "", ids: [2_000_000_000], subject: "s", body: "b", ...change };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const err = await expectError(send(body), 400, code);
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });

  it("Idempotency-Key: the same key and body replays the answer and mails nothing more; another body is a 409", async () => {
    const to = address("idem");
    const coupon = await createCoupon({ code: unique("Idem"), email: to });
    const key = unique("coupon-mail-key-");
    const body = { bulk_source: "1", template_code: "", ids: [coupon.id, 2_000_000_000], subject: "Code {%CODE%}", body: "<p>{%CODE%}</p>" };
    const first = await expectJson(send(body, undefined, { "Idempotency-Key": key }), 200);
    expect(first).toStrictEqual({ errors: [{ id: 2_000_000_000, error: COUPON_NOT_FOUND }] });
    expect(await mailsTo(to)).toHaveLength(1);
    const replay = await send(body, undefined, { "Idempotency-Key": key });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await expectJson(replay, 200)).toStrictEqual(first);
    expect(await mailsTo(to)).toHaveLength(1);
    await expectError(send({ ...body, subject: "Other" }, undefined, { "Idempotency-Key": key }), 409, "idempotency_key_reused");
    expect(await mailsTo(to)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("source 0: email lists and a template coupon", () => {
  async function setup() {
    const e = (await createEvent({ event_name: unique("List mail ") })).id as number;
    const f = (await createEvent({ event_name: unique("List mail ") })).id as number;
    await createTicketType(e, { name: "Regular", price: 10 });
    const eEntries = await uploadList(e, [address("ann"), address("bob"), address("cas")]);
    const fEntries = await uploadList(f, [address("dan"), address("eve")]);
    const template = await createCoupon({
      code: unique("Tpl"),
      description: "Spring mailing",
      type: "percent",
      amount: 15,
      individual_use: true,
      usage_limit: 1,
      usage_limit_per_user: 1,
      start_date: "2030-04-01 00:00:00",
      end_date: "2030-04-30 23:59:59",
      events: String(e),
      tickets: "Regular",
      minimum_tickets: 1,
      maximum_tickets: 4,
      minimum_amount: 20,
      maximum_amount: 200,
    });
    return { e, f, eEntries, fEntries, template };
  }

  it("list: the ids of the events' email-list entries, ascending; criteria echoed", async () => {
    const { e, f, eEntries, fEntries, template } = await setup();
    const body = criteria({ bulk_source: "0", event_ids: String(e), template_code: template.code, subject: SUBJECT, body: BODY });
    const answer = await expectJson(list(body), 200);
    expect(answer).toStrictEqual({
      bulk_source: "0",
      event_ids: String(e),
      template_code: template.code,
      code_prefix: "",
      code_suffix: "",
      date_from: "",
      date_to: "",
      tickets_minimum: 0,
      tickets_maximum: 0,
      amount_minimum: 0,
      amount_maximum: 0,
      batch_size: 25,
      ids: eEntries.map((r) => r.id),
    });
    const both = await listIds(criteria({ bulk_source: "0", event_ids: `${e},${f}`, template_code: template.code }));
    expect(both).toEqual([...eEntries, ...fEntries].map((r) => r.id).sort((x, y) => x - y));
    // Every list, for an administrator: includes these, ascending.
    const all = await listIds(criteria({ bulk_source: "0", event_ids: "", template_code: template.code }));
    for (const r of [...eEntries, ...fEntries]) expect(all).toContain(r.id);
    expect([...all].sort((x, y) => x - y)).toEqual(all);
  });

  it("send: a coupon per entry with the template's conditions and the entry's address, mailed with its code", async () => {
    const { eEntries, template } = await setup();
    const unknown = 2_000_000_000;
    const ids = eEntries.map((r) => r.id);
    const errors = await sendOk({ bulk_source: "0", template_code: template.code, ids: [ids[0], unknown, ids[1], ids[2]], subject: SUBJECT, body: BODY });
    expect(errors).toStrictEqual([{ id: unknown, error: ENTRY_NOT_FOUND }]);

    const made = await db
      .select()
      .from(coupons)
      .where(like(coupons.codeKey, `${template.code.toLowerCase()}-%`))
      .orderBy(asc(coupons.id));
    expect(made).toHaveLength(3);
    expect(made.map((c) => c.emailKey).sort()).toEqual(eEntries.map((r) => r.emailKey).sort());
    expect(new Set(made.map((c) => c.code)).size).toBe(3);
    const { _links: _l, ...templateView } = template;
    for (const row of made) {
      expect(row.code).toMatch(new RegExp(`^${template.code}-[A-Z0-9]{8}$`));
      const view = await expectJson(call("GET", `/admin/coupons/${row.id}`), 200);
      const { _links, ...rest } = view;
      expect(rest).toStrictEqual({
        ...templateView,
        id: row.id,
        code: row.code,
        email: row.email,
        date_created: rest.date_created,
        date_modified: rest.date_modified,
        used: 0,
        last_used: "",
      });

      const mail = await onlyMailTo(row.email);
      expect(mail.subject).toBe(`Your code ${row.code} for ${row.email}`);
      expect(mail.body).toContain(`<p>Dear ${row.email},</p>`);
      expect(mail.body).toContain(`<p>Code ${row.code} gives 15% off.</p>`);
      expect(mail.body).toContain("<p>From 2030-04-01 00:00:00 until 2030-04-30 23:59:59.</p>");
      expect(mail.body).toContain("<p>Tickets 1 to 4; amount 20.00 EUR to 200.00 EUR.</p>");
      expect(mail.body).toContain('<a href="https://shop.example/?c=">Shop now</a>');
      expectNoKeywordLeft(mail);
    }
    // The template itself is unchanged and was not mailed to anyone.
    const { _links, ...after } = await expectJson(call("GET", `/admin/coupons/${template.id}`), 200);
    expect(after).toStrictEqual(templateView);
  });

  it("send with an unknown template_code is a 400 and creates nothing", async () => {
    const { eEntries } = await setup();
    const code = unique("Missing");
    const err = await expectError(send({ bulk_source: "0", template_code: code, ids: [eEntries[0]!.id], subject: "s", body: "b" }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("template_code");
    expect(await mailsTo(eEntries[0]!.email)).toEqual([]);
    const err2 = await expectError(send({ bulk_source: "0", template_code: "", ids: [eEntries[0]!.id], subject: "s", body: "b" }), 400, "rest_invalid_param");
    expect(Object.keys(err2.data.params ?? {})).toContain("template_code");
  });

  it("Idempotency-Key: a replay creates no second coupon and sends no second mail", async () => {
    const { eEntries, template } = await setup();
    const key = unique("list-mail-key-");
    const body = { bulk_source: "0", template_code: template.code, ids: [eEntries[0]!.id], subject: "Code {%CODE%}", body: "<p>{%CODE%}</p>" };
    expect(await expectJson(send(body, undefined, { "Idempotency-Key": key }), 200)).toStrictEqual({ errors: [] });
    const replay = await send(body, undefined, { "Idempotency-Key": key });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await expectJson(replay, 200)).toStrictEqual({ errors: [] });
    expect(
      await db
        .select()
        .from(coupons)
        .where(like(coupons.codeKey, `${template.code.toLowerCase()}-%`)),
    ).toHaveLength(1);
    expect(await mailsTo(eEntries[0]!.email)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/coupons/bulk/emails/send-example", () => {
  it("mails a sample with every keyword replaced to the given address", async () => {
    const to = address("example");
    const answer = await expectJson(call("POST", `${PATH}/send-example`, { body: { email: to, subject: SUBJECT, body: BODY } }), 200);
    expect(answer).toStrictEqual({ errors: [] });
    const mail = await onlyMailTo(to);
    expect(mail.subject).toMatch(new RegExp(`^Your code \\S+ for ${to.replace(/[.]/g, "\\.")}$`));
    expect(mail.body).toContain(`<p>Dear ${to},</p>`);
    expect(mail.body).toMatch(/<p>Code \S+ gives (\d+(\.\d+)?%|\d+\.\d\d EUR) off\.<\/p>/);
    expectNoKeywordLeft(mail);
  });

  it.each([
    ["email", { email: "not-an-address" }, "rest_invalid_param"],
    ["email", { email: undefined }, "rest_missing_callback_param"],
    ["subject", { subject: undefined }, "rest_missing_callback_param"],
    ["body", { body: "" }, "rest_invalid_param"],
    ["ids", { ids: [1] }, "rest_invalid_param"],
  ])("%s (%j): 400 %s", async (field, change, code) => {
    const body: Json = { email: "someone@example.com", subject: "s", body: "b", ...change };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const err = await expectError(call("POST", `${PATH}/send-example`, { body }), 400, code);
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });

  it("at most 20 a day per user, even sent at once: the rest 429 rest_too_many_requests with Retry-After, nothing mailed; each sent one logged (decisions.md 15)", async () => {
    const sender = await createUser("administrator");
    const label = unique("quota").toLowerCase();
    const to = (i: number) => `${label}-${i}@example.com`;
    const example = (i: number, auth: Credentials = sender.credentials) =>
      call("POST", `${PATH}/send-example`, { body: { email: to(i), subject: "Example", body: "<p>{%CODE%}</p>" }, auth });
    // 25 at once: the count holds under concurrency (one conditional statement, not a read then a write).
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => example(i)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = answers[statuses.indexOf(429)]!;
    const err = await expectError(refused, 429, "rest_too_many_requests");
    expect(err.message).toMatch(/20/);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(25 * 3600);
    await expectError(example(99), 429, "rest_too_many_requests");

    const mailed = await db
      .select()
      .from(emails)
      .where(like(emails.to, `${label}-%`));
    expect(mailed).toHaveLength(20);
    const logged = await db
      .select()
      .from(logs)
      .where(like(logs.description, `%${label}-%`));
    expect(logged).toHaveLength(20);
    for (const entry of logged) {
      expect(entry.logType).toBe("Email");
      expect(entry.description).toContain(`user ${sender.id}`);
    }
    expect(new Set(logged.map((l) => l.description.match(/\S+@example\.com/)![0]))).toEqual(new Set(mailed.map((m) => m.to)));

    // Per user: another user still sends. Per day: yesterday's count does not hold today.
    const other = await createUser("administrator");
    expect((await example(100, other.credentials)).status).toBe(200);
    await db.update(dailyQuotas).set({ day: "2000-01-01" }).where(eq(dailyQuotas.userId, sender.id));
    expect((await example(101)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("organizers", () => {
  async function setup() {
    const mine = (await createEvent({ event_name: unique("Org mail ") })).id as number;
    const theirs = (await createEvent({ event_name: unique("Org mail ") })).id as number;
    const organizer = await createUser("organizer", { authorised_events: [mine] });
    return { mine, theirs, organizer, auth: organizer.credentials };
  }

  it("empty event_ids is for administrators only: 403 for list (both sources); a foreign event is a 403", async () => {
    const { mine, theirs, auth } = await setup();
    const template = await createCoupon({ code: unique("OrgTpl"), events: String(mine) }, auth);
    await expectError(list(criteria({ event_ids: "" }), auth), 403, "rest_forbidden");
    await expectError(list(criteria({ bulk_source: "0", event_ids: "", template_code: template.code }), auth), 403, "rest_forbidden");
    await expectError(list(criteria({ event_ids: String(theirs) }), auth), 403, "rest_forbidden");
    await expectError(list(criteria({ event_ids: `${mine},${theirs}` }), auth), 403, "rest_forbidden");
    await expectError(list(criteria({ bulk_source: "0", event_ids: String(theirs), template_code: template.code }), auth), 403, "rest_forbidden");
  });

  it("source 1: sees and mails only its own coupons whose events lie within its events; others are 'Coupon not found'", async () => {
    const { mine, theirs, auth } = await setup();
    const prefix = unique("OrgP");
    const own = await createCoupon({ code: `${prefix}1`, email: address("own"), events: String(mine) }, auth);
    const foreign = await createCoupon({ code: `${prefix}2`, email: address("foreign"), events: String(theirs) });
    const anyEvent = await createCoupon({ code: `${prefix}3`, email: address("any"), events: "" });
    const mixed = await createCoupon({ code: `${prefix}4`, email: address("mixed"), events: `${mine},${theirs}` });
    // Another owner's coupon on its own event is that owner's (decisions.md 15).
    const admins = await createCoupon({ code: `${prefix}5`, email: address("admins"), events: String(mine) });

    expect(await listIds(criteria({ event_ids: String(mine), code_prefix: prefix }), auth)).toEqual([own.id]);
    // The administrator sees all that meet the event.
    expect(await listIds(criteria({ event_ids: String(mine), code_prefix: prefix }))).toEqual([own.id, anyEvent.id, mixed.id, admins.id]);

    const ids = [own.id, foreign.id, anyEvent.id, mixed.id, admins.id];
    const errors = await sendOk({ bulk_source: "1", template_code: "", ids, subject: SUBJECT, body: BODY }, auth);
    expect(errors).toStrictEqual([
      { id: foreign.id, error: COUPON_NOT_FOUND },
      { id: anyEvent.id, error: COUPON_NOT_FOUND },
      { id: mixed.id, error: COUPON_NOT_FOUND },
      { id: admins.id, error: COUPON_NOT_FOUND },
    ]);
    expect(await mailsTo(own.email)).toHaveLength(1);
    for (const c of [foreign, anyEvent, mixed, admins]) expect(await mailsTo(c.email)).toEqual([]);
  });

  it("source 0: entries of its events only ('Email list entry not found' otherwise); another owner's template code is unknown (400)", async () => {
    const { mine, theirs, auth } = await setup();
    const mineEntries = await uploadList(mine, [address("m1"), address("m2")]);
    const theirEntries = await uploadList(theirs, [address("t1")]);
    const template = await createCoupon({ code: unique("OrgTpl"), type: "fixed", amount: 3, events: String(mine) }, auth);
    const foreignTemplate = await createCoupon({ code: unique("AdmTpl"), events: String(theirs) });
    const globalTemplate = await createCoupon({ code: unique("AllTpl") });

    expect(await listIds(criteria({ bulk_source: "0", event_ids: String(mine), template_code: template.code }), auth)).toEqual(mineEntries.map((r) => r.id));

    const errors = await sendOk(
      { bulk_source: "0", template_code: template.code, ids: [mineEntries[0]!.id, theirEntries[0]!.id], subject: "{%CODE%} {%AMOUNT%}", body: "<p>{%EMAIL%}</p>" },
      auth,
    );
    expect(errors).toStrictEqual([{ id: theirEntries[0]!.id, error: ENTRY_NOT_FOUND }]);
    const mail = await onlyMailTo(mineEntries[0]!.email);
    expect(mail.subject).toMatch(new RegExp(`^${template.code}-[A-Z0-9]{8} 3\\.00 EUR$`));
    expect(mail.body).toContain(`<p>${mineEntries[0]!.email}</p>`);
    expect(await mailsTo(theirEntries[0]!.email)).toEqual([]);

    // Another owner's code is answered as an unknown one (decisions.md 15): whether it exists is not told.
    const ownersCode = await createCoupon({ code: unique("AdmTpl"), events: String(mine) });
    for (const t of [foreignTemplate, globalTemplate, ownersCode]) {
      const sent = await expectError(
        send({ bulk_source: "0", template_code: t.code, ids: [mineEntries[1]!.id], subject: "s", body: "b" }, auth),
        400,
        "rest_invalid_param",
      );
      const listed = await expectError(list(criteria({ bulk_source: "0", event_ids: String(mine), template_code: t.code }), auth), 400, "rest_invalid_param");
      const unknown = await expectError(list(criteria({ bulk_source: "0", event_ids: String(mine), template_code: unique("NoSuch") }), auth), 400, "rest_invalid_param");
      expect(sent.data.params).toEqual(unknown.data.params);
      expect(listed.data.params).toEqual(unknown.data.params);
    }
    expect(await mailsTo(mineEntries[1]!.email)).toEqual([]);
    // Its own template that an administrator widened beyond its events it may not use (403), as it may not read it.
    await expectJson(call("PUT", `/admin/coupons/${template.id}`, { body: { events: `${mine},${theirs}` } }), 200);
    await expectError(send({ bulk_source: "0", template_code: template.code, ids: [mineEntries[1]!.id], subject: "s", body: "b" }, auth), 403, "rest_forbidden");
    expect(await mailsTo(mineEntries[1]!.email)).toEqual([]);
  });

  it("source 0: a code two owners have names the caller's own template; the coupons made are the caller's (decisions.md 15)", async () => {
    const { mine, auth } = await setup();
    const entries = await uploadList(mine, [address("twin")]);
    const code = unique("TwinTpl");
    await createCoupon({ code, type: "fixed", amount: 9, events: String(mine) });
    await createCoupon({ code, type: "fixed", amount: 4, events: String(mine) }, auth);
    expect(await sendOk({ bulk_source: "0", template_code: code.toLowerCase(), ids: [entries[0]!.id], subject: "{%CODE%} {%AMOUNT%}", body: "<p>x</p>" }, auth)).toEqual(
      [],
    );
    const mail = await onlyMailTo(entries[0]!.email);
    expect(mail.subject).toMatch(new RegExp(`^${code}-[A-Z0-9]{8} 4\\.00 EUR$`));
    const made = mail.subject.split(" ")[0];
    const visible = await expectJson<Json[]>(call("GET", `/admin/coupons?search=${encodeURIComponent(entries[0]!.email)}`, { auth }), 200);
    expect(visible.map((c) => c.code)).toEqual([made]);
  });
});

describe("list criteria that contradict themselves", () => {
  it.each([
    ["tickets_maximum", { tickets_minimum: 5, tickets_maximum: 4 }],
    ["amount_maximum", { amount_minimum: 10.01, amount_maximum: 10 }],
  ])("a minimum above its (non-zero) maximum is a 400 naming %s; a maximum of 0 is no bound", async (field, extra) => {
    const err = await expectError(call("POST", "/admin/coupons/bulk/emails/list", { body: criteria(extra) }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain(field);
    const open = { ...extra, [field]: 0 };
    await expectJson(call("POST", "/admin/coupons/bulk/emails/list", { body: criteria(open) }), 200);
  });
});
