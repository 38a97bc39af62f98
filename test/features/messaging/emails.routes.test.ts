import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config";
import { BASE, ORIGIN, call, createUser, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType } from "../../helpers/catalogue";

/**
 * The emails of an order through the public API (spec: event configuration, email settings; decisions.md 9 and 13
 * "Flows"; docs/webhooks-and-email.md "Email"): a dashboard order writes its new-order email to the outbox, filled
 * in, purified and wrapped; the outbox provider marks it sent once the queue consumer ran; `GET /admin/emails` and
 * `GET /admin/emails/<id>` show the outbox to administrators only. Storage is shared by the tests of this file, so
 * every test makes its own event and reads the outbox filtered by it.
 */

type Json = Record<string, any>;

const EMAIL_FIELDS = [
  "_links",
  "attempts",
  "bcc",
  "body",
  "created_at",
  "event_id",
  "from_email",
  "from_name",
  "id",
  "last_error",
  "order_id",
  "sent_at",
  "status",
  "subject",
  "to",
];

/**
 * Every keyword of the spec and {%ORDER%}, links URL-escaped (in both letter cases) and plain, plus what
 * purification removes. A keyword that is not a link keyword inside an href is filled with nothing (decisions.md 14).
 */
const FULL_BODY = [
  "<h1>Hello {%NAME%}</h1>",
  "<p>We will write to {%EMAIL%}. Season {%YEAR%}.</p>",
  "{%ORDER%}",
  '<p><a href="%7B%25TICKETS%25%7D">Download your tickets</a></p>',
  "<div>{%DOWNLOAD-TICKETS%}</div>",
  '<p><a href="%7b%25PERSONALISE%25%7d">Personalise</a></p>',
  '<p><a href="{%INVOICE%}">Invoice</a></p>',
  "<div>{%FIELDS%}</div>",
  "<script>alert('stolen')</script>",
  '<p onclick="alert(1)" style="color:#333">Click me</p>',
  '<p><a href="javascript:alert(2)">Bad link</a></p>',
].join("\n");

interface Setup {
  event: Json;
  types: Json[];
  fields: Json[];
}

async function setup(event: Json, fields: Json[] = []): Promise<Setup> {
  const created = await createEvent({ event_name: unique("Mail "), add_dashboard_orders_needed: true, ...event });
  const types = [
    await createTicketType(created.id, { name: "Regular", price: "12.50", maximum_to_order: 0 }),
    await createTicketType(created.id, { name: "VIP", price: 30 }),
  ];
  const made: Json[] = [];
  for (const f of fields) made.push(await createInputField(created.id, f));
  return { event: created, types, fields: made };
}

async function order(s: Setup, extra: Json = {}, counts: number[] = [2, 0]): Promise<Json> {
  return expectJson(
    call("POST", "/admin/orders", {
      body: { event_id: s.event.id, name: "Ann Smith", email: "ann@example.com", tickets: s.types.map((t, i) => ({ [t.id]: counts[i] ?? 0 })), ...extra },
    }),
    201,
  );
}

async function outboxOf(orderId: number): Promise<Json[]> {
  return expectJson<Json[]>(call("GET", `/admin/emails?order_id=${orderId}`), 200);
}

async function onlyEmailOf(orderId: number): Promise<Json> {
  const rows = await outboxOf(orderId);
  expect(rows, `outbox of order ${orderId}`).toHaveLength(1);
  return rows[0]!;
}

/** Polls until `done` holds (the queue consumer runs on its own), answering the last value read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function yearIn(timezone: string): string {
  return new Intl.DateTimeFormat("en", { timeZone: timezone, year: "numeric" }).format(new Date());
}

const globalSender = () => loadConfig(env).email;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("the new-order email of a dashboard order", () => {
  it("is one outbox row with every keyword replaced, the body purified and wrapped, the event's sender and BCC", async () => {
    const s = await setup(
      {
        emails_needed: true,
        email: {
          sender_name: "Acme Events",
          sender_email: "events@acme.test",
          bcc: "archive@acme.test",
          subject: "Your tickets, {%NAME%} ({%YEAR%})",
          body: FULL_BODY,
        },
      },
      [{ name: "Company" }, { name: "Secret", type: "password" }, { name: "Attendee", is_personalised: true }],
    );
    const [company, secret] = s.fields;
    const name = `Ann "Bo" <Smith> & Co`;
    const placed = await order(s, {
      name,
      email: "Ann.Smith@Example.com",
      fields: [{ [company!.id]: "Acme & Sons <Ltd>" }, { [secret!.id]: "hunter2-secret" }],
    });
    const uid = placed.uid as string;
    const links = `${ORIGIN}/ticketing/v1`;

    const row = await onlyEmailOf(placed.id);
    expect(Object.keys(row).sort()).toEqual(EMAIL_FIELDS);
    expect(row).toMatchObject({
      to: "Ann.Smith@Example.com",
      bcc: "archive@acme.test",
      from_name: "Acme Events",
      from_email: "events@acme.test",
      event_id: s.event.id,
      order_id: placed.id,
    });
    expect(["queued", "sent"]).toContain(row.status);

    const year = yearIn(s.event.timezone as string);
    expect(row.subject).toBe(`Your tickets, ${name} (${year})`);

    const body = row.body as string;
    // Name, email, year, escaped for HTML.
    expect(body).toContain("<h1>Hello Ann &quot;Bo&quot; &lt;Smith&gt; &amp; Co</h1>");
    expect(body).toContain(`<p>We will write to Ann.Smith@Example.com. Season ${year}.</p>`);
    // The order summary ({%ORDER%}): the ordered type, its count and amount; not the type ordered 0 times.
    expect(body).toMatch(/<td>Regular<\/td>\s*<td>2<\/td>\s*<td>25\.00 EUR<\/td>/);
    expect(body).not.toContain("VIP");
    // Links to the public addresses of this order; the download block links the same address.
    expect(body).toContain(`<a href="${links}/tickets/${uid}">Download your tickets</a>`);
    expect(body).toMatch(new RegExp(`<div><p>[^<]*<a href="${escapeRegExp(`${links}/tickets/${uid}`)}">[^<]+</a>[^<]*</p></div>`));
    expect(body).toContain('<a href="">Personalise</a>');
    // No invoices for this event: the invoice address is empty.
    expect(body).toContain('<a href="">Invoice</a>');
    // The order-level fields as a table, escaped; never a password, never a personalised field.
    expect(body).toMatch(/<table>\s*<tr>\s*<td>Company<\/td>\s*<td>Acme &amp; Sons &lt;Ltd&gt;<\/td>\s*<\/tr>\s*<\/table>/);
    expect(body).not.toContain("hunter2");
    expect(body).not.toContain("Secret");
    expect(body).not.toContain("Attendee");
    // No keyword left, in either form.
    expect(body).not.toMatch(/\{%[A-Z-]+%\}/i);
    expect(body).not.toMatch(/%7B%25/i);
    // Purified: no script, no handler, no javascript: URL; the harmless markup stays.
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toContain("stolen");
    expect(body).not.toMatch(/\son[a-z]+\s*=/i);
    expect(body).not.toMatch(/javascript:/i);
    expect(body).not.toMatch(/alert\(/);
    expect(body).toContain("Click me");
    expect(body).toContain("Bad link");
    expect(body).toContain('style="color:#333"');
    // Wrapped in the 600 px container.
    expect(body).toMatch(/^<!DOCTYPE html>/i);
    expect(body).toMatch(/<div style="[^"]*max-width:\s*600px[^"]*">\s*<h1>Hello/);
    expect(body.trimEnd()).toMatch(/<\/div>\s*<\/body>\s*<\/html>$/);
  });

  it("uses the global sender when the event's is empty, each of name and address on its own, and no BCC when none is set", async () => {
    const global = globalSender();
    expect(global.from).not.toBe("");

    const plain = await setup({ emails_needed: true, email: { subject: "Order {%NAME%}" } });
    const a = await onlyEmailOf((await order(plain)).id);
    expect(a).toMatchObject({ from_name: global.fromName, from_email: global.from, bcc: "", subject: "Order Ann Smith", to: "ann@example.com" });

    const nameOnly = await setup({ emails_needed: true, email: { subject: "x", sender_name: "Box Office", sender_email: "" } });
    expect(await onlyEmailOf((await order(nameOnly)).id)).toMatchObject({ from_name: "Box Office", from_email: global.from });

    const addressOnly = await setup({ emails_needed: true, email: { subject: "x", sender_name: "  ", sender_email: "box@acme.test" } });
    expect(await onlyEmailOf((await order(addressOnly)).id)).toMatchObject({ from_name: global.fromName, from_email: "box@acme.test" });

    // One BCC at most.
    const twoBcc = await call("POST", "/admin/events", {
      body: { event_name: unique("Mail "), emails_needed: true, email: { subject: "x", bcc: "a@acme.test,b@acme.test" } },
    });
    const refused = await expectError(twoBcc, 400, "rest_invalid_param");
    expect(Object.keys(refused.data.params ?? {}).join(",")).toContain("email");
  });

  it("with an empty body sends the default body, with the order summary, the download link and no keyword left", async () => {
    const s = await setup({ emails_needed: true, email: { subject: "Tickets", body: "" } });
    const placed = await order(s);
    const row = await onlyEmailOf(placed.id);
    expect(row.body).toContain(`href="${ORIGIN}/ticketing/v1/tickets/${placed.uid}"`);
    expect(row.body).toMatch(/<table>\s*<tr>\s*<td>Regular<\/td>\s*<td>2<\/td>\s*<td>25\.00 EUR<\/td>/);
    expect(row.body).not.toContain("personalise");
    expect(row.body).toContain("Ann Smith");
    expect(row.body).toContain("max-width:600px");
    expect(row.body).not.toMatch(/\{%|%7B%25/i);
  });

  it("is not written for an event without emails_needed, even with a template", async () => {
    const s = await setup({ emails_needed: false, email: { subject: "Never sent", body: "<p>{%NAME%}</p>" } });
    const placed = await order(s);
    const res = await call("GET", `/admin/emails?order_id=${placed.id}`);
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
    expect(res.headers.get("X-WP-TotalPages")).toBe("0");
    expect(await expectJson(call("GET", `/admin/emails?event_id=${s.event.id}`), 200)).toEqual([]);
  });

  it("is marked sent by the outbox provider once the queue consumer has run", async () => {
    const s = await setup({ emails_needed: true, email: { subject: "Sent?" } });
    const placed = await order(s);
    const first = await onlyEmailOf(placed.id);
    const row = await until(
      () => expectJson(call("GET", `/admin/emails/${first.id}`), 200),
      (r) => r.status !== "queued",
    );
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(1);
    expect(row.last_error).toBe("");
    expect(row.sent_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(row.sent_at >= row.created_at).toBe(true);
    // Still exactly one row: the consumer sends the row, it does not write another.
    expect(await outboxOf(placed.id)).toHaveLength(1);
  });
});

describe("the keywords of an order's email: the meanings of Fast Events (decisions.md 14)", () => {
  /** Each keyword marked off, so that an empty value shows as `[]`; links both URL-escaped and plain. */
  const PROBE = [
    "<p>T=[{%TICKETS%}]</p>",
    '<p><a href="%7B%25TICKETS%25%7D">escaped</a> <a href="{%TICKETS%}">plain</a></p>',
    "<div>D=[{%DOWNLOAD-TICKETS%}]</div>",
    "<div>O=[{%ORDER%}]</div>",
    '<p>I=[{%INVOICE%}] <a href="%7B%25INVOICE%25%7D">invoice</a></p>',
    "<div>P=[{%PERSONALISE%}]</div>",
  ].join("");

  async function emailed(event: Json, counts: number[] = [2, 0]) {
    const s = await setup({ emails_needed: true, email: { subject: "Tickets {%TICKETS%} / {%ORDER%}", body: PROBE }, ...event });
    const placed = await order(s, {}, counts);
    const row = await onlyEmailOf(placed.id);
    return { body: row.body as string, subject: row.subject as string, links: `${ORIGIN}/ticketing/v1`, uid: placed.uid as string };
  }

  it("{%TICKETS%} is the absolute download address: in text, in an href plain or URL-escaped, and in the subject", async () => {
    const { body, subject, links, uid } = await emailed({});
    const download = `${links}/tickets/${uid}`;
    expect(body).toContain(`<p>T=[${download}]</p>`);
    expect(body).toContain(`<p><a href="${download}">escaped</a> <a href="${download}">plain</a></p>`);
    expect(subject.startsWith(`Tickets ${download} / `)).toBe(true);
  });

  it("{%DOWNLOAD-TICKETS%} is a short paragraph with a link to the download address", async () => {
    const { body, links, uid } = await emailed({});
    const block = /<div>D=\[([\s\S]*?)\]<\/div>/.exec(body)?.[1];
    expect(block).toMatch(new RegExp(`^<p>[^<]*<a href="${escapeRegExp(`${links}/tickets/${uid}`)}">[^<]+</a>[^<]*</p>$`));
  });

  it("{%ORDER%} is the order summary: each ordered type with its count and amount, in the body as a table and in the subject as text", async () => {
    const { body, subject } = await emailed({}, [2, 1]);
    const summary = /<div>O=\[([\s\S]*?)\]<\/div>/.exec(body)?.[1];
    expect(summary).toBe("<table><tr><td>Regular</td><td>2</td><td>25.00 EUR</td></tr><tr><td>VIP</td><td>1</td><td>30.00 EUR</td></tr></table>");
    expect(subject.endsWith(" / Regular 2 25.00 EUR; VIP 1 30.00 EUR")).toBe(true);
  });

  it("{%INVOICE%} is empty for an event without invoices, in text and in an href", async () => {
    const { body } = await emailed({ invoice_needed: false });
    expect(body).toContain('<p>I=[] <a href="">invoice</a></p>');
  });

  it("{%INVOICE%} is the absolute invoice address for an event with invoices", async () => {
    const { body, links, uid } = await emailed({ invoice_needed: true });
    const invoice = `${links}/invoices/${uid}`;
    expect(body).toContain(`<p>I=[${invoice}] <a href="${invoice}">invoice</a></p>`);
  });

  it("{%PERSONALISE%} is empty when no ordered ticket asks for personalisation", async () => {
    const { body } = await emailed({});
    expect(body).toContain("<div>P=[]</div>");
  });

  it("{%PERSONALISE%} is a short paragraph with the personalisation link when an ordered ticket asks for it", async () => {
    const fields = [{ name: "Attendee", is_personalised: true }];
    const s = await setup({ emails_needed: true, email: { subject: "x", body: PROBE } }, fields);
    await expectJson(call("PUT", `/admin/events/${s.event.id}/ticket-types/${s.types[1]!.id}`, { body: { personalise: "Attendee" } }), 200);
    // VIP asks for it: an order of Regular only has nothing to personalise, one with a VIP has.
    const regular = await onlyEmailOf((await order(s, {}, [2, 0])).id);
    expect(regular.body).toContain("<div>P=[]</div>");
    const placed = await order(s, {}, [1, 1]);
    const body = (await onlyEmailOf(placed.id)).body as string;
    const block = /<div>P=\[([\s\S]*?)\]<\/div>/.exec(body)?.[1];
    expect(block).toMatch(new RegExp(`^<p>[^<]*<a href="${escapeRegExp(`${ORIGIN}/ticketing/v1/tickets/${placed.uid}/personalise`)}">[^<]+</a>[^<]*</p>$`));
  });

  it("the default body shows the personalisation block when an ordered ticket asks for it", async () => {
    const s = await setup({ emails_needed: true, email: { subject: "x", body: "" } }, [{ name: "Attendee", is_personalised: true }]);
    await expectJson(call("PUT", `/admin/events/${s.event.id}/ticket-types/${s.types[0]!.id}`, { body: { personalise: "Attendee" } }), 200);
    const placed = await order(s);
    const body = (await onlyEmailOf(placed.id)).body as string;
    expect(body).toContain(`href="${ORIGIN}/ticketing/v1/tickets/${placed.uid}/personalise"`);
    expect(body).toContain(`href="${ORIGIN}/ticketing/v1/tickets/${placed.uid}"`);
  });
});

describe("GET /admin/emails", () => {
  async function threeOrders() {
    const s = await setup({ emails_needed: true, email: { subject: "Paging" } });
    const tag = unique("pg").toLowerCase();
    const emails = [`${tag}.carol@example.com`, `${tag}.alice@example.com`, `${tag}.bob@example.com`];
    const orders: Json[] = [];
    for (const email of emails) orders.push(await order(s, { email }));
    const rows = await expectJson<Json[]>(call("GET", `/admin/emails?event_id=${s.event.id}`), 200);
    return { s, tag, emails, orders, rows };
  }

  it("pages like orders: per_page, page, offset, X-WP-Total, X-WP-TotalPages and Link", async () => {
    const { s, emails, orders, rows } = await threeOrders();
    expect(rows.map((r) => r.to)).toEqual(emails);
    expect(rows.map((r) => r.order_id)).toEqual(orders.map((o) => o.id));
    const ids = rows.map((r) => r.id as number);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const first = await call("GET", `/admin/emails?event_id=${s.event.id}&per_page=2`);
    expect((await expectJson<Json[]>(first, 200)).map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(first.headers.get("X-WP-Total")).toBe("3");
    expect(first.headers.get("X-WP-TotalPages")).toBe("2");
    const firstLink = first.headers.get("Link") ?? "";
    expect(firstLink).toContain('rel="next"');
    expect(firstLink).not.toContain('rel="prev"');
    const next = new URL(/<([^>]+)>; rel="next"/.exec(firstLink)![1]!);
    expect(next.origin + next.pathname).toBe(`${BASE}/admin/emails`);
    expect(next.searchParams.get("page")).toBe("2");
    expect(next.searchParams.get("event_id")).toBe(String(s.event.id));

    const second = await call("GET", `/admin/emails?event_id=${s.event.id}&per_page=2&page=2`);
    expect((await expectJson<Json[]>(second, 200)).map((r) => r.id)).toEqual(ids.slice(2));
    expect(second.headers.get("Link")).toContain('rel="prev"');
    expect(second.headers.get("Link")).not.toContain('rel="next"');

    const byOffset = await expectJson<Json[]>(call("GET", `/admin/emails?event_id=${s.event.id}&per_page=1&offset=1`), 200);
    expect(byOffset.map((r) => r.id)).toEqual([ids[1]]);

    const past = await call("GET", `/admin/emails?event_id=${s.event.id}&per_page=2&page=5`);
    expect(await expectJson(past, 200)).toEqual([]);
    expect(past.headers.get("X-WP-Total")).toBe("3");
  });

  it("filters by event_id, order_id, include, exclude and search (case-insensitive substring of to), and sorts", async () => {
    const { s, tag, emails, orders, rows } = await threeOrders();
    const other = await setup({ emails_needed: true, email: { subject: "Other" } });
    const otherOrder = await order(other, { email: `${tag}.dave@example.com` });

    const both = await expectJson<Json[]>(call("GET", `/admin/emails?event_id=${s.event.id},${other.event.id}`), 200);
    expect(both.map((r) => r.order_id)).toEqual([...orders.map((o) => o.id), otherOrder.id]);

    const byOrder = await expectJson<Json[]>(call("GET", `/admin/emails?order_id=${orders[2]!.id},${orders[0]!.id}`), 200);
    expect(byOrder.map((r) => r.to)).toEqual([emails[0], emails[2]]);

    const searched = await call("GET", `/admin/emails?search=${encodeURIComponent(`${tag.toUpperCase()}.ALICE@`)}`);
    expect((await expectJson<Json[]>(searched, 200)).map((r) => r.to)).toEqual([emails[1]]);
    expect(searched.headers.get("X-WP-Total")).toBe("1");
    const allOfTag = await expectJson<Json[]>(call("GET", `/admin/emails?search=${tag}&per_page=100`), 200);
    expect(allOfTag.map((r) => r.to).sort()).toEqual([...emails, `${tag}.dave@example.com`].sort());
    expect(await expectJson(call("GET", `/admin/emails?search=${tag}.zed`), 200)).toEqual([]);

    const included = await expectJson<Json[]>(call("GET", `/admin/emails?include=${rows[0]!.id},${rows[2]!.id}&exclude=${rows[2]!.id}`), 200);
    expect(included.map((r) => r.id)).toEqual([rows[0]!.id]);
    const excluded = await expectJson<Json[]>(call("GET", `/admin/emails?event_id=${s.event.id}&exclude=${rows[1]!.id}`), 200);
    expect(excluded.map((r) => r.id)).toEqual([rows[0]!.id, rows[2]!.id]);

    const byTo = await expectJson<Json[]>(call("GET", `/admin/emails?event_id=${s.event.id}&orderby=to&order=desc`), 200);
    expect(byTo.map((r) => r.to)).toEqual([...emails].sort().reverse());
  });

  it("refuses malformed query parameters with 400", async () => {
    for (const q of ["per_page=0", "per_page=101", "page=0", "event_id=abc", "order_id=1;2", "orderby=subject", "order=up"]) {
      await expectError(call("GET", `/admin/emails?${q}`), 400, "rest_invalid_param");
    }
  });

  it("is for administrators only: an organizer of the event gets 403, another administrator reads it", async () => {
    const s = await setup({ emails_needed: true, email: { subject: "Roles" } });
    const placed = await order(s);
    const row = await onlyEmailOf(placed.id);

    const organizer = await createUser("organizer", { authorised_events: [s.event.id] });
    await expectError(call("GET", "/admin/emails", { auth: organizer.credentials }), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/emails?event_id=${s.event.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/emails/${row.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");

    const admin = await createUser("administrator");
    const seen = await expectJson<Json[]>(call("GET", `/admin/emails?order_id=${placed.id}`, { auth: admin.credentials }), 200);
    expect(seen.map((r) => r.id)).toEqual([row.id]);

    await expectError(call("GET", "/admin/emails", { auth: null }), 401, "rest_not_logged_in");
    await expectError(call("GET", "/admin/emails", { key: null }), 401, "rest_forbidden_api_key");
  });
});

describe("GET /admin/emails/<id>", () => {
  it("reads one outbox row, as the list shows it, with its links", async () => {
    const s = await setup({ emails_needed: true, email: { subject: "One", bcc: "copy@acme.test" } });
    const placed = await order(s);
    const listed = await onlyEmailOf(placed.id);
    const one = await expectJson(call("GET", `/admin/emails/${listed.id}`), 200);
    expect(Object.keys(one).sort()).toEqual(EMAIL_FIELDS);
    const { status: _s, attempts: _a, sent_at: _t, ...stable } = listed;
    expect(one).toMatchObject(stable);
    expect(one._links).toEqual({ self: [{ href: `${BASE}/admin/emails/${listed.id}` }], collection: [{ href: `${BASE}/admin/emails` }] });
    expect(one.bcc).toBe("copy@acme.test");
    expect(one.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("answers 404 rest_email_invalid_id for an unknown or malformed id", async () => {
    await expectError(call("GET", "/admin/emails/999999999"), 404, "rest_email_invalid_id");
    await expectError(call("GET", "/admin/emails/abc"), 404, "rest_email_invalid_id");
  });
});
