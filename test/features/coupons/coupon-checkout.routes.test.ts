import { env, exports } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import { depsFromEnv } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { ADMIN, API_KEY, BASE, basic, call, createUser, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { emailedConfirmLink } from "../../helpers/orders";
import { wallClockAt } from "../../helpers/wall-clock";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * Coupons at checkout (decisions.md 5.2, 5.4, 5.5, 12 "Coupons" and "Volume prices are list prices", 13 "Orders"):
 * a `coupon` on customer orders (`POST /events/<id>/orders`) and dashboard orders (`POST /admin/orders`), each rule
 * with its code and text, where the coupon check sits among the order rules, the discount arithmetic, group orders,
 * how uses are held and counted (`used`, `last_used`), and the usage limit under concurrent orders.
 * Storage is shared with every other test file: every test makes its own events and coupons with unique codes.
 */

type Json = Record<string, any>;

// ---------------------------------------------------------------------------------------------------------------
// Set-up

interface Shop {
  event: Json;
  types: Json[];
  fields: Json[];
}

/** An event taking coupons (and dashboard orders) with the given types (default one "Regular" at 10.00). */
async function shop(options: { event?: Json; types?: Json[]; fields?: Json[] } = {}): Promise<Shop> {
  const event = await createEvent({ event_name: unique("Coupons "), coupons_needed: true, add_dashboard_orders_needed: true, ...options.event });
  const types: Json[] = [];
  for (const t of options.types ?? [{ name: "Regular", price: 10 }]) types.push(await createTicketType(event.id, { maximum_to_order: 0, ...t }));
  const fields: Json[] = [];
  for (const f of options.fields ?? []) fields.push(await createInputField(event.id, f));
  return { event, types, fields };
}

/** Regular 10.00 (VAT 21) and VIP 25.00 (VAT 9). */
const TWO_TYPES = [
  { name: "Regular", price: 10, vat: 21 },
  { name: "VIP", price: 25, vat: 9 },
];

const lines = (s: Shop, counts: number[]) => s.types.map((t, i) => ({ [t.id]: counts[i] ?? 0 }));

function customerBody(s: Shop, counts: number[] = [1], extra: Json = {}): Json {
  return { name: "Ann Smith", email: "ann@example.com", tickets: lines(s, counts), ...extra };
}

function dashboardBody(s: Shop, counts: number[] = [1], extra: Json = {}): Json {
  return { event_id: s.event.id, name: "Ann Smith", email: "ann@example.com", tickets: lines(s, counts), ...extra };
}

const postCustomer = (eventId: number, body: unknown) => call("POST", `/events/${eventId}/orders`, { body, auth: null });
const postDashboard = (body: unknown) => call("POST", "/admin/orders", { body });

const order = (s: Shop, counts: number[] = [1], extra: Json = {}) => expectJson(postCustomer(s.event.id, customerBody(s, counts, extra)), 201);
const dashboard = (s: Shop, counts: number[] = [1], extra: Json = {}) => expectJson(postDashboard(dashboardBody(s, counts, extra)), 201);

async function createCoupon(extra: Json = {}): Promise<Json> {
  return expectJson(call("POST", "/admin/coupons", { body: { code: unique("Chk"), type: "percent", amount: 10, ...extra } }), 201);
}

const getCoupon = (id: number): Promise<Json> => expectJson(call("GET", `/admin/coupons/${id}`), 200);
const putCoupon = (id: number, body: Json): Promise<Json> => expectJson(call("PUT", `/admin/coupons/${id}`, { body }), 200);

async function usedOf(c: Json): Promise<{ used: number; last_used: string }> {
  const { used, last_used } = await getCoupon(c.id);
  return { used, last_used };
}

async function ordersOf(eventId: number) {
  return db.select().from(orders).where(eq(orders.eventId, eventId)).orderBy(asc(orders.id));
}

const orderRow = (id: number) => db.select().from(orders).where(eq(orders.id, id)).get();
const ticketsOf = (orderId: number) => db.select().from(tickets).where(eq(tickets.orderId, orderId));

/** A browser-like call of an absolute URL (the checkout page, the confirmation link). */
function open(url: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(url, { redirect: "manual", ...init }));
}

async function decide(checkoutUrl: string, action: "pay" | "cancel") {
  const res = await open(checkoutUrl, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` });
  expect(res.status).toBe(303);
}

const reservations = async (eventId: number) => (await eventObject(env, eventId).snapshot()).reservations;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until the order's reservation in the event object is taken (confirms go out after the answer). */
async function taken(eventId: number, uid: string) {
  for (let i = 0; i < 100; i++) {
    if ((await reservations(eventId)).find((r) => r.uid === uid)?.state === "taken") return;
    await sleep(30);
  }
}

/** The open order's payment deadline passes and the expiry runs (as the object's alarm would have it). */
async function expire(o: Json, eventId: number) {
  await taken(eventId, o.uid);
  await db
    .update(orders)
    .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
    .where(eq(orders.id, o.id));
  await expireOrder(depsFromEnv(env), o.uid, eventId);
  expect((await orderRow(o.id))!.paymentStatus).toBe("expired");
}

/**
 * A refusal with exactly this code, status and message, after which the events have no more orders and their
 * objects hold what they held before.
 */
async function expectRefused(res: Promise<Response>, status: number, code: string, message: string, eventIds: number[]) {
  // Reservations by uid only: earlier orders' holds turn into takes after their answers, whatever this one does.
  const snapshot = () =>
    Promise.all(eventIds.map(async (id) => ({ orders: (await ordersOf(id)).length, reservations: (await reservations(id)).map((r) => r.uid).sort() })));
  const before = await snapshot();
  const err = await expectError(res, status, code);
  expect(err.message).toBe(message);
  expect(await snapshot(), "a refused order writes and holds nothing").toEqual(before);
  return err;
}

const refusedCustomer = (s: Shop, body: Json, code: string, message: string, status = 400) =>
  expectRefused(postCustomer(s.event.id, body), status, code, message, [s.event.id]);
const refusedDashboard = (s: Shop, body: Json, code: string, message: string, status = 400) => expectRefused(postDashboard(body), status, code, message, [s.event.id]);

/** `last_used` was set between `beforeMs` and `afterMs` (second resolution, service zone). */
function expectStampedBetween(lastUsed: string, beforeMs: number, afterMs: number) {
  const candidates: string[] = [];
  for (let t = Math.floor(beforeMs / 1000) - 1; t <= Math.floor(afterMs / 1000) + 1; t++) candidates.push(wallClockAt(t * 1000));
  expect(candidates).toContain(lastUsed);
}

const USAGE = "The maximum number of times the discount code can be used has been reached";

// ---------------------------------------------------------------------------------------------------------------

describe("finding the coupon", () => {
  it("on an event without coupons_needed any code is coupon_not_found, an existing one too (customer and dashboard)", async () => {
    const s = await shop({ event: { coupons_needed: false } });
    const c = await createCoupon();
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code }), "coupon_not_found", `Coupon code ${c.code} not found`);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code }), "coupon_not_found", `Coupon code ${c.code} not found`);
    const unknown = unique("Nope");
    await refusedCustomer(s, customerBody(s, [1], { coupon: unknown }), "coupon_not_found", `Coupon code ${unknown} not found`);
    expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
  });

  it("an unknown code is coupon_not_found naming the code as sent", async () => {
    const s = await shop();
    const code = unique("Missing");
    await refusedCustomer(s, customerBody(s, [1], { coupon: code }), "coupon_not_found", `Coupon code ${code} not found`);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: code }), "coupon_not_found", `Coupon code ${code} not found`);
  });

  it("codes match case-insensitively (and sent with spaces around)", async () => {
    const s = await shop();
    const c = await createCoupon({ code: unique("MiXeD"), type: "fixed", amount: 1 });
    const lower = await order(s, [1], { coupon: c.code.toLowerCase() });
    expect(lower).toMatchObject({ total: 9, discount: 1 });
    const upper = await dashboard(s, [1], { coupon: `  ${c.code.toUpperCase()} ` });
    expect(upper).toMatchObject({ total: 9, discount: 1 });
  });

  it("an order without a coupon (or an empty one from a shop front) is not discounted", async () => {
    const s = await shop();
    expect(await order(s, [2])).toMatchObject({ total: 20, discount: 0 });
    expect(await order(s, [2], { coupon: "" })).toMatchObject({ total: 20, discount: 0 });
  });
});

describe("codes of several owners (decisions.md 15)", () => {
  /** A coupon made by `owner` (an organizer authorised for the events it names). */
  async function couponOf(owner: { credentials: { username: string; password: string } }, body: Json): Promise<Json> {
    return expectJson(call("POST", "/admin/coupons", { body: { type: "fixed", amount: 1, ...body }, auth: owner.credentials }), 201);
  }

  it("the same code of two owners: the coupon covering the order's event applies; one covering none is coupon_not_found", async () => {
    const a = await shop();
    const b = await shop();
    const c = await shop();
    const ann = await createUser("organizer", { authorised_events: [a.event.id] });
    const bob = await createUser("organizer", { authorised_events: [b.event.id] });
    const code = unique("Twin");
    const anns = await couponOf(ann, { code, amount: 1, events: String(a.event.id) });
    const bobs = await couponOf(bob, { code: code.toLowerCase(), amount: 2, events: String(b.event.id) });

    const onA = await order(a, [1], { coupon: code });
    expect(onA).toMatchObject({ total: 9, discount: 1 });
    expect((await orderRow(onA.id))!.couponId).toBe(anns.id);
    const onB = await dashboard(b, [1], { coupon: code.toUpperCase() });
    expect(onB).toMatchObject({ total: 8, discount: 2 });
    expect((await orderRow(onB.id))!.couponId).toBe(bobs.id);
    await refusedCustomer(c, customerBody(c, [1], { coupon: code }), "coupon_not_found", `Coupon code ${code} not found`);
    await refusedDashboard(c, dashboardBody(c, [1], { coupon: code }), "coupon_not_found", `Coupon code ${code} not found`);
    // Each use went to the coupon that applied.
    expect(await usedOf(anns)).toMatchObject({ used: 0 });
    expect(await usedOf(bobs)).toMatchObject({ used: 1 });
  });

  it("the administrators' code without events covers every event; an organizer's coupon naming the event goes first", async () => {
    const a = await shop();
    const b = await shop();
    const ann = await createUser("organizer", { authorised_events: [a.event.id] });
    const code = unique("Everywhere");
    const global = await createCoupon({ code, type: "fixed", amount: 3 });
    const anns = await couponOf(ann, { code, amount: 1, events: String(a.event.id) });
    const onA = await dashboard(a, [1], { coupon: code });
    expect(onA).toMatchObject({ total: 9, discount: 1 });
    expect((await orderRow(onA.id))!.couponId).toBe(anns.id);
    const onB = await dashboard(b, [1], { coupon: code });
    expect(onB).toMatchObject({ total: 7, discount: 3 });
    expect((await orderRow(onB.id))!.couponId).toBe(global.id);
  });

  it("an organizer's coupon without events (an administrator emptied them) covers only the events its owner may manage", async () => {
    const a = await shop();
    const c = await shop();
    const ann = await createUser("organizer", { authorised_events: [a.event.id] });
    const anns = await couponOf(ann, { code: unique("Emptied"), amount: 1, events: String(a.event.id) });
    expect((await putCoupon(anns.id, { events: "" })).events).toBe("");
    expect(await dashboard(a, [1], { coupon: anns.code })).toMatchObject({ total: 9, discount: 1 });
    await refusedCustomer(c, customerBody(c, [1], { coupon: anns.code }), "coupon_not_found", `Coupon code ${anns.code} not found`);
  });
});

describe("each coupon rule with its code and text", () => {
  it("not active yet: coupon_not_active", async () => {
    const s = await shop();
    const c = await createCoupon({ start_date: "2099-01-01 00:00:00" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code }), "coupon_not_active", "The discount code is not yet active");
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code }), "coupon_not_active", "The discount code is not yet active");
  });

  it("expired: coupon_expired", async () => {
    const s = await shop();
    const c = await createCoupon({ end_date: "2001-01-01 00:00:00" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code }), "coupon_expired", "The discount code has expired");
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code }), "coupon_expired", "The discount code has expired");
  });

  it("inside its window the coupon applies", async () => {
    const s = await shop();
    const c = await createCoupon({ start_date: "2001-01-01 00:00:00", end_date: "2099-12-31 23:59:59" });
    expect(await order(s, [1], { coupon: c.code })).toMatchObject({ total: 9, discount: 1 });
  });

  it("usage limit reached: coupon_usage_limit", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 1 });
    await dashboard(s, [1], { coupon: c.code });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "other@example.com" }), "coupon_usage_limit", USAGE);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code, email: "other@example.com" }), "coupon_usage_limit", USAGE);
    expect((await usedOf(c)).used).toBe(1);
  });

  it("tied to an email: coupon_wrong_email for another address; the tied address in any case is accepted", async () => {
    const s = await shop();
    const c = await createCoupon({ email: "Tied.Person@Example.com" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code }), "coupon_wrong_email", "This discount code is linked to another email address");
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code }), "coupon_wrong_email", "This discount code is linked to another email address");
    expect(await order(s, [1], { coupon: c.code, email: "tied.person@EXAMPLE.com" })).toMatchObject({ total: 9, discount: 1 });
  });

  it("linked only to other events: answered like an unknown code, whatever else is wrong with it; linked to this one it applies", async () => {
    const s = await shop();
    const other = await shop();
    const elsewhere = await createCoupon({ events: String(other.event.id) });
    await refusedCustomer(s, customerBody(s, [1], { coupon: elsewhere.code }), "coupon_not_found", `Coupon code ${elsewhere.code} not found`);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: elsewhere.code }), "coupon_not_found", `Coupon code ${elsewhere.code} not found`);
    // Expired, used up and tied to an address: another organizer's code still cannot be told from an unknown one.
    const spent = await createCoupon({ events: String(other.event.id), end_date: "2001-01-01 00:00:00", email: "someone@example.com" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: spent.code }), "coupon_not_found", `Coupon code ${spent.code} not found`);
    const here = await createCoupon({ events: `${other.event.id},${s.event.id}` });
    expect(await order(s, [1], { coupon: here.code })).toMatchObject({ total: 9, discount: 1 });
  });

  it("minimum tickets: over all types (no types in the text), or over the coupon's types (named in the text)", async () => {
    const s = await shop({ types: TWO_TYPES });
    const all = await createCoupon({ minimum_tickets: 3 });
    await refusedCustomer(s, customerBody(s, [1, 1], { coupon: all.code }), "coupon_min_tickets", "This discount code requires a minimum of 3 tickets");
    expect(await order(s, [2, 1], { coupon: all.code })).toMatchObject({ num_tickets: 3, total: 40.5, discount: 4.5 });

    const typed = await createCoupon({ events: String(s.event.id), tickets: "VIP,Regular", minimum_tickets: 3 });
    await refusedDashboard(s, dashboardBody(s, [1, 1], { coupon: typed.code }), "coupon_min_tickets", "This discount code requires a minimum of 3 tickets VIP, Regular");
    const vip = await createCoupon({ events: String(s.event.id), tickets: "VIP", minimum_tickets: 2 });
    // 5 tickets in all, but only 1 VIP.
    await refusedCustomer(s, customerBody(s, [4, 1], { coupon: vip.code }), "coupon_min_tickets", "This discount code requires a minimum of 2 tickets VIP");
    expect(await order(s, [0, 2], { coupon: vip.code })).toMatchObject({ total: 45, discount: 5 });
  });

  it("maximum tickets: over all types, or over the coupon's types", async () => {
    const s = await shop({ types: TWO_TYPES });
    const all = await createCoupon({ maximum_tickets: 2 });
    await refusedCustomer(s, customerBody(s, [2, 1], { coupon: all.code }), "coupon_max_tickets", "This discount code allows a maximum of 2 tickets");
    expect(await order(s, [1, 1], { coupon: all.code })).toMatchObject({ total: 31.5, discount: 3.5 });

    const regular = await createCoupon({ events: String(s.event.id), tickets: "Regular", maximum_tickets: 2 });
    await refusedDashboard(s, dashboardBody(s, [3, 0], { coupon: regular.code }), "coupon_max_tickets", "This discount code allows a maximum of 2 tickets Regular");
    // Many VIP tickets do not count against a Regular-only maximum.
    expect(await order(s, [2, 5], { coupon: regular.code })).toMatchObject({ num_tickets: 7, total: 143, discount: 2 });
  });

  it("minimum amount: over all types, or over the coupon's types, x with two decimals", async () => {
    const s = await shop({ types: TWO_TYPES });
    const all = await createCoupon({ type: "fixed", amount: 1, minimum_amount: 45 });
    await refusedCustomer(s, customerBody(s, [1, 1], { coupon: all.code }), "coupon_min_amount", "A minimum amount of 45.00 is required for this discount code");
    expect(await order(s, [2, 1], { coupon: all.code })).toMatchObject({ total: 44, discount: 1 });

    const vip = await createCoupon({ events: String(s.event.id), tickets: "VIP", type: "fixed", amount: 1, minimum_amount: "50.5" });
    // 10 Regular (100.00) do not help a VIP-only minimum.
    await refusedDashboard(s, dashboardBody(s, [10, 2], { coupon: vip.code }), "coupon_min_amount", "A minimum amount of 50.50 VIP is required for this discount code");
    expect(await order(s, [0, 3], { coupon: vip.code })).toMatchObject({ total: 74, discount: 1 });
  });

  it("maximum amount: over all types, or over the coupon's types", async () => {
    const s = await shop({ types: TWO_TYPES });
    const all = await createCoupon({ type: "fixed", amount: 1, maximum_amount: "34.99" });
    await refusedCustomer(s, customerBody(s, [1, 1], { coupon: all.code }), "coupon_max_amount", "A maximum amount of 34.99 is allowed for this discount code");
    expect(await order(s, [0, 1], { coupon: all.code })).toMatchObject({ total: 24, discount: 1 });

    const both = await createCoupon({ events: String(s.event.id), tickets: "Regular,VIP", type: "fixed", amount: 1, maximum_amount: 30 });
    await refusedDashboard(
      s,
      dashboardBody(s, [1, 1], { coupon: both.code }),
      "coupon_max_amount",
      "A maximum amount of 30.00 Regular, VIP is allowed for this discount code",
    );
    const regular = await createCoupon({ events: String(s.event.id), tickets: "Regular", type: "fixed", amount: 1, maximum_amount: 20 });
    expect(await order(s, [2, 4], { coupon: regular.code })).toMatchObject({ total: 119, discount: 1 });
  });

  it("volume prices are list prices: counts and amounts use the volume price, and they are no discount", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, volume_price: [{ "5": 8 }] }] });
    // 5 at 8.00 = 40.00: below a 45.00 minimum, though 5 x 10.00 would be 50.00.
    const min = await createCoupon({ minimum_amount: 45 });
    await refusedCustomer(s, customerBody(s, [5], { coupon: min.code }), "coupon_min_amount", "A minimum amount of 45.00 is required for this discount code");
    // 6 at 8.00 = 48.00 within a 48.00 maximum.
    const max = await createCoupon({ type: "percent", amount: 25, maximum_amount: 48 });
    const o = await order(s, [6], { coupon: max.code });
    expect(o.input_fields.tickets[0]).toMatchObject({ price: 8, number: 6 });
    // 25% of the list total 48.00: 12.00; the volume saving (12.00) is not part of the discount.
    expect(o).toMatchObject({ total: 36, discount: 12 });
    expect(await order(s, [6])).toMatchObject({ total: 48, discount: 0 });
  });
});

describe("the order of the checks", () => {
  it("coupon rules: not active, expired, usage limit, email, event, min tickets, max tickets, min amount, max amount", async () => {
    const s = await shop();
    const other = await shop();
    const c = await createCoupon({ usage_limit: 1, usage_limit_per_user: 1 });
    await dashboard(s, [1], { coupon: c.code });
    // Everything broken at once, then mended one by one: each answer is the first rule still broken.
    await putCoupon(c.id, { start_date: "2099-01-01 00:00:00", email: "someone@example.com", events: String(other.event.id), minimum_tickets: 5, minimum_amount: 100 });
    const steps: [string, string, Json][] = [
      // Linked to none of the order's events, it is answered like an unknown code before anything else (decisions.md 14).
      ["coupon_not_found", `Coupon code ${c.code} not found`, { events: `${other.event.id},${s.event.id}` }],
      ["coupon_not_active", "The discount code is not yet active", { start_date: "", end_date: "2001-01-01 00:00:00" }],
      ["coupon_expired", "The discount code has expired", { end_date: "" }],
      ["coupon_usage_limit", USAGE, { usage_limit: 0 }],
      ["coupon_usage_limit", USAGE, { usage_limit_per_user: 0 }],
      ["coupon_wrong_email", "This discount code is linked to another email address", { email: "" }],
      ["coupon_min_tickets", "This discount code requires a minimum of 5 tickets", { minimum_tickets: 0, maximum_tickets: 1 }],
      ["coupon_max_tickets", "This discount code allows a maximum of 1 tickets", { maximum_tickets: 0 }],
      ["coupon_min_amount", "A minimum amount of 100.00 is required for this discount code", { minimum_amount: 0, maximum_amount: 15 }],
      ["coupon_max_amount", "A maximum amount of 15.00 is allowed for this discount code", { maximum_amount: 0 }],
    ];
    for (const [code, message, mend] of steps) {
      await refusedCustomer(s, customerBody(s, [2], { coupon: c.code }), code, message);
      await putCoupon(c.id, mend);
    }
    expect(await order(s, [2], { coupon: c.code })).toMatchObject({ total: 18, discount: 2 });
  });

  it("ticket lines and input fields come before the coupon", async () => {
    const s = await shop({
      types: [{ name: "Adult", price: 10, minimum_to_order: 2, maximum_to_order: 4 }],
      fields: [
        { name: "Company", is_required: true },
        { name: "Size", type: "select", value: "S,M" },
      ],
    });
    const [company, size] = s.fields as [Json, Json];
    const bad = unique("Bad");
    const body = (counts: number[], extra: Json = {}) => customerBody(s, counts, { coupon: bad, ...extra });
    await refusedCustomer(s, body([0]), "order_no_tickets", "No tickets ordered");
    await refusedCustomer(s, body([1]), "order_wrong_amount", "Wrong amount for this ticket type: Adult");
    await refusedCustomer(s, body([2]), "order_required_fields", "Required extra input fields not available");
    await refusedCustomer(s, body([2], { fields: { [company.id]: "ACME", [size.id]: "XL" } }), "order_illegal_field_value", "Illegal value extra input field");
    await refusedCustomer(s, body([2], { fields: { [company.id]: "ACME" } }), "coupon_not_found", `Coupon code ${bad} not found`);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: bad, fields: { [company.id]: "ACME" } }), "order_wrong_amount", "Wrong amount for this ticket type: Adult");
  });

  it("unique users come before the coupon", async () => {
    const s = await shop({ event: { unique_users_needed: true } });
    const expired = await createCoupon({ end_date: "2001-01-01 00:00:00" });
    await order(s, [1]);
    await refusedCustomer(s, customerBody(s, [1], { coupon: expired.code }), "order_already_ordered", "You already have a booking/order");
    await refusedCustomer(s, customerBody(s, [1], { coupon: expired.code, email: "new@example.com" }), "coupon_expired", "The discount code has expired");
  });

  it("user groups (the email list) come before the coupon", async () => {
    const s = await shop({ event: { user_groups_needed: true, user_groups: { group_type: 1 } } });
    const form = new FormData();
    form.append("file", new File(["Bob,bob@example.com,0\n"], "list.csv", { type: "text/csv" }));
    const uploaded = await exports.default.fetch(
      new Request(`${BASE}/admin/emaillists/${s.event.id}`, { method: "POST", headers: { Authorization: basic(ADMIN), "X-EVT-API-KEY": API_KEY }, body: form }),
    );
    expect(uploaded.status).toBe(201);
    const expired = await createCoupon({ end_date: "2001-01-01 00:00:00" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: expired.code }), "order_not_allowed", "You are not allowed to book/order");
    await refusedCustomer(s, customerBody(s, [1], { coupon: expired.code, email: "bob@example.com" }), "coupon_expired", "The discount code has expired");
    expect(await order(s, [1], { email: "bob@example.com" })).toMatchObject({ payment_status: "open" });
  });

  it("stock comes after the coupon: sold out with a bad coupon is the coupon error, with a good one the stock error", async () => {
    const s = await shop({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 1 }] });
    const good = await createCoupon({ usage_limit: 10 });
    const expired = await createCoupon({ end_date: "2001-01-01 00:00:00" });
    await refusedCustomer(s, customerBody(s, [2], { coupon: expired.code }), "coupon_expired", "The discount code has expired");
    await refusedDashboard(s, dashboardBody(s, [2], { coupon: expired.code }), "coupon_expired", "The discount code has expired");
    const unknown = unique("None");
    await refusedCustomer(s, customerBody(s, [2], { coupon: unknown }), "coupon_not_found", `Coupon code ${unknown} not found`);
    await refusedCustomer(s, customerBody(s, [2], { coupon: good.code }), "order_stock_unavailable", "Not enough stock available for ticket-type: Limited (1)", 409);
    await refusedDashboard(s, dashboardBody(s, [2], { coupon: good.code }), "order_stock_unavailable", "Not enough stock available for ticket-type: Limited (1)", 409);
    // A refusal for stock takes no use of the coupon.
    expect(await usedOf(good)).toEqual({ used: 0, last_used: "" });
    expect(await order(s, [1], { coupon: good.code })).toMatchObject({ total: 9 });
  });
});

describe("the discount arithmetic", () => {
  it("percent of the whole order, rounded half up: 12.5% of 10.00 is 1.25, of 10.20 is 1.28 (1.275 up)", async () => {
    const s = await shop({
      types: [
        { name: "A", price: 10 },
        { name: "B", price: "10.20" },
      ],
    });
    const c = await createCoupon({ amount: 12.5 });
    expect(await order(s, [1, 0], { coupon: c.code })).toMatchObject({ total: 8.75, discount: 1.25 });
    expect(await order(s, [0, 1], { coupon: c.code })).toMatchObject({ total: 8.92, discount: 1.28 });
    // Over both lines: 12.5% of 20.20 = 2.525, rounded up to 2.53.
    expect(await order(s, [1, 1], { coupon: c.code })).toMatchObject({ total: 17.67, discount: 2.53 });
  });

  it("percent limited to ticket types takes its share of those types only", async () => {
    const s = await shop({ types: TWO_TYPES });
    const vip = await createCoupon({ events: String(s.event.id), tickets: "VIP", amount: 50 });
    // 2 x 10.00 + 1 x 25.00 = 45.00; 50% of the VIP line 25.00 = 12.50.
    expect(await order(s, [2, 1], { coupon: vip.code })).toMatchObject({ total: 32.5, discount: 12.5 });
    // No VIP ordered: nothing off, but the coupon still applies (no rule breaks).
    expect(await order(s, [2, 0], { coupon: vip.code })).toMatchObject({ total: 20, discount: 0 });
    const full = await createCoupon({ events: String(s.event.id), tickets: "Regular", amount: 100 });
    expect(await order(s, [2, 1], { coupon: full.code })).toMatchObject({ total: 25, discount: 20 });
  });

  it("fixed takes its amount off the whole total, whatever types it names", async () => {
    const s = await shop({ types: TWO_TYPES });
    const c = await createCoupon({ type: "fixed", amount: "7.35" });
    expect(await order(s, [2, 1], { coupon: c.code })).toMatchObject({ total: 37.65, discount: 7.35 });
    const typed = await createCoupon({ events: String(s.event.id), tickets: "VIP", type: "fixed", amount: 30 });
    // 30.00 off, more than the VIP line (25.00), taken off the 45.00 total.
    expect(await order(s, [2, 1], { coupon: typed.code })).toMatchObject({ total: 15, discount: 30 });
  });

  it("fixed is capped at the total: a free order, booked at once with its tickets and its use counted", async () => {
    const s = await shop({ types: TWO_TYPES });
    const c = await createCoupon({ type: "fixed", amount: 100, usage_limit: 5 });
    const before = Date.now();
    const o = await order(s, [2, 1], { coupon: c.code });
    const after = Date.now();
    expect(o).toMatchObject({ total: 0, discount: 45, payment_status: "booked", payment: null });
    expect(await ticketsOf(o.id)).toHaveLength(3);
    const counted = await usedOf(c);
    expect(counted.used).toBe(1);
    expectStampedBetween(counted.last_used, before, after);
    // A 100% percent coupon is free too.
    const all = await createCoupon({ amount: 100 });
    expect(await order(s, [1, 1], { coupon: all.code })).toMatchObject({ total: 0, discount: 35, payment_status: "booked" });
  });

  it("the discount is stored on the order and read back the same", async () => {
    const s = await shop({ types: TWO_TYPES });
    const c = await createCoupon({ type: "fixed", amount: 5 });
    const o = await order(s, [2, 1], { coupon: c.code });
    expect(await expectJson(call("GET", `/admin/orders/${o.id}`), 200)).toMatchObject({ total: 40, discount: 5 });
    expect(await orderRow(o.id)).toMatchObject({ totalCents: 4000, discountCents: 500, couponId: c.id });
    // The checkout page asks for the discounted total.
    expect(await (await open(o.payment.checkout_url)).text()).toContain("40.00 EUR");
  });

  describe("VAT on the discounted lines (decisions.md 13 'VAT'), read from the invoice", () => {
    async function invoiceText(uid: string): Promise<string> {
      const res = await call("GET", `/invoices/${uid}`, { key: null, auth: null });
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(res.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
      const doc = await PDFDocument.load(bytes);
      return readPage(doc.getPage(0))
        .lines.map((l) => l.text)
        .join("\n");
    }

    async function seller() {
      return shop({
        event: { invoice_needed: true },
        types: [
          { name: "Regular", price: "12.10", vat: 21 },
          { name: "Child", price: "10.90", vat: 9 },
        ],
      });
    }

    it("a fixed coupon: the discount spread over the lines in proportion, VAT per line on what each was charged", async () => {
      const s = await seller();
      const c = await createCoupon({ type: "fixed", amount: "5.10" });
      // List 24.20 + 10.90 = 35.10, discount 5.10 spread 3.52 / 1.58 (24.20 x 5.10 / 35.10 = 3.516..).
      const o = await dashboard(s, [2, 1], { coupon: c.code });
      expect(o).toMatchObject({ total: 30, discount: 5.1 });
      const text = await invoiceText(o.uid);
      expect(text).toContain("-5.10 EUR");
      expect(text).toContain("30.00 EUR");
      // Regular charged 20.68: VAT round(20.68 x 21 / 121) = 3.59, net 17.09. Child 9.32: VAT 0.77, net 8.55.
      expect(text).toContain("3.59 EUR");
      expect(text).toContain("17.09 EUR");
      expect(text).toContain("0.77 EUR");
      expect(text).toContain("8.55 EUR");
    });

    it("a percent coupon limited to one type: its amount from that type, spread over the lines like any discount", async () => {
      const s = await seller();
      const c = await createCoupon({ events: String(s.event.id), tickets: "Child", amount: 50 });
      // 50% of the Child line 10.90 = 5.45. Spread: Regular 24.20 x 5.45 / 35.10 = 3.7575.. (3.76 with the
      // rounding cent), Child 1.69. Regular charged 20.44: VAT 3.55, net 16.89; Child 9.21: VAT 0.76, net 8.45.
      const o = await dashboard(s, [2, 1], { coupon: c.code });
      expect(o).toMatchObject({ total: 29.65, discount: 5.45 });
      const text = await invoiceText(o.uid);
      expect(text).toContain("-5.45 EUR");
      expect(text).toContain("29.65 EUR");
      expect(text).toContain("3.55 EUR");
      expect(text).toContain("16.89 EUR");
      expect(text).toContain("0.76 EUR");
      expect(text).toContain("8.45 EUR");
    });
  });
});

describe("group orders (event_ids)", () => {
  async function group(dates = 2, type: Json = { name: "Day", price: 10 }) {
    const g = unique("CG");
    const shops: Shop[] = [];
    for (let i = 0; i < dates; i++) {
      shops.push(await shop({ event: { group_type: 2, event_group: g, event_date: `2099-10-0${i + 1} 20:00:00` }, types: [type] }));
    }
    return shops;
  }

  it("type 2: a coupon covering some but not all of the chosen dates is coupon_wrong_event, none of them coupon_not_found", async () => {
    const [first, second] = (await group()) as [Shop, Shop];
    const ids = [first.event.id, second.event.id];
    const some = await createCoupon({ events: String(first.event.id) });
    await expectRefused(
      postCustomer(first.event.id, customerBody(first, [1], { coupon: some.code, event_ids: ids })),
      400,
      "coupon_wrong_event",
      "This discount code is not linked to this event",
      ids,
    );
    const other = await shop();
    const none = await createCoupon({ events: String(other.event.id) });
    await expectRefused(
      postCustomer(first.event.id, customerBody(first, [1], { coupon: none.code, event_ids: ids })),
      400,
      "coupon_not_found",
      `Coupon code ${none.code} not found`,
      ids,
    );
  });

  it("checked as one purchase: counts and amounts over all dates together", async () => {
    const [first, second] = (await group()) as [Shop, Shop];
    const ids = [first.event.id, second.event.id];
    // 2 tickets per date, 4 in all: a minimum of 3 is met, a maximum of 3 is not.
    const min = await createCoupon({ minimum_tickets: 3, minimum_amount: 40 });
    const placed = await order(first, [2], { coupon: min.code, event_ids: ids });
    expect(placed.group_orders).toHaveLength(2);
    const max = await createCoupon({ maximum_tickets: 3 });
    await expectRefused(
      postCustomer(first.event.id, customerBody(first, [2], { coupon: max.code, event_ids: ids })),
      400,
      "coupon_max_tickets",
      "This discount code allows a maximum of 3 tickets",
      ids,
    );
    const maxAmount = await createCoupon({ maximum_amount: 39 });
    await expectRefused(
      postCustomer(first.event.id, customerBody(first, [2], { coupon: maxAmount.code, event_ids: ids })),
      400,
      "coupon_max_amount",
      "A maximum amount of 39.00 is allowed for this discount code",
      ids,
    );
  });

  it("the discount is spread over the orders in proportion; the first order (lowest event id) carries the one use", async () => {
    const [first, second] = (await group()) as [Shop, Shop];
    const c = await createCoupon({ amount: 10, usage_limit: 1 });
    // Asked through the second date's path with the dates in reverse order: the answer is still the lowest id's order.
    const placed = await expectJson(postCustomer(second.event.id, { ...customerBody(second, [2]), coupon: c.code, event_ids: [second.event.id, first.event.id] }), 201);
    expect(placed).toMatchObject({ event_id: first.event.id, total: 18, discount: 2 });
    const [a] = await ordersOf(first.event.id);
    const [b] = await ordersOf(second.event.id);
    expect(a).toMatchObject({ id: placed.id, totalCents: 1800, discountCents: 200, couponId: c.id, paymentStatus: "open" });
    expect(b).toMatchObject({ totalCents: 1800, discountCents: 200, couponId: null, paymentStatus: "open" });
    expect(await (await open(placed.payment.checkout_url)).text()).toContain("36.00 EUR");
    // The one use is held by the group: another order is refused.
    await refusedCustomer(first, customerBody(first, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);

    await decide(placed.payment.checkout_url, "pay");
    expect((await orderRow(a!.id))!.paymentStatus).toBe("paid");
    expect((await orderRow(b!.id))!.paymentStatus).toBe("paid");
    expect((await usedOf(c)).used).toBe(1);
  });

  it("an uneven split: the largest remainder (earlier order on a tie) takes the rounding cent", async () => {
    const [first, second] = (await group()) as [Shop, Shop];
    const c = await createCoupon({ type: "fixed", amount: "0.05" });
    const placed = await order(first, [1], { coupon: c.code, event_ids: [first.event.id, second.event.id] });
    const [a] = await ordersOf(first.event.id);
    const [b] = await ordersOf(second.event.id);
    expect(placed).toMatchObject({ total: 9.97, discount: 0.03 });
    expect(a).toMatchObject({ totalCents: 997, discountCents: 3 });
    expect(b).toMatchObject({ totalCents: 998, discountCents: 2 });
  });

  it("a fixed coupon above the group's total makes every order free: booked at once, one use counted", async () => {
    const [first, second] = (await group()) as [Shop, Shop];
    const c = await createCoupon({ type: "fixed", amount: 100, usage_limit: 3 });
    const placed = await order(first, [2], { coupon: c.code, event_ids: [first.event.id, second.event.id] });
    expect(placed).toMatchObject({ payment_status: "booked", payment: null, total: 0, discount: 20 });
    const [a] = await ordersOf(first.event.id);
    const [b] = await ordersOf(second.event.id);
    expect(a).toMatchObject({ paymentStatus: "booked", totalCents: 0, discountCents: 2000, couponId: c.id });
    expect(b).toMatchObject({ paymentStatus: "booked", totalCents: 0, discountCents: 2000, couponId: null });
    expect(await ticketsOf(a!.id)).toHaveLength(2);
    expect(await ticketsOf(b!.id)).toHaveLength(2);
    expect((await usedOf(c)).used).toBe(1);
  });

  it("type 1: the coupon's events are checked against the chosen date, where the order is placed", async () => {
    const g = unique("CG1");
    const first = await shop({ event: { group_type: 1, event_group: g }, types: [{ name: "Day", price: 10 }] });
    const second = await shop({ event: { group_type: 1, event_group: g }, types: [{ name: "Day", price: 10 }] });
    const ids = [first.event.id, second.event.id];
    // Linked to the date ordered: it applies, though the order was asked through the other date's path.
    const forSecond = await createCoupon({ events: String(second.event.id) });
    const placed = await expectJson(postCustomer(first.event.id, customerBody(first, [1], { coupon: forSecond.code, event_ids: [second.event.id] })), 201);
    expect(placed).toMatchObject({ event_id: second.event.id, total: 9, discount: 1 });
    // Linked only to the path event, which gets no order: it covers none of the events ordered, so it is unknown.
    const forFirst = await createCoupon({ events: String(first.event.id) });
    await expectRefused(
      postCustomer(first.event.id, customerBody(first, [1], { coupon: forFirst.code, event_ids: [second.event.id], email: "bob@example.com" })),
      400,
      "coupon_not_found",
      `Coupon code ${forFirst.code} not found`,
      ids,
    );
  });

  it("cancelling the group's payment gives its one use back", async () => {
    const [first, second] = (await group()) as [Shop, Shop];
    const c = await createCoupon({ type: "fixed", amount: 5, usage_limit: 1 });
    const placed = await order(first, [1], { coupon: c.code, event_ids: [first.event.id, second.event.id] });
    await refusedCustomer(first, customerBody(first, [1], { coupon: c.code }), "coupon_usage_limit", USAGE);
    await decide(placed.payment.checkout_url, "cancel");
    expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
    expect(await order(first, [1], { coupon: c.code })).toMatchObject({ total: 5, discount: 5 });
  });
});

describe("dashboard orders", () => {
  it("without amount: the coupon discounts, the order is final and its use counted at once", async () => {
    const s = await shop({ types: TWO_TYPES });
    const c = await createCoupon({ amount: 20 });
    const before = Date.now();
    const o = await dashboard(s, [2, 1], { coupon: c.code });
    const after = Date.now();
    expect(o).toMatchObject({ payment_status: "dashboard", total: 36, discount: 9 });
    expect(await ticketsOf(o.id)).toHaveLength(3);
    const counted = await usedOf(c);
    expect(counted.used).toBe(1);
    expectStampedBetween(counted.last_used, before, after);
    expect(await orderRow(o.id)).toMatchObject({ couponId: c.id });
  });

  it("with amount: the amount alone decides the total; the coupon is checked and counted but discounts nothing", async () => {
    const s = await shop({ types: TWO_TYPES });
    const c = await createCoupon({ amount: 50, usage_limit: 2 });
    const o = await dashboard(s, [2, 1], { coupon: c.code, amount: "40" });
    expect(o).toMatchObject({ payment_status: "dashboard", total: 40, discount: 5 });
    expect((await usedOf(c)).used).toBe(1);
    // An amount equal to the list price: no discount at all, though the coupon counts.
    expect(await dashboard(s, [2, 1], { coupon: c.code, amount: "45" })).toMatchObject({ total: 45, discount: 0 });
    expect((await usedOf(c)).used).toBe(2);
    // Checked: the limit is reached now.
    await refusedDashboard(s, dashboardBody(s, [2, 1], { coupon: c.code, amount: "40" }), "coupon_usage_limit", USAGE);
    const min = await createCoupon({ minimum_tickets: 5 });
    await refusedDashboard(s, dashboardBody(s, [2, 1], { coupon: min.code, amount: "1" }), "coupon_min_tickets", "This discount code requires a minimum of 5 tickets");
    // The rules go by list prices, not by the amount: a 45.00 minimum is met by a 1.00 order of 45.00 list.
    const minAmount = await createCoupon({ minimum_amount: 45 });
    expect(await dashboard(s, [2, 1], { coupon: minAmount.code, amount: "1" })).toMatchObject({ total: 1, discount: 44 });
  });

  it("an empty coupon is a malformed dashboard body", async () => {
    const s = await shop();
    await expectError(postDashboard(dashboardBody(s, [1], { coupon: "" })), 400, "rest_invalid_param");
  });
});

describe("uses: used, last_used and the uses held by open orders", () => {
  it("open to paid: the open order holds the use (used unchanged); payment moves used and last_used", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 1 });
    const o = await order(s, [1], { coupon: c.code });
    expect(o.payment_status).toBe("open");
    expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);

    const before = Date.now();
    await decide(o.payment.checkout_url, "pay");
    const after = Date.now();
    const counted = await usedOf(c);
    expect(counted.used).toBe(1);
    expectStampedBetween(counted.last_used, before, after);
    // A second payment notice changes nothing.
    await decide(o.payment.checkout_url, "pay");
    expect((await usedOf(c)).used).toBe(1);
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);
  });

  it("open to cancelled gives the use back", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 1 });
    const o = await order(s, [1], { coupon: c.code });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);
    await decide(o.payment.checkout_url, "cancel");
    expect((await orderRow(o.id))!.paymentStatus).toBe("canceled");
    expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
    const again = await order(s, [1], { coupon: c.code, email: "bob@example.com" });
    expect(again).toMatchObject({ total: 9, discount: 1 });
    // Paying the cancelled order afterwards does not count it.
    await decide(o.payment.checkout_url, "pay");
    expect((await usedOf(c)).used).toBe(0);
  });

  it("open to expired gives the use back", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 1 });
    const o = await order(s, [1], { coupon: c.code });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);
    await expire(o, s.event.id);
    expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
    const again = await dashboard(s, [1], { coupon: c.code, email: "bob@example.com" });
    expect(again).toMatchObject({ total: 9, discount: 1 });
    expect((await usedOf(c)).used).toBe(1);
  });

  it("a late payment of an expired order (stock left) makes it final and counts its use", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 5 });
    const o = await order(s, [1], { coupon: c.code });
    await expire(o, s.event.id);
    await decide(o.payment.checkout_url, "pay");
    expect((await orderRow(o.id))!.paymentStatus).toBe("paid");
    expect((await usedOf(c)).used).toBe(1);
  });

  describe("orders awaiting confirmation (confirmation_emails_needed)", () => {
    async function rsvp() {
      return shop({
        event: {
          confirmation_emails_needed: true,
          confirmation_timeout: 30,
          email_confirmation: { subject: "Confirmed", body: "<p>See you</p>", redirect: "https://shop.example/confirmed" },
        },
        types: [{ name: "Guest", price: 0, stock_control: true, stock: 10 }],
      });
    }

    it("hold the use while unconfirmed; confirmation moves used and last_used", async () => {
      const s = await rsvp();
      const c = await createCoupon({ usage_limit: 1 });
      const o = await order(s, [1], { coupon: c.code });
      expect(o).toMatchObject({ payment_status: "booked", total: 0 });
      expect((await orderRow(o.id))!.awaitsConfirmation).toBe(true);
      expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
      await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);

      const link = await emailedConfirmLink(o.id);
      const before = Date.now();
      const res = await open(link);
      expect(res.status).toBe(302);
      const after = Date.now();
      expect((await orderRow(o.id))!.paymentStatus).toBe("booked - confirmed");
      const counted = await usedOf(c);
      expect(counted.used).toBe(1);
      expectStampedBetween(counted.last_used, before, after);
      // A second click changes nothing.
      await open(link);
      expect((await usedOf(c)).used).toBe(1);
      await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "bob@example.com" }), "coupon_usage_limit", USAGE);
    });

    it("an unconfirmed order deleted at its timeout gives the use back", async () => {
      const s = await rsvp();
      const c = await createCoupon({ usage_limit: 1 });
      const o = await order(s, [1], { coupon: c.code });
      await taken(s.event.id, o.uid);
      await db
        .update(orders)
        .set({ createdAt: Math.floor(Date.now() / 1000) - 31 * 60 })
        .where(eq(orders.id, o.id));
      await expireOrder(depsFromEnv(env), o.uid, s.event.id);
      expect(await orderRow(o.id)).toBeUndefined();
      expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
      expect(await order(s, [1], { coupon: c.code, email: "bob@example.com" })).toMatchObject({ payment_status: "booked" });
    });
  });

  it("per-user limit: counts the live orders of the same email (any case); others may still use it", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit_per_user: 1, usage_limit: 10 });
    const first = await order(s, [1], { coupon: c.code, email: "Per.User@example.com" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "per.user@EXAMPLE.com" }), "coupon_usage_limit", USAGE);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code, email: "PER.USER@example.com" }), "coupon_usage_limit", USAGE);
    expect(await order(s, [1], { coupon: c.code, email: "someone.else@example.com" })).toMatchObject({ discount: 1 });
    // The same person without the coupon is no concern of the coupon.
    expect(await order(s, [1], { email: "per.user@example.com" })).toMatchObject({ discount: 0 });

    // Paid, the order still counts for its orderer.
    await decide(first.payment.checkout_url, "pay");
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "per.user@example.com" }), "coupon_usage_limit", USAGE);
    // reset-counters clears used, not the orderer's live orders.
    await expectJson(call("GET", `/admin/coupons/${c.id}/reset-counters`), 200);
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "per.user@example.com" }), "coupon_usage_limit", USAGE);
  });

  it("per-user limit: a cancelled order no longer counts for its orderer", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit_per_user: 2 });
    const a = await order(s, [1], { coupon: c.code, email: "twice@example.com" });
    await dashboard(s, [1], { coupon: c.code, email: "twice@example.com" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "twice@example.com" }), "coupon_usage_limit", USAGE);
    await decide(a.payment.checkout_url, "cancel");
    expect(await order(s, [1], { coupon: c.code, email: "twice@example.com" })).toMatchObject({ discount: 1 });
  });

  it("reset-counters clears used and last_used, so the limit counts afresh; open orders keep holding their uses", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 2 });
    await dashboard(s, [1], { coupon: c.code });
    await dashboard(s, [1], { coupon: c.code, email: "bob@example.com" });
    expect((await usedOf(c)).used).toBe(2);
    await refusedDashboard(s, dashboardBody(s, [1], { coupon: c.code, email: "carl@example.com" }), "coupon_usage_limit", USAGE);

    const reset = await expectJson(call("GET", `/admin/coupons/${c.id}/reset-counters`), 200);
    expect(reset).toMatchObject({ used: 0, last_used: "" });
    const open1 = await order(s, [1], { coupon: c.code, email: "carl@example.com" });
    const open2 = await order(s, [1], { coupon: c.code, email: "dan@example.com" });
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "eve@example.com" }), "coupon_usage_limit", USAGE);
    // Reset again while two orders are open: they still hold their uses.
    await expectJson(call("GET", `/admin/coupons/${c.id}/reset-counters`), 200);
    await refusedCustomer(s, customerBody(s, [1], { coupon: c.code, email: "eve@example.com" }), "coupon_usage_limit", USAGE);
    await decide(open1.payment.checkout_url, "pay");
    await decide(open2.payment.checkout_url, "cancel");
    expect((await usedOf(c)).used).toBe(1);
    expect(await order(s, [1], { coupon: c.code, email: "eve@example.com" })).toMatchObject({ payment_status: "open" });
  });
});

describe("concurrency: the usage limit holds under parallel orders", () => {
  interface Answer {
    status: number;
    body: Json;
  }

  async function fire(requests: (() => Promise<Response>)[]): Promise<{ won: Json[]; lost: Answer[] }> {
    const responses = await Promise.all(requests.map((r) => r()));
    const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: JSON.parse(await r.text()) as Json })));
    return { won: answers.filter((a) => a.status === 201).map((a) => a.body), lost: answers.filter((a) => a.status !== 201) };
  }

  function expectAllUsageLimit(lost: Answer[]) {
    for (const l of lost) {
      expect(l.status, JSON.stringify(l.body)).toBe(400);
      expect(l.body).toMatchObject({ code: "coupon_usage_limit", message: USAGE });
    }
  }

  const remainingOf = async (s: Shop) => (await eventObject(env, s.event.id).remaining())?.types[s.types[0]!.id];

  it("usage_limit 5 and 20 concurrent customer orders: exactly 5 placed, 15 coupon_usage_limit; used counts the paid ones", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, stock_control: true, stock: 100 }] });
    const c = await createCoupon({ usage_limit: 5 });
    const { won, lost } = await fire(
      Array.from({ length: 20 }, (_, i) => () => postCustomer(s.event.id, customerBody(s, [1], { coupon: c.code, email: `racer${i}@example.com` }))),
    );
    expect(won).toHaveLength(5);
    expect(lost).toHaveLength(15);
    expectAllUsageLimit(lost);
    for (const o of won) expect(o).toMatchObject({ payment_status: "open", total: 9, discount: 1 });
    const rows = await ordersOf(s.event.id);
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.couponId === c.id)).toBe(true);
    expect(await usedOf(c)).toEqual({ used: 0, last_used: "" });
    // The losers' stock holds are given back.
    for (const o of won) await taken(s.event.id, o.uid);
    expect(await remainingOf(s)).toBe(95);

    // Three paid, one cancelled, one left open: used is the number of final ones.
    await Promise.all(won.slice(0, 3).map((o) => decide(o.payment.checkout_url, "pay")));
    await decide(won[3]!.payment.checkout_url, "cancel");
    expect((await usedOf(c)).used).toBe(3);
    // One use is free again (the cancelled one), one is held by the open order.
    const again = await fire(
      Array.from({ length: 6 }, (_, i) => () => postCustomer(s.event.id, customerBody(s, [1], { coupon: c.code, email: `again${i}@example.com` }))),
    );
    expect(again.won).toHaveLength(1);
    expectAllUsageLimit(again.lost);
    await decide(won[4]!.payment.checkout_url, "pay");
    await decide(again.won[0]!.payment.checkout_url, "pay");
    expect((await usedOf(c)).used).toBe(5);
  });

  it("usage_limit 5 and 20 concurrent dashboard orders: exactly 5 placed and used is 5", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, stock_control: true, stock: 100 }] });
    const c = await createCoupon({ usage_limit: 5 });
    const { won, lost } = await fire(Array.from({ length: 20 }, (_, i) => () => postDashboard(dashboardBody(s, [1], { coupon: c.code, email: `desk${i}@example.com` }))));
    expect(won).toHaveLength(5);
    expectAllUsageLimit(lost);
    expect(lost).toHaveLength(15);
    expect((await usedOf(c)).used).toBe(5);
    const rows = await ordersOf(s.event.id);
    expect(rows).toHaveLength(5);
    let ticketCount = 0;
    for (const r of rows) ticketCount += (await ticketsOf(r.id)).length;
    expect(ticketCount).toBe(5);
    const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
    expect(event.sold).toBe(5);
  });

  it("mixed customer and dashboard orders on a coupon with uses already taken: only the room left is given", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit: 6 });
    for (let i = 0; i < 3; i++) await dashboard(s, [1], { coupon: c.code, email: `early${i}@example.com` });
    const { won, lost } = await fire(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? () => postCustomer(s.event.id, customerBody(s, [1], { coupon: c.code, email: `mix${i}@example.com` }))
          : () => postDashboard(dashboardBody(s, [1], { coupon: c.code, email: `mix${i}@example.com` })),
      ),
    );
    expect(won).toHaveLength(3);
    expectAllUsageLimit(lost);
    const finals = won.filter((o) => o.payment_status === "dashboard").length;
    expect((await usedOf(c)).used).toBe(3 + finals);
  });

  it("usage_limit_per_user 2 and 10 concurrent orders by one person: exactly 2 placed", async () => {
    const s = await shop();
    const c = await createCoupon({ usage_limit_per_user: 2 });
    const { won, lost } = await fire(
      Array.from(
        { length: 10 },
        (_, i) => () => postCustomer(s.event.id, customerBody(s, [1], { coupon: c.code, email: i % 2 ? "Same@Example.com" : "same@example.com" })),
      ),
    );
    expect(won).toHaveLength(2);
    expectAllUsageLimit(lost);
    expect(await ordersOf(s.event.id)).toHaveLength(2);
  });

  it("a coupon with no limit serves every parallel order", async () => {
    const s = await shop();
    const c = await createCoupon({ type: "fixed", amount: 2 });
    const { won, lost } = await fire(
      Array.from({ length: 10 }, (_, i) => () => postCustomer(s.event.id, customerBody(s, [1], { coupon: c.code, email: `free${i}@example.com` }))),
    );
    expect(lost).toEqual([]);
    expect(won).toHaveLength(10);
    for (const o of won) expect(o).toMatchObject({ total: 8, discount: 2 });
  });
});
