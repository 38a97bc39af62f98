import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { coupons } from "../../../src/db/schema";
import { BASE, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * `/admin/coupons` (spec: Coupon, Coupons; decisions.md 3, 12, 13). Storage is shared with every other test file,
 * so each test makes its own coupons with unique codes and narrows lists with `include` or a unique `search`.
 */

type Json = Record<string, any>;

const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The spec's field order, then `_links`. */
const COUPON_FIELDS = [
  "id",
  "code",
  "description",
  "date_created",
  "date_modified",
  "type",
  "individual_use",
  "amount",
  "usage_limit",
  "usage_limit_per_user",
  "used",
  "last_used",
  "start_date",
  "end_date",
  "events",
  "tickets",
  "minimum_tickets",
  "maximum_tickets",
  "minimum_amount",
  "maximum_amount",
  "email",
  "_links",
];

const listPath = "/admin/coupons";
const couponPath = (id: number | string) => `${listPath}/${id}`;

const newCode = (prefix = "Cpn") => unique(prefix);

function post(body: unknown, auth?: Credentials) {
  return call("POST", listPath, { body, auth });
}

function put(id: number | string, body: unknown, auth?: Credentials) {
  return call("PUT", couponPath(id), { body, auth });
}

async function createCoupon(extra: Json = {}, auth?: Credentials): Promise<Json> {
  return expectJson(post({ code: newCode(), type: "fixed", amount: 5, ...extra }, auth), 201);
}

async function getCoupon(id: number, auth?: Credentials): Promise<Json> {
  return expectJson(call("GET", couponPath(id), { auth }), 200);
}

async function list(query: string, auth?: Credentials): Promise<Json[]> {
  return expectJson<Json[]>(call("GET", `${listPath}?${query}`, { auth }), 200);
}

const ids = (rows: Json[]) => rows.map((r) => r.id as number);

async function rowsWithCode(code: string) {
  return db.select().from(coupons).where(eq(coupons.codeKey, code.toLowerCase()));
}

async function expectInvalid(res: Promise<Response>, field: string, label?: string) {
  const err = await expectError(res, 400, "rest_invalid_param");
  expect(Object.keys(err.data.params ?? {}), label).toContain(field);
  return err;
}

function withoutLinks(resource: Json): Json {
  const { _links, ...rest } = resource;
  return rest;
}

/** Epoch seconds of a UTC instant. */
const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

/** An event with ticket types of the given names. */
async function eventWithTypes(...names: string[]): Promise<number> {
  const event = await createEvent({ event_name: unique("Event ") });
  for (const name of names) await createTicketType(event.id, { name });
  return event.id as number;
}

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/coupons", () => {
  it("creates a coupon from code, type and amount: 201, Location, every field in the spec's order with its default", async () => {
    const code = newCode("Minimal");
    const before = Math.floor(Date.now() / 1000);
    const res = await post({ code, type: "percent", amount: 12.5 });
    const body = await expectJson(res, 201);
    const after = Math.floor(Date.now() / 1000);
    expect(Object.keys(body)).toEqual(COUPON_FIELDS);
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body).toEqual({
      id: body.id,
      code,
      description: "",
      date_created: body.date_created,
      date_modified: body.date_created,
      type: "percent",
      individual_use: false,
      amount: 12.5,
      usage_limit: 0,
      usage_limit_per_user: 0,
      used: 0,
      last_used: "",
      start_date: "",
      end_date: "",
      events: "",
      tickets: "",
      minimum_tickets: 0,
      maximum_tickets: 0,
      minimum_amount: 0,
      maximum_amount: 0,
      email: "",
      _links: {
        self: [{ href: `${BASE}${couponPath(body.id)}` }],
        collection: [{ href: `${BASE}${listPath}` }],
      },
    });
    expect(body.date_created).toMatch(DATE_TIME);
    const candidates: string[] = [];
    for (let t = before; t <= after; t++) candidates.push(wallClockAt(t * 1000));
    expect(candidates).toContain(body.date_created);
    expect(res.headers.get("Location")).toBe(`${BASE}${couponPath(body.id)}`);
    expect(await getCoupon(body.id)).toEqual(body);
    const [row] = await rowsWithCode(code);
    expect(row!.amountHundredths).toBe(1250); // percent hundredths
  });

  it("takes every field: money in cents, dates in the service zone, events sorted, tickets and email as given", async () => {
    const e1 = await eventWithTypes("Regular", "VIP");
    const e2 = await eventWithTypes("Balcony");
    const [low, high] = e1 < e2 ? [e1, e2] : [e2, e1];
    const code = newCode("Full");
    const email = `Mixed.${unique("m")}@Example.COM`;
    const body = await expectJson(
      post({
        code,
        description: "  Summer sale  ",
        type: "fixed",
        individual_use: true,
        amount: "12.50",
        usage_limit: 100,
        usage_limit_per_user: 2,
        start_date: "2030-07-01 10:00:00",
        end_date: "2030-12-31 23:59:59",
        events: ` ${high}, ${low},${high}`,
        tickets: "VIP, Balcony ,VIP",
        minimum_tickets: 2,
        maximum_tickets: 10,
        minimum_amount: 20,
        maximum_amount: "500.5",
        email,
      }),
      201,
    );
    expect(withoutLinks(body)).toEqual({
      id: body.id,
      code,
      description: "Summer sale",
      date_created: body.date_created,
      date_modified: body.date_created,
      type: "fixed",
      individual_use: true,
      amount: 12.5,
      usage_limit: 100,
      usage_limit_per_user: 2,
      used: 0,
      last_used: "",
      start_date: "2030-07-01 10:00:00",
      end_date: "2030-12-31 23:59:59",
      events: `${low},${high}`,
      tickets: "VIP,Balcony",
      minimum_tickets: 2,
      maximum_tickets: 10,
      minimum_amount: 20,
      maximum_amount: 500.5,
      email,
    });
    const [row] = await rowsWithCode(code);
    expect(row).toMatchObject({
      amountHundredths: 1250,
      minimumAmountCents: 2000,
      maximumAmountCents: 50050,
      // Europe/Amsterdam: summer time (+2) in July, winter time (+1) in December.
      startDate: utc(2030, 7, 1, 8),
      endDate: utc(2030, 12, 31, 22, 59, 59),
      events: [low, high],
      tickets: ["VIP", "Balcony"],
      email,
      emailKey: email.toLowerCase(),
      codeKey: code.toLowerCase(),
    });
  });

  it("trims the code and accepts the amount's edge values", async () => {
    const code = newCode("Trim");
    expect((await expectJson(post({ code: `  ${code}\t`, type: "fixed", amount: 0 }), 201)).code).toBe(code);
    expect((await createCoupon({ type: "percent", amount: "100" })).amount).toBe(100);
    expect((await createCoupon({ type: "percent", amount: 0.01 })).amount).toBe(0.01);
    expect((await createCoupon({ type: "fixed", amount: 1234.56 })).amount).toBe(1234.56);
    expect((await createCoupon({ type: "fixed", amount: "250" })).amount).toBe(250);
    const long = unique("Long");
    expect((await createCoupon({ code: long + "x".repeat(50 - long.length) })).code).toHaveLength(50);
  });

  it("allows a minimum without a maximum and the other way round (0 is no bound)", async () => {
    const a = await createCoupon({ minimum_tickets: 5, maximum_tickets: 0, minimum_amount: 100, maximum_amount: 0 });
    expect(a).toMatchObject({ minimum_tickets: 5, maximum_tickets: 0, minimum_amount: 100, maximum_amount: 0 });
    const b = await createCoupon({ minimum_tickets: 0, maximum_tickets: 3, minimum_amount: 0, maximum_amount: 1 });
    expect(b).toMatchObject({ minimum_tickets: 0, maximum_tickets: 3, minimum_amount: 0, maximum_amount: 1 });
    const c = await createCoupon({ minimum_tickets: 4, maximum_tickets: 4, minimum_amount: 9.99, maximum_amount: 9.99 });
    expect(c).toMatchObject({ minimum_tickets: 4, maximum_tickets: 4 });
    const d = await createCoupon({ start_date: "2030-01-01 00:00:00", end_date: "2030-01-01 00:00:00" });
    expect(d.end_date).toBe("2030-01-01 00:00:00");
  });

  it("names ticket types of any event when events is empty", async () => {
    const name = unique("Type");
    await eventWithTypes(name);
    const coupon = await createCoupon({ tickets: name });
    expect(coupon).toMatchObject({ events: "", tickets: name });
  });

  it("refuses a body without the required fields with rest_missing_callback_param naming each", async () => {
    const err = await expectError(post({}), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params ?? {}).sort()).toEqual(["amount", "code", "type"]);
    const partly = await expectError(post({ code: newCode() }), 400, "rest_missing_callback_param");
    expect(Object.keys(partly.data.params ?? {}).sort()).toEqual(["amount", "type"]);
  });

  it("lists absent fields beside invalid ones under rest_invalid_param", async () => {
    const err = await expectError(post({ code: "a b" }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {}).sort()).toEqual(["amount", "code", "type"]);
  });

  it.each<[string, unknown, Json?]>([
    ["code", ""],
    ["code", "   "],
    ["code", "two words"],
    ["code", "tab\there"],
    ["code", "x".repeat(51)],
    ["code", 5],
    ["code", null],
    ["description", "x".repeat(1001)],
    ["description", 3],
    ["type", "discount"],
    ["type", "Percent"],
    ["type", ""],
    ["individual_use", "yes"],
    ["individual_use", 1],
    ["amount", -1],
    ["amount", "-1"],
    ["amount", "1.234"],
    ["amount", 1.234],
    ["amount", "1e3"],
    ["amount", 0.30000000000000004],
    ["amount", "abc"],
    ["amount", ""],
    ["amount", true],
    ["amount", 100.01, { type: "percent" }],
    ["amount", "150", { type: "percent" }],
    ["usage_limit", -1],
    ["usage_limit", 1.5],
    ["usage_limit", "3"],
    ["usage_limit_per_user", -2],
    ["start_date", "2030-01-01"],
    ["start_date", "2030-13-01 00:00:00"],
    ["start_date", "2030-02-30 10:00:00"],
    ["start_date", "2030-01-01T10:00:00"],
    ["start_date", 1893456000],
    ["end_date", "tomorrow"],
    ["end_date", "2030-01-01 09:59:59", { start_date: "2030-01-01 10:00:00" }],
    ["events", "a"],
    ["events", "1;2"],
    ["events", "0"],
    ["events", [1]],
    ["events", 7],
    ["tickets", 3],
    ["tickets", "NoSuchTypeAnywhere-zz9"],
    ["minimum_tickets", -1],
    ["minimum_tickets", 6, { maximum_tickets: 5 }],
    ["maximum_tickets", "5"],
    ["minimum_amount", "1.001"],
    ["minimum_amount", 10.01, { maximum_amount: 10 }],
    ["maximum_amount", -0.5],
    ["email", "not-an-email"],
    ["email", "a@b@example.com"],
    ["email", 5],
    ["nonsense", 1],
    ["Code", "ABC"],
  ])("refuses %s = %j (%j) with 400 naming it, creating nothing", async (field, value, extra = {}) => {
    const code = newCode("Bad");
    const body: Json = { code, type: "fixed", amount: 5, ...extra, [field]: value };
    await expectInvalid(post(body), field);
    expect(await rowsWithCode(code)).toHaveLength(0);
  });

  it.each(["\r\n", "\u0000", "\u007f"])("refuses an email holding the control character %j, on create and update, changing nothing (decisions.md 14)", async (bad) => {
    const email = `ann${bad}@example.com`;
    const code = newCode("Ctl");
    const created = await expectInvalid(post({ code, type: "fixed", amount: 5, email }), "email");
    expect(created.data.params).toEqual({ email: "must be a valid email address or empty" });
    expect(await rowsWithCode(code)).toHaveLength(0);

    const coupon = await createCoupon({ email: "ann@example.com" });
    const before = await getCoupon(coupon.id);
    const updated = await expectInvalid(put(coupon.id, { email: `ann@example.com${bad}x` }), "email");
    expect(updated.data.params).toEqual({ email: "must be a valid email address or empty" });
    expect(await getCoupon(coupon.id)).toEqual(before);
  });

  it("refuses events that do not exist with 400 naming them", async () => {
    const real = await eventWithTypes();
    const code = newCode("NoEvent");
    const err = await expectInvalid(post({ code, type: "fixed", amount: 1, events: `${real},999999999` }), "events");
    expect(err.data.params!.events).toContain("999999999");
    expect(await rowsWithCode(code)).toHaveLength(0);
  });

  it("refuses ticket names that are not types of the coupon's events", async () => {
    const e1 = await eventWithTypes("Regular");
    const elsewhere = unique("Elsewhere");
    const e2 = await eventWithTypes(elsewhere);
    const code = newCode("Types");
    const err = await expectInvalid(post({ code, type: "fixed", amount: 1, events: String(e1), tickets: `Regular,${elsewhere}` }), "tickets");
    expect(err.data.params!.tickets).toContain(elsewhere);
    await expectInvalid(post({ code, type: "fixed", amount: 1, events: String(e1), tickets: "regular" }), "tickets"); // names are case-sensitive
    expect(await rowsWithCode(code)).toHaveLength(0);
    // With both events the name is known.
    const ok = await expectJson(post({ code, type: "fixed", amount: 1, events: `${e1},${e2}`, tickets: `Regular,${elsewhere}` }), 201);
    expect(ok.tickets).toBe(`Regular,${elsewhere}`);
  });

  it.each(["id", "date_created", "date_modified", "used", "last_used"])("refuses the read-only field %s on create", async (field) => {
    const code = newCode("RO");
    const value = field === "id" || field === "used" ? 0 : "";
    const err = await expectInvalid(post({ code, type: "fixed", amount: 5, [field]: value }), field);
    expect(err.data.params![field]).toBe("is read-only");
    expect(await rowsWithCode(code)).toHaveLength(0);
  });

  it("ignores _links in a create body", async () => {
    const coupon = await createCoupon({ _links: { self: [{ href: "http://elsewhere.test/" }] } });
    expect(coupon._links.self[0].href).toBe(`${BASE}${couponPath(coupon.id)}`);
  });

  it("refuses a code taken case-insensitively with 409 rest_conflict", async () => {
    const code = newCode("Summer");
    await expectJson(post({ code, type: "fixed", amount: 5 }), 201);
    for (const variant of [code.toUpperCase(), code.toLowerCase(), `  ${code}  `]) {
      const err = await expectError(post({ code: variant, type: "percent", amount: 10 }), 409, "rest_conflict");
      expect(err.message).toContain(variant.trim());
    }
    expect(await rowsWithCode(code)).toHaveLength(1);
  });

  it("keeps codes unique per owner only: another owner's code is simply created; all administrators are one owner (decisions.md 15)", async () => {
    const e1 = await eventWithTypes();
    const e2 = await eventWithTypes();
    const ann = await createUser("organizer", { authorised_events: [e1] });
    const bob = await createUser("organizer", { authorised_events: [e2] });
    const code = newCode("Shared");
    const anns = await createCoupon({ code, events: String(e1) }, ann.credentials);
    const bobs = await createCoupon({ code: code.toUpperCase(), events: String(e2) }, bob.credentials);
    const admins = await createCoupon({ code });
    expect(bobs.code).toBe(code.toUpperCase());
    expect(await rowsWithCode(code)).toHaveLength(3);
    // Within one owner a code is still taken, whatever its case; every administrator is the same owner.
    await expectError(post({ code: code.toLowerCase(), type: "fixed", amount: 1, events: String(e1) }, ann.credentials), 409, "rest_conflict");
    const admin2 = await createUser("administrator");
    await expectError(post({ code: code.toLowerCase(), type: "fixed", amount: 1 }, admin2.credentials), 409, "rest_conflict");
    // Renames alike: to another owner's code is simply a rename; to a code of the same owner a 409.
    const annOnly = await createCoupon({ code: newCode("AnnOnly"), events: String(e1) }, ann.credentials);
    const bobOther = await createCoupon({ events: String(e2) }, bob.credentials);
    expect((await expectJson(put(bobOther.id, { code: annOnly.code.toLowerCase() }, bob.credentials), 200)).code).toBe(annOnly.code.toLowerCase());
    await expectError(put(bobOther.id, { code }, bob.credentials), 409, "rest_conflict");
    for (const c of [anns, bobs, admins, annOnly]) expect(await getCoupon(c.id)).toEqual(c);
  });

  it("refuses a body that is not JSON", async () => {
    await expectError(call("POST", listPath, { body: "{", headers: { "Content-Type": "application/json" } }), 400, "rest_invalid_json");
    await expectError(call("POST", listPath, { body: "code=x", headers: { "Content-Type": "text/plain" } }), 415, "rest_unsupported_media_type");
  });
});

describe("GET /admin/coupons", () => {
  /** `n` coupons whose emails hold `tag`, created in order. */
  async function tagged(tag: string, n: number): Promise<Json[]> {
    const made: Json[] = [];
    for (let i = 0; i < n; i++) made.push(await createCoupon({ email: `buyer${i}.${tag}@example.com` }));
    return made;
  }

  it("pages with per_page, page and offset, with X-WP-Total, X-WP-TotalPages and Link", async () => {
    const tag = unique("pg");
    const all = ids(await tagged(tag, 5));
    const q = `search=${tag}&per_page=2`;

    const p1 = await call("GET", `${listPath}?${q}`);
    expect(ids(await expectJson<Json[]>(p1, 200))).toEqual(all.slice(0, 2));
    expect(p1.headers.get("X-WP-Total")).toBe("5");
    expect(p1.headers.get("X-WP-TotalPages")).toBe("3");
    expect(p1.headers.get("Link")).toBe(`<${BASE}${listPath}?${q}&page=2>; rel="next"`);

    const p2 = await call("GET", `${listPath}?${q}&page=2`);
    expect(ids(await expectJson<Json[]>(p2, 200))).toEqual(all.slice(2, 4));
    expect(p2.headers.get("Link")).toBe(`<${BASE}${listPath}?${q}&page=1>; rel="prev", <${BASE}${listPath}?${q}&page=3>; rel="next"`);

    const p3 = await call("GET", `${listPath}?${q}&page=3`);
    expect(ids(await expectJson<Json[]>(p3, 200))).toEqual(all.slice(4));
    expect(p3.headers.get("Link")).toBe(`<${BASE}${listPath}?${q}&page=2>; rel="prev"`);

    const past = await call("GET", `${listPath}?${q}&page=9`);
    expect(await expectJson(past, 200)).toEqual([]);
    expect(past.headers.get("X-WP-Total")).toBe("5");
    expect(past.headers.get("X-WP-TotalPages")).toBe("3");
    expect(past.headers.get("Link")).toBe(`<${BASE}${listPath}?${q}&page=3>; rel="prev"`);

    const off = await call("GET", `${listPath}?${q}&offset=1`);
    expect(ids(await expectJson<Json[]>(off, 200))).toEqual(all.slice(1, 3));
    expect(off.headers.get("Link")).toBe(`<${BASE}${listPath}?${q}&offset=0>; rel="prev", <${BASE}${listPath}?${q}&offset=3>; rel="next"`);

    const none = await call("GET", `${listPath}?search=${unique("nobody")}`);
    expect(await expectJson(none, 200)).toEqual([]);
    expect(none.headers.get("X-WP-Total")).toBe("0");
    expect(none.headers.get("X-WP-TotalPages")).toBe("0");
    expect(none.headers.get("Link")).toBeNull();
  });

  it("defaults per_page to 10 and takes up to 100", async () => {
    const tag = unique("ten");
    await tagged(tag, 11);
    const res = await call("GET", `${listPath}?search=${tag}`);
    expect(await expectJson<Json[]>(res, 200)).toHaveLength(10);
    expect(res.headers.get("X-WP-Total")).toBe("11");
    expect(res.headers.get("X-WP-TotalPages")).toBe("2");
    expect(await list(`search=${tag}&per_page=100`)).toHaveLength(11);
  });

  it.each(["per_page=0", "per_page=101", "per_page=x", "page=0", "offset=-1", "orderby=amount", "orderby=date_created", "order=up", "include=a", "exclude=1;2"])(
    "refuses %s with 400 naming the parameter",
    async (param) => {
      const err = await expectError(call("GET", `${listPath}?${param}`), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual([param.split("=")[0]]);
    },
  );

  it("searches email only, as a case-insensitive substring without pattern syntax", async () => {
    const tag = unique("srch");
    const a = await createCoupon({ email: `Ann.${tag}@Example.com` });
    const b = await createCoupon({ email: `bob.${tag}@example.org` });
    await createCoupon({ code: `${tag}code`, email: "" }); // the code is not searched
    const q = (search: string) => list(`search=${encodeURIComponent(search)}`);
    expect(ids(await q(tag.toUpperCase()))).toEqual([a.id, b.id]);
    expect(ids(await q(`ANN.${tag}`))).toEqual([a.id]);
    expect(ids(await q(`${tag}@EXAMPLE.ORG`))).toEqual([b.id]);
    for (const wildcard of [`${tag}%`, `${tag}_`, `${tag}*`]) expect(await q(wildcard)).toEqual([]);
  });

  it("combines include and exclude", async () => {
    const [a, b, c] = [await createCoupon(), await createCoupon(), await createCoupon()];
    expect(ids(await list(`include=${c.id},${a.id}`))).toEqual([a.id, c.id]);
    expect(ids(await list(`include=${a.id},${b.id},${c.id}&exclude=${b.id}`))).toEqual([a.id, c.id]);
    expect(ids(await list(`include=${a.id}&exclude=${a.id}`))).toEqual([]);
    const tag = unique("ex");
    const [d, e] = await tagged(tag, 2);
    expect(ids(await list(`search=${tag}&exclude=${d!.id}`))).toEqual([e!.id]);
  });

  it("orders by id, code (case-insensitively) and email, ascending by default or descending", async () => {
    const tag = unique("ord");
    const c1 = await createCoupon({ code: `${tag}b`, email: `carol.${tag}@example.com` });
    const c2 = await createCoupon({ code: `${tag}C`, email: `Alice.${tag}@example.com` });
    const c3 = await createCoupon({ code: `${tag}A`, email: `bob.${tag}@example.com` });
    const get = async (q: string) => ids(await list(`search=${tag}&${q}`));
    expect(await get("")).toEqual([c1.id, c2.id, c3.id]);
    expect(await get("orderby=id&order=desc")).toEqual([c3.id, c2.id, c1.id]);
    expect(await get("orderby=code")).toEqual([c3.id, c1.id, c2.id]);
    expect(await get("orderby=code&order=desc")).toEqual([c2.id, c1.id, c3.id]);
    expect(await get("orderby=email")).toEqual([c2.id, c3.id, c1.id]);
    expect(await get("orderby=email&order=desc")).toEqual([c1.id, c3.id, c2.id]);
  });

  it("answers full coupons, and keeps only the fields named in _fields", async () => {
    const coupon = await createCoupon({ description: "Listed" });
    expect(await list(`include=${coupon.id}`)).toStrictEqual([coupon]);
    expect(await list(`include=${coupon.id}&_fields=id,code,amount,nothing`)).toStrictEqual([{ id: coupon.id, code: coupon.code, amount: 5 }]);
    expect(await list(`include=${coupon.id}&_fields=id,_links`)).toStrictEqual([{ id: coupon.id, _links: coupon._links }]);
  });
});

describe("GET /admin/coupons/<coupon_id>", () => {
  it("answers the coupon, with _fields", async () => {
    const coupon = await createCoupon({ email: "one@example.com" });
    expect(await getCoupon(coupon.id)).toStrictEqual(coupon);
    expect(await expectJson(call("GET", `${couponPath(coupon.id)}?_fields=code,email,used`), 200)).toStrictEqual({
      code: coupon.code,
      email: "one@example.com",
      used: 0,
    });
  });

  it.each(["999999999", "0", "-1", "abc", "1.5", "1e3"])("answers 404 rest_coupon_invalid_id for %s", async (id) => {
    await expectError(call("GET", couponPath(id)), 404, "rest_coupon_invalid_id");
    await expectError(call("PUT", couponPath(id), { body: { description: "x" } }), 404, "rest_coupon_invalid_id");
    await expectError(call("DELETE", couponPath(id)), 404, "rest_coupon_invalid_id");
    await expectError(call("GET", `${couponPath(id)}/reset-counters`), 404, "rest_coupon_invalid_id");
  });
});

describe("PUT /admin/coupons/<coupon_id>", () => {
  it("changes only the fields sent (the spec's example sends end_date) and moves date_modified", async () => {
    const coupon = await createCoupon({ description: "Keep", start_date: "2030-01-01 00:00:00" });
    await db.update(coupons).set({ createdAt: 1_700_000_000, modifiedAt: 1_700_000_000 }).where(eq(coupons.id, coupon.id));
    const before = await getCoupon(coupon.id);
    const updated = await expectJson(put(coupon.id, { end_date: "2030-06-30 18:00:00" }), 200);
    expect(updated).toEqual({ ...before, end_date: "2030-06-30 18:00:00", date_modified: updated.date_modified });
    expect(updated.date_modified).not.toBe(before.date_modified);
    expect(updated.date_created).toBe(wallClockAt(1_700_000_000_000));
    expect(await getCoupon(coupon.id)).toEqual(updated);
  });

  it("takes back what was read, read-only fields and _links included, changing nothing", async () => {
    const eventId = await eventWithTypes("Regular");
    const coupon = await createCoupon({ events: String(eventId), tickets: "Regular", email: "x@example.com", amount: "7.25", start_date: "2030-03-01 09:30:00" });
    await db
      .update(coupons)
      .set({ used: 3, lastUsed: utc(2029, 1, 2, 3, 4, 5), modifiedAt: 1_700_000_000 })
      .where(eq(coupons.id, coupon.id));
    const read = await getCoupon(coupon.id);
    expect(await expectJson(put(coupon.id, read), 200)).toEqual(read);
    expect(await getCoupon(coupon.id)).toEqual(read);
  });

  it("sends back an empty body unchanged", async () => {
    const coupon = await createCoupon();
    await db.update(coupons).set({ modifiedAt: 1_700_000_000 }).where(eq(coupons.id, coupon.id));
    const read = await getCoupon(coupon.id);
    expect(await expectJson(put(coupon.id, {}), 200)).toEqual(read);
  });

  it("changes every changeable field and clears optional ones with empty values", async () => {
    const e1 = await eventWithTypes("Regular");
    const coupon = await createCoupon({
      start_date: "2030-01-01 00:00:00",
      end_date: "2030-02-01 00:00:00",
      email: "someone@example.com",
      events: String(e1),
      tickets: "Regular",
    });
    const code = newCode("Renamed");
    const updated = await expectJson(
      put(coupon.id, {
        code,
        description: "New",
        type: "percent",
        individual_use: true,
        amount: 50,
        usage_limit: 3,
        usage_limit_per_user: 1,
        start_date: "",
        end_date: "",
        events: "",
        tickets: "",
        minimum_tickets: 1,
        maximum_tickets: 2,
        minimum_amount: "1.5",
        maximum_amount: 2,
        email: "",
      }),
      200,
    );
    expect(withoutLinks(updated)).toMatchObject({
      code,
      description: "New",
      type: "percent",
      individual_use: true,
      amount: 50,
      usage_limit: 3,
      usage_limit_per_user: 1,
      start_date: "",
      end_date: "",
      events: "",
      tickets: "",
      minimum_tickets: 1,
      maximum_tickets: 2,
      minimum_amount: 1.5,
      maximum_amount: 2,
      email: "",
    });
    const [row] = await rowsWithCode(code);
    expect(row).toMatchObject({ startDate: null, endDate: null, emailKey: "", events: [], tickets: [] });
  });

  it("keeps the code unique case-insensitively (409), and lets a coupon change the case of its own code", async () => {
    const taken = await createCoupon({ code: newCode("Taken") });
    const coupon = await createCoupon();
    const before = await getCoupon(coupon.id);
    await expectError(put(coupon.id, { code: taken.code.toUpperCase() }), 409, "rest_conflict");
    expect(await getCoupon(coupon.id)).toEqual(before);
    const recased = await expectJson(put(coupon.id, { code: coupon.code.toUpperCase() }), 200);
    expect(recased.code).toBe(coupon.code.toUpperCase());
  });

  it.each<[string, Json, Json, string]>([
    ["amount above 100 when the type becomes percent", { type: "fixed", amount: 150 }, { type: "percent" }, "amount"],
    ["a percent amount above 100", { type: "percent", amount: 10 }, { amount: "100.5" }, "amount"],
    ["end_date before the stored start_date", { start_date: "2030-05-01 12:00:00" }, { end_date: "2030-05-01 11:59:59" }, "end_date"],
    ["start_date after the stored end_date", { end_date: "2030-05-01 12:00:00" }, { start_date: "2030-05-02 00:00:00" }, "end_date"],
    ["minimum_tickets above the stored maximum", { maximum_tickets: 3 }, { minimum_tickets: 4 }, "minimum_tickets"],
    ["minimum_amount above the stored maximum", { maximum_amount: 30 }, { minimum_amount: 30.01 }, "minimum_amount"],
    ["an empty code", {}, { code: "" }, "code"],
    ["a code with a space", {}, { code: "a b" }, "code"],
    ["an unknown type", {}, { type: "gift" }, "type"],
    ["a bad email", {}, { email: "nobody" }, "email"],
    ["an unknown event", {}, { events: "999999999" }, "events"],
    ["an unknown ticket name", {}, { tickets: "NoSuchTypeAnywhere-zz9" }, "tickets"],
    ["an unknown field", {}, { colour: "red" }, "colour"],
    ["amount with three decimals", {}, { amount: "1.005" }, "amount"],
  ])("refuses %s with 400, changing nothing", async (_label, initial, change, field) => {
    const coupon = await createCoupon(initial);
    const before = await getCoupon(coupon.id);
    await expectInvalid(put(coupon.id, change), field);
    expect(await getCoupon(coupon.id)).toEqual(before);
  });

  it("checks the stored tickets against new events", async () => {
    const e1 = await eventWithTypes("Regular");
    const e2 = await eventWithTypes("Balcony");
    const coupon = await createCoupon({ events: String(e1), tickets: "Regular" });
    const before = await getCoupon(coupon.id);
    const err = await expectInvalid(put(coupon.id, { events: String(e2) }), "tickets");
    expect(err.data.params!.tickets).toContain("Regular");
    expect(await getCoupon(coupon.id)).toEqual(before);
    expect((await expectJson(put(coupon.id, { events: `${e1},${e2}` }), 200)).events).toBe([e1, e2].sort((a, b) => a - b).join(","));
    expect((await expectJson(put(coupon.id, { events: String(e2), tickets: "Balcony" }), 200)).tickets).toBe("Balcony");
  });

  it.each<[string, unknown]>([
    ["id", 1],
    ["used", 99],
    ["last_used", "2030-01-01 00:00:00"],
    ["date_created", "2000-01-01 00:00:00"],
    ["date_modified", ""],
  ])("refuses a changed read-only %s with 400, changing nothing", async (field, value) => {
    const coupon = await createCoupon();
    const before = await getCoupon(coupon.id);
    const err = await expectInvalid(put(coupon.id, { description: "changed", [field]: value }), field);
    expect(err.data.params![field]).toBe("is read-only");
    expect(await getCoupon(coupon.id)).toEqual(before);
  });
});

describe("DELETE /admin/coupons/<coupon_id>", () => {
  it("answers deleted and the coupon as it was, without _links; the coupon is gone", async () => {
    const coupon = await createCoupon({ description: "Bye", email: "gone@example.com" });
    const res = await expectJson(call("DELETE", couponPath(coupon.id)), 200);
    expect(res).toStrictEqual({ deleted: true, previous: withoutLinks(coupon) });
    await expectError(call("GET", couponPath(coupon.id)), 404, "rest_coupon_invalid_id");
    await expectError(call("DELETE", couponPath(coupon.id)), 404, "rest_coupon_invalid_id");
    expect(await rowsWithCode(coupon.code)).toHaveLength(0);
    // The code is free again.
    await expectJson(post({ code: coupon.code, type: "fixed", amount: 1 }), 201);
  });
});

describe("GET /admin/coupons/<coupon_id>/reset-counters", () => {
  it("sets used to 0 and last_used to empty, keeping everything else", async () => {
    const coupon = await createCoupon({ usage_limit: 10, description: "Counted" });
    const lastUsed = utc(2029, 8, 15, 12, 0, 0);
    await db.update(coupons).set({ used: 7, lastUsed }).where(eq(coupons.id, coupon.id));
    const counted = await getCoupon(coupon.id);
    expect(counted).toMatchObject({ used: 7, last_used: "2029-08-15 14:00:00" }); // Amsterdam summer time
    const reset = await expectJson(call("GET", `${couponPath(coupon.id)}/reset-counters`), 200);
    expect(reset).toEqual({ ...counted, used: 0, last_used: "", date_modified: reset.date_modified });
    expect(await getCoupon(coupon.id)).toEqual(reset);
    const [row] = await rowsWithCode(coupon.code);
    expect(row).toMatchObject({ used: 0, lastUsed: null });
  });

  it("honours _fields", async () => {
    const coupon = await createCoupon();
    await db.update(coupons).set({ used: 2 }).where(eq(coupons.id, coupon.id));
    expect(await expectJson(call("GET", `${couponPath(coupon.id)}/reset-counters?_fields=id,used,last_used`), 200)).toStrictEqual({
      id: coupon.id,
      used: 0,
      last_used: "",
    });
  });
});

describe("authentication", () => {
  it("needs the API key (401 rest_forbidden_api_key) and Basic credentials (401 rest_not_logged_in)", async () => {
    const coupon = await createCoupon();
    for (const [method, path, body] of [
      ["GET", listPath, undefined],
      ["POST", listPath, { code: newCode(), type: "fixed", amount: 1 }],
      ["GET", couponPath(coupon.id), undefined],
      ["PUT", couponPath(coupon.id), { description: "x" }],
      ["DELETE", couponPath(coupon.id), undefined],
      ["GET", `${couponPath(coupon.id)}/reset-counters`, undefined],
    ] as const) {
      await expectError(call(method, path, { body, key: null }), 401, "rest_forbidden_api_key");
      await expectError(call(method, path, { body, key: "wrong-key" }), 401, "rest_forbidden_api_key");
      const res = await call(method, path, { body, auth: null });
      await expectError(res, 401, "rest_not_logged_in");
      expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
      await expectError(call(method, path, { body, auth: { username: "admin", password: "wrong" } }), 401, "incorrect_password");
    }
    expect(await getCoupon(coupon.id)).toEqual(coupon);
  });

  it("answers rest_no_route for methods the table does not list", async () => {
    const coupon = await createCoupon();
    await expectError(call("PATCH", couponPath(coupon.id), { body: {} }), 404, "rest_no_route");
    await expectError(call("POST", `${couponPath(coupon.id)}/reset-counters`), 404, "rest_no_route");
  });
});

describe("authority: organizers", () => {
  async function setup() {
    const mine = await eventWithTypes("Regular");
    const mine2 = await eventWithTypes("VIP");
    const other = await eventWithTypes("Regular");
    const organizer = await createUser("organizer", { authorised_events: [mine, mine2] });
    return { mine, mine2, other, organizer, auth: organizer.credentials };
  }

  it("creates coupons for its own events and is refused (403) foreign, mixed or empty events", async () => {
    const { mine, mine2, other, auth } = await setup();
    const own = await createCoupon({ events: `${mine},${mine2}`, tickets: "Regular,VIP" }, auth);
    expect(own.events).toBe([mine, mine2].sort((a, b) => a - b).join(","));
    for (const events of [String(other), `${mine},${other}`, "", undefined]) {
      const code = newCode("OrgBad");
      const body: Json = { code, type: "fixed", amount: 1 };
      if (events !== undefined) body.events = events;
      await expectError(post(body, auth), 403, "rest_forbidden");
      expect(await rowsWithCode(code)).toHaveLength(0);
    }
    // An event that does not exist is a 400, as for everybody.
    await expectInvalid(post({ code: newCode(), type: "fixed", amount: 1, events: "999999999" }, auth), "events");
  });

  it("lists only its own coupons whose events all lie within its authorised events, never another owner's (decisions.md 15)", async () => {
    const { mine, mine2, other, auth } = await setup();
    const a = await createCoupon({ events: String(mine) }, auth);
    const b = await createCoupon({ events: `${mine},${mine2}` }, auth);
    const c = await createCoupon({ events: `${mine},${other}` });
    const d = await createCoupon({ events: "" });
    const e = await createCoupon({ events: String(other) });
    const f = await createCoupon({ events: String(mine2) }, auth);
    // Another owner's coupons on its own events are that owner's: an administrator's, a colleague's.
    const g = await createCoupon({ events: String(mine) });
    const colleague = await createUser("organizer", { authorised_events: [mine] });
    const h = await createCoupon({ events: String(mine) }, colleague.credentials);
    const all = [a, b, c, d, e, f, g, h].map((x) => x.id).join(",");
    const res = await call("GET", `${listPath}?include=${all}`, { auth });
    expect(ids(await expectJson<Json[]>(res, 200))).toEqual([a.id, b.id, f.id]);
    expect(res.headers.get("X-WP-Total")).toBe("3");
    expect(ids(await list(`include=${all}`, colleague.credentials))).toEqual([h.id]);
    // Without a filter too, nothing outside its events shows up.
    const everything = await list("per_page=100", auth);
    for (const row of everything) {
      expect(row.events).not.toBe("");
      for (const id of String(row.events).split(",").map(Number)) expect([mine, mine2]).toContain(id);
    }
    // The administrator sees them all.
    expect(ids(await list(`include=${all}`))).toEqual([a.id, b.id, c.id, d.id, e.id, f.id, g.id, h.id]);
  });

  it("reads, changes, resets and deletes its own coupons; 403 on the others, which stay as they were", async () => {
    const { mine, other, auth } = await setup();
    const own = await createCoupon({ events: String(mine) }, auth);
    const colleague = await createUser("organizer", { authorised_events: [mine] });
    const foreign = [
      await createCoupon({ events: `${mine},${other}` }),
      await createCoupon({ events: "" }),
      await createCoupon({ events: String(other) }),
      // Another owner's, on its own event (decisions.md 15).
      await createCoupon({ events: String(mine) }),
      await createCoupon({ events: String(mine) }, colleague.credentials),
    ];
    for (const coupon of foreign) {
      const err = await expectError(call("GET", couponPath(coupon.id), { auth }), 403, "rest_forbidden");
      expect(err.message).toBe("Sorry, you are not allowed to do that.");
      await expectError(put(coupon.id, { description: "mine now" }, auth), 403, "rest_forbidden");
      await expectError(put(coupon.id, { events: String(mine) }, auth), 403, "rest_forbidden");
      await expectError(call("GET", `${couponPath(coupon.id)}/reset-counters`, { auth }), 403, "rest_forbidden");
      await expectError(call("DELETE", couponPath(coupon.id), { auth }), 403, "rest_forbidden");
      expect(await getCoupon(coupon.id)).toEqual(coupon);
    }
    expect(await getCoupon(own.id, auth)).toEqual(own);
    expect((await expectJson(put(own.id, { description: "Changed" }, auth), 200)).description).toBe("Changed");
    expect((await expectJson(call("GET", `${couponPath(own.id)}/reset-counters`, { auth }), 200)).used).toBe(0);
    await expectJson(call("DELETE", couponPath(own.id), { auth }), 200);
    await expectError(call("GET", couponPath(own.id), { auth }), 404, "rest_coupon_invalid_id");
  });

  it("may not move its coupon to foreign events or to no events (403), changing nothing", async () => {
    const { mine, mine2, other, auth } = await setup();
    const own = await createCoupon({ events: String(mine) }, auth);
    for (const events of [String(other), `${mine},${other}`, ""]) {
      await expectError(put(own.id, { events }, auth), 403, "rest_forbidden");
      expect(await getCoupon(own.id)).toEqual(own);
    }
    const moved = await expectJson(put(own.id, { events: String(mine2) }, auth), 200);
    expect(moved.events).toBe(String(mine2));
  });

  it("answers a coupon naming another organizer's event 403 before any check of its ticket names, on create and update (decisions.md 15)", async () => {
    const { mine, other, auth } = await setup();
    for (const tickets of ["Regular", "NoSuchType-zz9"]) {
      const code = newCode("Probe");
      const err = await expectError(post({ code, type: "fixed", amount: 1, events: String(other), tickets }, auth), 403, "rest_forbidden");
      expect(err.message).toBe("Sorry, you are not allowed to do that.");
      expect(await rowsWithCode(code)).toHaveLength(0);
    }
    const own = await createCoupon({ events: String(mine) }, auth);
    for (const tickets of ["Regular", "NoSuchType-zz9"]) {
      await expectError(put(own.id, { events: `${mine},${other}`, tickets }, auth), 403, "rest_forbidden");
      await expectError(put(own.id, { events: String(other), tickets }, auth), 403, "rest_forbidden");
    }
    expect(await getCoupon(own.id)).toEqual(own);
    // Within its own events the names are checked as before.
    await expectInvalid(put(own.id, { tickets: "NoSuchType-zz9" }, auth), "tickets");
    expect((await expectJson(put(own.id, { tickets: "Regular" }, auth), 200)).tickets).toBe("Regular");
  });

  it("loses sight of a coupon an administrator widens beyond its events", async () => {
    const { mine, other, auth } = await setup();
    const own = await createCoupon({ events: String(mine) }, auth);
    await expectJson(put(own.id, { events: `${mine},${other}` }), 200);
    await expectError(call("GET", couponPath(own.id), { auth }), 403, "rest_forbidden");
    expect(await list(`include=${own.id}`, auth)).toEqual([]);
  });
});
