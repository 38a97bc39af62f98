import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emails, idempotencyKeys, logs, orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import type { EventObject } from "../../../src/event-object/event.do";
import worker from "../../../src/index";
import { depsFromEnv } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { BASE, call, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { wallClockAt } from "../../helpers/wall-clock";
import { expectLogged } from "../../helpers/logs";

/**
 * The customer's side of ordering (decisions.md 5.1, 5.3-5.5, 12 and 13 "Orders" and "Flows"):
 * `POST /events/<event_id>/orders`, the test provider's checkout page `/pay/test/<uid>`, and the status route
 * `/orders/<order_id>/<uid>/status`. Storage is shared by the tests of this file, so each makes its own events and
 * looks only at their orders.
 */

type Json = Record<string, any>;

const ORDER_FIELDS = [
  "_links",
  "confirmation",
  "created_at",
  "currency",
  "custom_status",
  "discount",
  "email",
  "event_date",
  "event_id",
  "group_orders",
  "id",
  "input_fields",
  "ip_address",
  "name",
  "num_tickets",
  "payment",
  "payment_id",
  "payment_status",
  "total",
  "uid",
];

const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const SHOP = { ORDERING_KEY: "pk_test", CORS_ORIGINS: "https://shop.example" };

interface Shop {
  event: Json;
  types: Json[];
  fields: Json[];
}

/** A shop-front event (no dashboard orders) with the given ticket types (default one "Regular" at 10.00) and fields. */
async function shop(options: { event?: Json; types?: Json[]; fields?: Json[] } = {}): Promise<Shop> {
  const event = await createEvent({ event_name: unique("Shop "), ...options.event });
  const types: Json[] = [];
  for (const t of options.types ?? [{ name: "Regular", price: 10 }]) types.push(await createTicketType(event.id, t));
  const fields: Json[] = [];
  for (const f of options.fields ?? []) fields.push(await createInputField(event.id, f));
  return { event, types, fields };
}

const lines = (types: Json[], counts: number[]) => types.map((t, i) => ({ [t.id]: counts[i] ?? 0 }));

function orderBody(s: Shop, counts: number[] = [1], extra: Json = {}): Json {
  return { name: "Ann Smith", email: "ann@example.com", tickets: lines(s.types, counts), ...extra };
}

const post = (eventId: number, body: unknown, options: { key?: string | null; headers?: Record<string, string> } = {}) =>
  call("POST", `/events/${eventId}/orders`, { body, auth: null, ...options });

async function placeOrder(s: Shop, counts: number[] = [1], extra: Json = {}): Promise<Json> {
  return expectJson(post(s.event.id, orderBody(s, counts, extra)), 201);
}

/** Calls the worker with some settings changed, as another deployment would be configured. */
async function callWith(overrides: Record<string, unknown>, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A browser-like call of an absolute URL (the checkout page, the status route): no key, no credentials. */
function open(url: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(url, { redirect: "manual", ...init }));
}

function decide(checkoutUrl: string, action: string): Promise<Response> {
  return open(checkoutUrl, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` });
}

const statusPath = (o: Json) => `/orders/${o.id}/${o.uid}/status`;
const status = (o: Json) => expectJson(call("GET", statusPath(o), { key: null, auth: null }), 200);

async function ordersOf(eventId: number) {
  return db.select().from(orders).where(eq(orders.eventId, eventId)).orderBy(orders.id);
}

async function ticketsOf(orderId: number) {
  return db.select().from(tickets).where(eq(tickets.orderId, orderId));
}

async function soldOf(s: Shop): Promise<{ event: number; types: number[] }> {
  const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${s.event.id}/ticket-types`), 200);
  return { event: event.sold, types: s.types.map((t) => types.find((x) => x.id === t.id)!.sold) };
}

const remaining = (eventId: number) => eventObject(env, eventId).remaining();
const reservations = async (eventId: number) => (await eventObject(env, eventId).snapshot()).reservations;

async function formRemaining(s: Shop, typeIndex = 0): Promise<number> {
  const form = await expectJson(call("GET", `/events/${s.event.id}/order-form`, { auth: null }), 200);
  return form.ticket_types.find((t: Json) => t.id === s.types[typeIndex]!.id).remaining;
}

/**
 * A refusal with exactly this code, status and message, after which the event has no more orders and its object
 * holds exactly what it held before.
 */
async function expectRefused(s: Shop, body: unknown, httpStatus: number, code: string, message: string, eventIds: number[] = [s.event.id]) {
  const before = await Promise.all(eventIds.map(async (id) => ({ orders: (await ordersOf(id)).length, reservations: await reservations(id) })));
  const res = await post(s.event.id, body);
  const err = await expectError(res, httpStatus, code);
  expect(err.message).toBe(message);
  const after = await Promise.all(eventIds.map(async (id) => ({ orders: (await ordersOf(id)).length, reservations: await reservations(id) })));
  expect(after, "a refused order writes and holds nothing").toEqual(before);
  return err;
}

/** Wall clock of an instant in a zone, computed independently of src/lib/time.ts. */
function wallClock(epochMs: number, timeZone = "Europe/Amsterdam"): string {
  return wallClockAt(epochMs, timeZone);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until every reservation of the event's object is taken (confirms go out after the answer). */
async function settled(eventId: number) {
  for (let i = 0; i < 100; i++) {
    const rs = await reservations(eventId);
    if (rs.every((r) => r.state === "taken")) return rs;
    await sleep(30);
  }
  return reservations(eventId);
}

describe("a customer from order form to checkout page to paid to tickets", () => {
  it("walks the whole way: 201 open order with a payment, holds stock, pays on the checkout page, gets tickets", async () => {
    const s = await shop({
      event: { emails_needed: true, email: { subject: "Your tickets", body: "Thank you" }, event_date: "2099-06-01 20:00:00" },
      types: [{ name: "Regular", price: "12.50", vat: 21, stock_control: true, stock: 10, show_remaining: true }],
      fields: [{ name: "Company" }],
    });
    expect(await formRemaining(s)).toBe(10);

    const before = Date.now();
    const res = await post(s.event.id, orderBody(s, [2], { name: " Ann Smith ", email: "Ann@Example.com", fields: { [s.fields[0]!.id]: "ACME" } }), {
      headers: { "CF-Connecting-IP": "203.0.113.9" },
    });
    const order = await expectJson(res, 201);
    const after = Date.now();

    // The answer: the order, its group (itself) and the payment to make; Location is its status route.
    expect(Object.keys(order).sort()).toEqual(ORDER_FIELDS);
    expect(res.headers.get("Location")).toBe(`${BASE}/orders/${order.id}/${order.uid}/status`);
    expect(order.uid).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(order).toStrictEqual({
      id: order.id,
      event_id: s.event.id,
      event_date: "2099-06-01 20:00:00",
      payment_id: order.payment_id,
      payment_status: "open",
      custom_status: "",
      created_at: order.created_at,
      uid: order.uid,
      name: "Ann Smith",
      email: "Ann@Example.com",
      input_fields: {
        fields: [{ name: "Company", value: "ACME" }],
        tickets: [{ name: "Regular", price: 12.5, vat: 21, is_counted: true, number: 2 }],
      },
      num_tickets: 2,
      total: 25,
      discount: 0,
      currency: "EUR",
      ip_address: "203.0.113.9",
      _links: {
        self: [{ href: `${BASE}/admin/orders/${order.id}` }],
        collection: [{ href: `${BASE}/admin/orders` }],
        tickets: [{ embeddable: true, href: `${BASE}/admin/tickets/${order.id}` }],
      },
      group_orders: [order.id],
      payment: { provider: "test", checkout_url: `${BASE}/pay/test/${order.uid}`, expires_at: order.payment.expires_at },
      confirmation: null,
    });
    expect(order.payment_id).toMatch(/^test_/);
    expect(order.created_at >= wallClock(before - 1000)).toBe(true);
    expect(order.created_at <= wallClock(after + 1000)).toBe(true);

    // Open: stock held, nothing sold, no tickets, no email yet; the status says so.
    expect(await formRemaining(s)).toBe(8);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
    expect(await ticketsOf(order.id)).toEqual([]);
    expect((await expectJson(call("GET", `/admin/tickets/${order.id}`), 200)).tickets).toEqual([]);
    expect(await db.select().from(emails).where(eq(emails.orderId, order.id))).toEqual([]);
    expect(await status(order)).toStrictEqual({ payment_status: "open", tickets_ready: false, download_url: "" });

    // The checkout page: HTML with the amount and the two buttons, no key needed.
    const page = await open(order.payment.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain("25.00 EUR");
    expect(html).toMatch(/<form method="post">/);
    expect(html).toContain('value="pay"');
    expect(html).toContain('value="cancel"');

    // Pay: 303 to the status route, which now says paid with tickets ready.
    const paid = await decide(order.payment.checkout_url, "pay");
    expect(paid.status).toBe(303);
    expect(paid.headers.get("Location")).toBe(`${BASE}${statusPath(order)}`);
    const thanks = await expectJson(open(paid.headers.get("Location")!), 200);
    expect(thanks).toStrictEqual({ payment_status: "paid", tickets_ready: true, download_url: `${BASE}/tickets/${order.uid}` });

    const issued = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
    expect(issued.tickets).toHaveLength(2);
    expect(issued.tickets.map((t: Json) => t.ticket_type)).toEqual(["Regular", "Regular"]);
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    expect(await formRemaining(s)).toBe(8);
    expect((await expectJson(call("GET", `/admin/orders/${order.id}`), 200)).payment_status).toBe("paid");
    // The new-order email was written when the order became final.
    const mails = await db.select().from(emails).where(eq(emails.orderId, order.id));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe("Ann@Example.com");

    // The page now shows the payment as done, without buttons; paying again changes nothing.
    const donePage = await (await open(order.payment.checkout_url)).text();
    expect(donePage).toContain("paid");
    expect(donePage).not.toContain("<form");
    const again = await decide(order.payment.checkout_url, "pay");
    expect(again.status).toBe(303);
    const reissued = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
    expect(reissued.tickets.map((t: Json) => t.ticket_id).sort()).toEqual(issued.tickets.map((t: Json) => t.ticket_id).sort());
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    expect(await db.select().from(emails).where(eq(emails.orderId, order.id))).toHaveLength(1);
  });

  it("cancels on the checkout page: 303 to the status route, canceled, stock back, no tickets", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, stock_control: true, stock: 5, show_remaining: true }] });
    const order = await placeOrder(s, [3]);
    expect(await formRemaining(s)).toBe(2);

    const res = await decide(order.payment.checkout_url, "cancel");
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`${BASE}${statusPath(order)}`);
    expect(await status(order)).toStrictEqual({ payment_status: "canceled", tickets_ready: false, download_url: "" });
    expect(await formRemaining(s)).toBe(5);
    expect(await ticketsOf(order.id)).toEqual([]);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
    const html = await (await open(order.payment.checkout_url)).text();
    expect(html).toContain("canceled");
    expect(html).not.toContain("<form");
    // Paying a cancelled order afterwards does not bring it back.
    await decide(order.payment.checkout_url, "pay");
    expect((await status(order)).payment_status).toBe("canceled");
    expect(await formRemaining(s)).toBe(5);
  });

  it("lets the payment time run out: the event object's alarm expires the order through the queue, the units come back", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, stock_control: true, stock: 5, show_remaining: true }] });
    const order = await placeOrder(s, [2]);
    expect(await formRemaining(s)).toBe(3);
    await settled(s.event.id);

    // The payment deadline passes: in D1, and in the object's copy of it.
    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, order.id));
    await runInDurableObject(eventObject(env, s.event.id), (_i: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET deadline = ? WHERE uid = ?`, Date.now() - 1_000, order.uid);
    });
    expect(await runDurableObjectAlarm(eventObject(env, s.event.id))).toBe(true);

    let st = await status(order);
    for (let i = 0; i < 150 && st.payment_status !== "expired"; i++) {
      await sleep(100);
      st = await status(order);
    }
    expect(st).toStrictEqual({ payment_status: "expired", tickets_ready: false, download_url: "" });
    expect(await formRemaining(s)).toBe(5);
    expect(await ticketsOf(order.id)).toEqual([]);
    const html = await (await open(order.payment.checkout_url)).text();
    expect(html).toContain("expired");
    expect(html).not.toContain("<form");
  });

  it("redirects to the event's redirect after paying or cancelling when it is set", async () => {
    const s = await shop({ event: { redirect: "https://shop.example/thanks" } });
    const a = await placeOrder(s);
    const paid = await decide(a.payment.checkout_url, "pay");
    expect(paid.status).toBe(303);
    expect(paid.headers.get("Location")).toBe("https://shop.example/thanks");
    expect((await status(a)).payment_status).toBe("paid");

    const b = await placeOrder(s);
    const cancelled = await decide(b.payment.checkout_url, "cancel");
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("Location")).toBe("https://shop.example/thanks");
    expect((await status(b)).payment_status).toBe("canceled");
  });

  it("the checkout page: unknown uid 404, anything but action=pay|cancel refused and changing nothing", async () => {
    const s = await shop();
    const order = await placeOrder(s);
    await expectError(open(`${BASE}/pay/test/${"x".repeat(40)}`), 404, "rest_order_invalid_id");
    await expectError(decide(`${BASE}/pay/test/${"x".repeat(40)}`, "pay"), 404, "rest_order_invalid_id");
    await expectError(decide(order.payment.checkout_url, "refund"), 400, "rest_invalid_param");
    const json = await open(order.payment.checkout_url, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"action":"pay"}' });
    expect(json.status).toBe(415);
    expect((await status(order)).payment_status).toBe("open");
  });

  it("without PAYMENT_PROVIDER a paid order is 503 rest_payment_unavailable, writing and holding nothing; a free one is booked", async () => {
    const unset = { PAYMENT_PROVIDER: undefined };
    // Each request without a provider logs the incomplete configuration (decisions.md 14), as this test expects.
    const logged = expectLogged("error", /"msg":"incomplete configuration/);
    const s = await shop({
      types: [
        { name: "Paid", price: 20 },
        { name: "Guest", price: 0 },
      ],
    });
    const paid = await callWith(unset, request("POST", `/events/${s.event.id}/orders`, { body: orderBody(s, [1, 0]), auth: null }));
    const err = await expectError(paid, 503, "rest_payment_unavailable");
    expect(err.message).toBe("No payment provider is configured");
    expect(await ordersOf(s.event.id)).toEqual([]);
    expect(await reservations(s.event.id)).toEqual([]);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0, 0] });

    const free = await expectJson(callWith(unset, request("POST", `/events/${s.event.id}/orders`, { body: orderBody(s, [0, 1]), auth: null })), 201);
    expect(free).toMatchObject({ payment_status: "booked", payment: null, total: 0 });

    // An event's own test payments are its organizer's explicit choice and still reach the test checkout.
    const testing = await shop({ event: { test_payments_needed: true } });
    const order = await expectJson(callWith(unset, request("POST", `/events/${testing.event.id}/orders`, { body: orderBody(testing), auth: null })), 201);
    expect(order.payment.provider).toBe("test");
    expect(logged.lines.map((l) => JSON.parse(l).settings)).toEqual([["PAYMENT_PROVIDER"], ["PAYMENT_PROVIDER"], ["PAYMENT_PROVIDER"]]);
  });

  it("the test checkout page says in its title and first line that no money is taken", async () => {
    const order = await placeOrder(await shop());
    const html = await (await open(order.payment.checkout_url)).text();
    expect(html).toMatch(/<title>[^<]*no money is taken[^<]*<\/title>/i);
    expect(html).toMatch(/<body[^>]*><h1>[^<]*no money is taken[^<]*<\/h1>/i);
  });

  it("a free order is booked at once: tickets issued, sold counted, no payment", async () => {
    const s = await shop({ types: [{ name: "Free", price: 0, stock_control: true, stock: 10, show_remaining: true }] });
    const res = await post(s.event.id, orderBody(s, [2]));
    const order = await expectJson(res, 201);
    expect(res.headers.get("Location")).toBe(`${BASE}${statusPath(order)}`);
    expect(order).toMatchObject({ payment_status: "booked", payment: null, confirmation: null, payment_id: "", total: 0, num_tickets: 2, group_orders: [order.id] });
    expect(await ticketsOf(order.id)).toHaveLength(2);
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    expect(await formRemaining(s)).toBe(8);
    expect(await status(order)).toStrictEqual({ payment_status: "booked", tickets_ready: true, download_url: `${BASE}/tickets/${order.uid}` });
  });

  it("an order whose ordered lines all cost nothing is free, even when the event has priced types", async () => {
    const s = await shop({
      types: [
        { name: "Paid", price: 20 },
        { name: "Guest", price: 0 },
      ],
    });
    const order = await placeOrder(s, [0, 1]);
    expect(order).toMatchObject({ payment_status: "booked", payment: null, total: 0 });
    expect(await ticketsOf(order.id)).toHaveLength(1);
  });

  it("payment.expires_at is the payment deadline, ORDER_HOLD_MINUTES (default 15) after the order", async () => {
    const s = await shop();
    const order = await placeOrder(s);
    const row = (await ordersOf(s.event.id)).find((o) => o.id === order.id)!;
    expect(row.expiresAt! - row.createdAt).toBe(15 * 60);

    const res = await callWith({ ORDER_HOLD_MINUTES: "5" }, request("POST", `/events/${s.event.id}/orders`, { auth: null, body: orderBody(s) }));
    const short = await expectJson(res, 201);
    const shortRow = (await ordersOf(s.event.id)).find((o) => o.id === short.id)!;
    expect(shortRow.expiresAt! - shortRow.createdAt).toBe(5 * 60);
  });

  it("payment.expires_at is a date-time like every other date-time of the interface (decisions.md 3)", async () => {
    const s = await shop();
    const before = Date.now();
    const order = await placeOrder(s);
    const after = Date.now();
    // "Date-times in and out: YYYY-MM-DD HH:MM:SS in the service's time zone" (decisions.md 3; ticketing-api.md).
    expect(typeof order.payment.expires_at, `expires_at ${JSON.stringify(order.payment.expires_at)}`).toBe("string");
    expect(order.payment.expires_at).toMatch(DATE_TIME);
    expect(order.payment.expires_at >= wallClock(before - 1000 + 15 * 60_000)).toBe(true);
    expect(order.payment.expires_at <= wallClock(after + 1000 + 15 * 60_000)).toBe(true);
  });

  it("prices with volume prices and shows VAT per line (input_fields.tickets)", async () => {
    const s = await shop({
      types: [
        { name: "Regular", price: 10, vat: 21, volume_price: [{ "5": 8 }, { "10": 7 }], maximum_to_order: 0 },
        { name: "Kid", price: "12.50", vat: 9 },
        { name: "Backstage", price: "49.99", vat: 5.5 },
      ],
    });
    const five = await placeOrder(s, [6, 1, 0]);
    expect(five.input_fields.tickets).toEqual([
      { name: "Regular", price: 8, vat: 21, is_counted: true, number: 6 },
      { name: "Kid", price: 12.5, vat: 9, is_counted: true, number: 1 },
      { name: "Backstage", price: 49.99, vat: 5.5, is_counted: true, number: 0 },
    ]);
    expect(five).toMatchObject({ total: 60.5, discount: 0, num_tickets: 7 });
    expect(await (await open(five.payment.checkout_url)).text()).toContain("60.50 EUR");

    const ten = await placeOrder(s, [10, 0, 0]);
    expect(ten.input_fields.tickets[0]).toEqual({ name: "Regular", price: 7, vat: 21, is_counted: true, number: 10 });
    expect(ten.total).toBe(70);
    const four = await placeOrder(s, [4, 0, 0]);
    expect(four.input_fields.tickets[0].price).toBe(10);
    expect(four.total).toBe(40);
  });
});

describe("POST /events/<event_id>/orders: validation, each failure with its code and text", () => {
  it("an unknown event is a 404 first, whatever else is wrong", async () => {
    const res = await post(987_654_321, { name: "", email: "bad", tickets: [{ v00000: 0 }], coupon: "X" });
    const err = await expectError(res, 404, "rest_event_invalid_id");
    expect(err.message).toBe("Event does not exist");
    const ok = await expectError(post(987_654_321, { name: "Ann", email: "ann@example.com", tickets: [{ v00000: 1 }] }), 404, "rest_event_invalid_id");
    expect(ok.message).toBe("Event does not exist");
  });

  it("an unknown event is a 404 before the body is looked at: invalid, empty or not JSON (decisions.md 14)", async () => {
    const notJson = call("POST", "/events/987654321/orders", { auth: null, body: "{not json" });
    for (const res of [
      post(987_654_321, {}),
      post(987_654_321, { tickets: "none", extra: 1 }),
      notJson,
      post(0, {}),
      call("POST", "/events/abc/orders", { auth: null, body: {} }),
    ]) {
      const err = await expectError(res, 404, "rest_event_invalid_id");
      expect(err.message).toBe("Event does not exist");
    }
    const form = await expectError(call("GET", "/events/987654321/order-form", { auth: null }), 404, "rest_event_invalid_id");
    expect(form.message).toBe("Event does not exist");
  });

  it("name and email: the documented length messages at every length, past any field cap (decisions.md 14)", async () => {
    const s = await shop();
    await expectRefused(s, orderBody(s, [1], { name: "n".repeat(1200) }), 400, "order_name_too_long", "Name is too long (Max 50 chars)");
    await expectRefused(s, orderBody(s, [1], { name: "n".repeat(100_000) }), 400, "order_name_too_long", "Name is too long (Max 50 chars)");
    const huge = `${"a".repeat(60)}@${`${"b".repeat(60)}.`.repeat(18)}com`;
    expect(huge.length).toBeGreaterThan(1000);
    await expectRefused(s, orderBody(s, [1], { email: huge }), 400, "order_email_too_long", "Emailaddress is too long (Max 100 chars)");
  });

  it("name and email: missing, invalid, too long", async () => {
    const s = await shop();
    const missing = "Mandatory input not available";
    await expectRefused(s, { tickets: lines(s.types, [1]) }, 400, "order_missing_input", missing);
    await expectRefused(s, orderBody(s, [1], { name: undefined }), 400, "order_missing_input", missing);
    await expectRefused(s, orderBody(s, [1], { email: undefined }), 400, "order_missing_input", missing);
    await expectRefused(s, orderBody(s, [1], { name: "   " }), 400, "order_missing_input", missing);
    await expectRefused(s, orderBody(s, [1], { email: "" }), 400, "order_missing_input", missing);
    await expectRefused(s, orderBody(s, [1], { email: "not-an-email" }), 400, "order_invalid_email", "Invalid emailaddress");
    await expectRefused(s, orderBody(s, [1], { email: "ann@" }), 400, "order_invalid_email", "Invalid emailaddress");
    await expectRefused(s, orderBody(s, [1], { name: "n".repeat(51) }), 400, "order_name_too_long", "Name is too long (Max 50 chars)");
    const long = `${"a".repeat(60)}@${"b".repeat(36)}.com`;
    expect(long).toHaveLength(101);
    await expectRefused(s, orderBody(s, [1], { email: long }), 400, "order_email_too_long", "Emailaddress is too long (Max 100 chars)");
    // At the limits: accepted.
    const atLimits = await placeOrder(s, [1], { name: "n".repeat(50), email: `${"a".repeat(60)}@${"b".repeat(35)}.com` });
    expect(atLimits.name).toHaveLength(50);
    expect(atLimits.email).toHaveLength(100);
  });

  it("name and email: control characters are refused after the usual trimming (decisions.md 14)", async () => {
    const s = await shop();
    for (const bad of ["\r\n", "\u0000", "\u007f", "\t", "\u001f"]) {
      const name = await expectRefused(s, orderBody(s, [1], { name: `Ann${bad}Bcc: evil@x.com` }), 400, "rest_invalid_param", "Name contains invalid characters");
      expect(name.data.params, JSON.stringify(bad)).toEqual({ name: "Name contains invalid characters" });
      const email = await expectRefused(s, orderBody(s, [1], { email: `ann${bad}@example.com` }), 400, "rest_invalid_param", "Invalid emailaddress");
      expect(email.data.params, JSON.stringify(bad)).toEqual({ email: "Invalid emailaddress" });
    }
    const trimmed = await placeOrder(s, [1], { name: "\r\n Ann Smith \n", email: "ann@example.com\r\n" });
    expect(trimmed).toMatchObject({ name: "Ann Smith", email: "ann@example.com" });
  });

  it("terms: refused unless terms_accepted is true when the event has terms; not asked otherwise", async () => {
    const s = await shop({ event: { terms: "I agree to the <b>terms</b>" } });
    const text = "You must agree to the terms";
    await expectRefused(s, orderBody(s), 400, "order_terms_not_accepted", text);
    await expectRefused(s, orderBody(s, [1], { terms_accepted: false }), 400, "order_terms_not_accepted", text);
    expect((await placeOrder(s, [1], { terms_accepted: true })).payment_status).toBe("open");
    const none = await shop();
    expect((await placeOrder(none)).payment_status).toBe("open");
  });

  it("outside the sale window: order_event_inactive naming the event", async () => {
    const soon = await shop({ event: { start_date: "2098-01-01 00:00:00", event_date: "2099-01-01 20:00:00" } });
    await expectRefused(soon, orderBody(soon), 400, "order_event_inactive", `Event ${soon.event.id} is not active`);
    const over = await shop({ event: { start_date: "2020-01-01 00:00:00", end_date: "2021-01-01 00:00:00", event_date: "2099-01-01 20:00:00" } });
    await expectRefused(over, orderBody(over), 400, "order_event_inactive", `Event ${over.event.id} is not active`);
    const past = await shop({ event: { event_date: "2021-01-01 20:00:00" } });
    await expectRefused(past, orderBody(past), 400, "order_event_inactive", `Event ${past.event.id} is not active`);
  });

  it("ticket lines: every type present, something ordered, counts within min (when above 0) and max", async () => {
    const s = await shop({
      types: [
        { name: "Adult", price: 10, minimum_to_order: 2, maximum_to_order: 4 },
        { name: "Child", price: 5 },
      ],
    });
    const [adult, child] = s.types;
    await expectRefused(s, { name: "Ann", email: "ann@example.com", tickets: [{ [adult!.id]: 2 }] }, 400, "order_missing_ticket_type", "Missing ticket type: Child");
    await expectRefused(s, { name: "Ann", email: "ann@example.com", tickets: [{ [child!.id]: 1 }] }, 400, "order_missing_ticket_type", "Missing ticket type: Adult");
    await expectRefused(s, orderBody(s, [0, 0]), 400, "order_no_tickets", "No tickets ordered");
    await expectRefused(s, orderBody(s, [1, 0]), 400, "order_wrong_amount", "Wrong amount for this ticket type: Adult");
    await expectRefused(s, orderBody(s, [5, 0]), 400, "order_wrong_amount", "Wrong amount for this ticket type: Adult");
    await expectRefused(s, orderBody(s, [0, 11]), 400, "order_wrong_amount", "Wrong amount for this ticket type: Child");
    // The minimum applies only when the type is ordered at all.
    expect((await placeOrder(s, [0, 1])).num_tickets).toBe(1);
    expect((await placeOrder(s, [2, 10])).num_tickets).toBe(12);
    expect((await placeOrder(s, [4, 0])).num_tickets).toBe(4);
  });

  it("input fields: required ones answered, every value legal", async () => {
    const s = await shop({
      fields: [
        { name: "Company", is_required: true },
        { name: "Size", type: "select", value: "S,M,L" },
        { name: "Code", min: "3", max: "5" },
        { name: "Day", type: "date", min: "2099-01-01", max: "2099-12-31" },
        { name: "Arrival", type: "time" },
        { name: "Attendee", is_personalised: true },
      ],
    });
    const [company, size, code, day, arrival, attendee] = s.fields;
    const withFields = (fields: Json) => orderBody(s, [1], { fields: { [company!.id]: "ACME", ...fields } });
    const required = "Required extra input fields not available";
    const illegal = "Illegal value extra input field";
    await expectRefused(s, orderBody(s), 400, "order_required_fields", required);
    await expectRefused(s, orderBody(s, [1], { fields: { [company!.id]: "   " } }), 400, "order_required_fields", required);
    await expectRefused(s, withFields({ [company!.id]: "x".repeat(51) }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ [size!.id]: "XL" }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ [code!.id]: "ab" }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ [code!.id]: "abcdef" }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ [day!.id]: "2098-12-31" }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ [day!.id]: "31-12-2099" }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ [arrival!.id]: "25:00" }), 400, "order_illegal_field_value", illegal);
    // A personalised field is asked after ordering, and an unknown id is no field at all.
    await expectRefused(s, withFields({ [attendee!.id]: "Bob" }), 400, "order_illegal_field_value", illegal);
    await expectRefused(s, withFields({ v99999: "x" }), 400, "order_illegal_field_value", illegal);

    const order = await placeOrder(s, [1], {
      fields: [{ [arrival!.id]: "19:30" }, { [company!.id]: "ACME" }, { [size!.id]: "M" }, { [code!.id]: "abc" }, { [day!.id]: "2099-05-05" }],
    });
    expect(order.input_fields.fields).toEqual([
      { name: "Company", value: "ACME" },
      { name: "Size", value: "M" },
      { name: "Code", value: "abc" },
      { name: "Day", value: "2099-05-05" },
      { name: "Arrival", value: "19:30" },
    ]);
  });

  it("password fields are checked but never stored nor returned", async () => {
    const s = await shop({ fields: [{ name: "Pin", type: "password", min: "6", is_required: true }, { name: "Company" }] });
    const [pin, company] = s.fields;
    await expectRefused(s, orderBody(s, [1], { fields: { [pin!.id]: "s3c" } }), 400, "order_illegal_field_value", "Illegal value extra input field");
    await expectRefused(s, orderBody(s, [1], { fields: { [company!.id]: "ACME" } }), 400, "order_required_fields", "Required extra input fields not available");
    const order = await placeOrder(s, [1], { fields: { [pin!.id]: "s3cr3t-pin", [company!.id]: "ACME" } });
    expect(JSON.stringify(order)).not.toContain("s3cr3t-pin");
    expect(order.input_fields.fields.filter((f: Json) => f.name !== "Pin")).toEqual([{ name: "Company", value: "ACME" }]);
    const row = (await ordersOf(s.event.id)).find((o) => o.id === order.id);
    expect(JSON.stringify(row)).not.toContain("s3cr3t-pin");
    const read = await expectJson(call("GET", `/admin/orders/${order.id}`), 200);
    expect(JSON.stringify(read)).not.toContain("s3cr3t-pin");
  });

  it("an unknown coupon is coupon_not_found, on events with and without coupons", async () => {
    const s = await shop({ event: { coupons_needed: true } });
    const code = unique("NOSUCH");
    await expectRefused(s, orderBody(s, [1], { coupon: code }), 400, "coupon_not_found", `Coupon code ${code} not found`);
    const plain = await shop();
    await expectRefused(plain, orderBody(plain, [1], { coupon: code }), 400, "coupon_not_found", `Coupon code ${code} not found`);
  });

  it("stock: 409 when a ticket type or the event has not enough left; open orders hold their units", async () => {
    const typed = await shop({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 3 }] });
    await placeOrder(typed, [2]);
    await expectRefused(typed, orderBody(typed, [2]), 409, "order_stock_unavailable", "Not enough stock available for ticket-type: Limited (1)");
    expect((await placeOrder(typed, [1])).num_tickets).toBe(1);
    await expectRefused(typed, orderBody(typed, [1]), 409, "order_stock_unavailable", "Not enough stock available for ticket-type: Limited (0)");

    const name = unique("Stocked ");
    const evented = await shop({ event: { event_name: name, stock: 2 } });
    await placeOrder(evented, [2]);
    await expectRefused(evented, orderBody(evented, [1]), 409, "order_event_stock_unavailable", `No more stock available for "${name}"`);
  });

  it("answers the earliest failing rule when several fail", async () => {
    const s = await shop({
      event: { terms: "Terms apply" },
      types: [
        { name: "Adult", price: 10, minimum_to_order: 2, maximum_to_order: 4, stock_control: true, stock: 0 },
        { name: "Child", price: 5 },
      ],
      fields: [
        { name: "Company", is_required: true },
        { name: "Size", type: "select", value: "S,M" },
      ],
    });
    const [adult] = s.types;
    const [company, size] = s.fields;
    const accepted = { terms_accepted: true };
    const good = { [company!.id]: "ACME" };
    const cases: [Json, string][] = [
      [{ name: "", email: "bad", tickets: [{ [adult!.id]: 0 }], coupon: "X" }, "order_missing_input"],
      [orderBody(s, [0, 0], { email: "bad", name: "n".repeat(51) }), "order_invalid_email"],
      [orderBody(s, [0, 0], { name: "n".repeat(51), email: `${"a".repeat(90)}@example.com` }), "order_name_too_long"],
      [orderBody(s, [0, 0], { email: `${"a".repeat(90)}@example.com` }), "order_email_too_long"],
      [orderBody(s, [0, 0], { event_ids: [s.event.id] }), "order_terms_not_accepted"],
      [orderBody(s, [0, 0], { ...accepted, event_ids: [s.event.id] }), "order_invalid_event_ids"],
      [{ name: "Ann", email: "ann@example.com", tickets: [{ [adult!.id]: 1 }], ...accepted }, "order_missing_ticket_type"],
      [orderBody(s, [0, 0], accepted), "order_no_tickets"],
      [orderBody(s, [1, 0], { ...accepted, coupon: "X" }), "order_wrong_amount"],
      [orderBody(s, [0, 1], { ...accepted, coupon: "X" }), "order_required_fields"],
      [orderBody(s, [0, 1], { ...accepted, coupon: "X", fields: { ...good, [size!.id]: "XL" } }), "order_illegal_field_value"],
      [orderBody(s, [2, 0], { ...accepted, coupon: "X", fields: good }), "coupon_not_found"],
      [orderBody(s, [2, 0], { ...accepted, fields: good }), "order_stock_unavailable"],
    ];
    for (const [body, code] of cases) {
      const res = await post(s.event.id, body);
      const err = await expectJson(res, code === "order_stock_unavailable" ? 409 : 400);
      expect(err.code, JSON.stringify(body)).toBe(code);
    }
    expect(await ordersOf(s.event.id)).toEqual([]);

    // The sale window comes after terms and before the group choice and the ticket lines.
    const closed = await shop({ event: { terms: "Terms apply", start_date: "2098-01-01 00:00:00", event_date: "2099-01-01 20:00:00" } });
    expect((await expectJson(post(closed.event.id, orderBody(closed, [0])), 400)).code).toBe("order_terms_not_accepted");
    expect((await expectJson(post(closed.event.id, orderBody(closed, [0], { terms_accepted: true, event_ids: [1] })), 400)).code).toBe("order_event_inactive");
  });

  it("refuses malformed bodies as rest_invalid_param and unknown fields", async () => {
    const s = await shop();
    await expectError(post(s.event.id, { ...orderBody(s), color: "red" }), 400, "rest_invalid_param");
    await expectError(post(s.event.id, { ...orderBody(s), tickets: [{ [s.types[0]!.id]: -1 }] }), 400, "rest_invalid_param");
    await expectError(post(s.event.id, { ...orderBody(s), tickets: [{ v12345: 1 }] }), 400, "rest_invalid_param");
    expect(await ordersOf(s.event.id)).toEqual([]);
  });

  it("a tickets of another shape is refused naming the expected one (docs/ordering.md 'Dashboard and customer orders')", async () => {
    const s = await shop();
    const id = s.types[0]!.id as string;
    for (const tickets of [[{ id: 3, quantity: 2 }], [{ id, quantity: 2 }], { [id]: 2 }, [[id, 2]], [{ [id]: "2" }]]) {
      const err = await expectError(post(s.event.id, { ...orderBody(s), tickets }), 400, "rest_invalid_param");
      expect(err.data.params, JSON.stringify(tickets)).toStrictEqual({ tickets: 'must be a list of {"<ticket type id>": count} maps, such as [{"v05ef7": 2}]' });
    }
    expect(await ordersOf(s.event.id)).toEqual([]);
    expect((await placeOrder(s, [2])).num_tickets).toBe(2);
  });
});

describe("group orders (event_ids)", () => {
  async function group(type: 1 | 2, dates = 2, extra: Json[] = []) {
    const g = unique("G");
    const shops: Shop[] = [];
    for (let i = 0; i < dates; i++) {
      shops.push(
        await shop({
          event: { group_type: type, event_group: g, event_date: `2099-10-0${i + 1} 20:00:00`, ...extra[i] },
          types: [{ name: "Day", price: 10, maximum_to_order: 0 }],
          fields: [{ name: "Company" }],
        }),
      );
    }
    return { g, shops };
  }

  it("type 2 on two dates: two orders placed together, one payment; paying pays both", async () => {
    const { shops } = await group(2);
    const [first, second] = shops as [Shop, Shop];
    const body = orderBody(first, [2], { event_ids: [second.event.id, first.event.id], fields: { [first.fields[0]!.id]: "ACME" } });
    const res = await post(second.event.id, { ...body, tickets: lines(second.types, [2]), fields: { [second.fields[0]!.id]: "ACME" } });
    const order = await expectJson(res, 201);

    // The answer is the order of the lowest event id; group_orders lists both.
    expect(order.event_id).toBe(first.event.id);
    expect(order.group_orders).toHaveLength(2);
    expect(order.group_orders[0]).toBe(order.id);
    const [a, b] = [...(await ordersOf(first.event.id)), ...(await ordersOf(second.event.id))];
    expect([a!.id, b!.id]).toEqual(order.group_orders);
    for (const row of [a!, b!]) {
      expect(row).toMatchObject({ paymentStatus: "open", paymentId: order.payment_id, numTickets: 2, totalCents: 2000 });
      expect(row.fields).toEqual([{ id: expect.any(String), name: "Company", value: "ACME" }]);
    }
    expect(order.payment.checkout_url).toBe(`${BASE}/pay/test/${a!.uid}`);
    const page = await (await open(order.payment.checkout_url)).text();
    expect(page).toContain("2 order(s)");
    expect(page).toContain("40.00 EUR");

    const paid = await decide(order.payment.checkout_url, "pay");
    expect(paid.status).toBe(303);
    expect(paid.headers.get("Location")).toBe(`${BASE}/orders/${a!.id}/${a!.uid}/status`);
    for (const row of [a!, b!]) {
      expect(await status(row)).toMatchObject({ payment_status: "paid", tickets_ready: true });
      expect(await ticketsOf(row.id)).toHaveLength(2);
    }
    expect(await soldOf(first)).toEqual({ event: 2, types: [2] });
    expect(await soldOf(second)).toEqual({ event: 2, types: [2] });
  });

  it("type 2: cancelling the payment cancels every order of the group and gives all units back", async () => {
    const { shops } = await group(2, 2, [{ stock: 5 }, { stock: 5 }]);
    const [first, second] = shops as [Shop, Shop];
    const order = await placeOrder(first, [3], { event_ids: [first.event.id, second.event.id] });
    expect(await remaining(first.event.id)).toMatchObject({ event: 2 });
    expect(await remaining(second.event.id)).toMatchObject({ event: 2 });
    await decide(order.payment.checkout_url, "cancel");
    for (const id of order.group_orders) {
      const row = (await db.select().from(orders).where(eq(orders.id, id)).get())!;
      expect(row.paymentStatus).toBe("canceled");
    }
    expect(await remaining(first.event.id)).toMatchObject({ event: 5 });
    expect(await remaining(second.event.id)).toMatchObject({ event: 5 });
  });

  it("type 1 takes exactly one date: the order is placed on the chosen date", async () => {
    const { shops } = await group(1);
    const [first, second] = shops as [Shop, Shop];
    const order = await placeOrder(first, [1], { event_ids: [second.event.id] });
    expect(order.event_id).toBe(second.event.id);
    expect(order.group_orders).toEqual([order.id]);
    expect(await ordersOf(first.event.id)).toEqual([]);
    expect(await ordersOf(second.event.id)).toHaveLength(1);
    // Without event_ids the path event is the date.
    expect((await placeOrder(first)).event_id).toBe(first.event.id);
  });

  it("refuses invalid event ids with order_invalid_event_ids, holding nothing anywhere", async () => {
    const { g, shops } = await group(1);
    const [first, second] = shops as [Shop, Shop];
    const text = "Invalid event ids";
    const all = [first.event.id, second.event.id];
    await expectRefused(first, orderBody(first, [1], { event_ids: [first.event.id, second.event.id] }), 400, "order_invalid_event_ids", text, all);

    const other = await group(1);
    const foreign = other.shops[0]!;
    await expectRefused(first, orderBody(first, [1], { event_ids: [foreign.event.id] }), 400, "order_invalid_event_ids", text, all);
    await expectRefused(first, orderBody(first, [1], { event_ids: [987_654_321] }), 400, "order_invalid_event_ids", text, all);
    const pass = await shop({ event: { group_type: 3, event_group: g } });
    await expectRefused(first, orderBody(first, [1], { event_ids: [pass.event.id] }), 400, "order_invalid_event_ids", text, all);

    const plain = await shop();
    await expectRefused(plain, orderBody(plain, [1], { event_ids: [plain.event.id] }), 400, "order_invalid_event_ids", text);

    const two = await group(2);
    const [x, y] = two.shops as [Shop, Shop];
    await expectRefused(x, orderBody(x, [1], { event_ids: [x.event.id, foreign.event.id] }), 400, "order_invalid_event_ids", text, [x.event.id, y.event.id]);
    // A date lacking the ordered type name.
    const odd = await shop({ event: { group_type: 2, event_group: two.g }, types: [{ name: "Night", price: 5 }] });
    await expectRefused(x, orderBody(x, [1], { event_ids: [x.event.id, odd.event.id] }), 400, "order_invalid_event_ids", text, [x.event.id, odd.event.id]);
  });

  it("a chosen date outside its sale window is order_event_inactive", async () => {
    const { shops } = await group(2, 2, [{}, { start_date: "2098-01-01 00:00:00" }]);
    const [first, second] = shops as [Shop, Shop];
    await expectRefused(
      first,
      orderBody(first, [1], { event_ids: [first.event.id, second.event.id] }),
      400,
      "order_event_inactive",
      `Event ${second.event.id} is not active`,
      [first.event.id, second.event.id],
    );
  });

  it("when one date has no stock left nothing is placed and the other date's hold is released", async () => {
    const { shops } = await group(2, 2, [{}, { stock: 1 }]);
    const [first, second] = shops as [Shop, Shop];
    await expectRefused(
      first,
      orderBody(first, [2], { event_ids: [first.event.id, second.event.id] }),
      409,
      "order_event_stock_unavailable",
      `No more stock available for "${second.event.event_name}"`,
      [first.event.id, second.event.id],
    );
    expect((await remaining(first.event.id))?.types).toEqual({ [first.types[0]!.id]: null });
  });
});

describe("Idempotency-Key on POST /events/<event_id>/orders", () => {
  it("the same key and body replays the first answer: one order, same uid and checkout url", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, stock_control: true, stock: 10 }] });
    const key = unique("idem-");
    const body = orderBody(s, [2]);
    const first = await post(s.event.id, body, { headers: { "Idempotency-Key": key } });
    const a = await expectJson(first, 201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    const second = await post(s.event.id, body, { headers: { "Idempotency-Key": key } });
    const b = await expectJson(second, 201);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(second.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(b).toStrictEqual(a);
    expect(b.payment.checkout_url).toBe(a.payment.checkout_url);

    // The same body with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const third = await post(s.event.id, reordered, { headers: { "Idempotency-Key": key } });
    expect((await expectJson(third, 201)).uid).toBe(a.uid);
    expect(third.headers.get("Idempotent-Replayed")).toBe("true");

    expect(await ordersOf(s.event.id)).toHaveLength(1);
    expect(await remaining(s.event.id)).toMatchObject({ types: { [s.types[0]!.id]: 8 } });
  });

  it("scope is the concrete path plus the key (decisions.md 15): the same key on another event's order route is another request", async () => {
    const first = await shop();
    const second = await shop();
    const key = unique("idem-");
    const a = await expectJson(post(first.event.id, orderBody(first, [1]), { headers: { "Idempotency-Key": key } }), 201);
    // Another body on another event: a new order there, not 409 (the key is not shared by every event's route).
    const res = await post(second.event.id, orderBody(second, [2]), { headers: { "Idempotency-Key": key } });
    const b = await expectJson(res, 201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(b.event_id).toBe(second.event.id);
    expect(await ordersOf(second.event.id)).toHaveLength(1);
    expect(await ordersOf(first.event.id)).toHaveLength(1);
    // Each route still replays its own answer.
    const againA = await post(first.event.id, orderBody(first, [1]), { headers: { "Idempotency-Key": key } });
    expect((await expectJson(againA, 201)).uid).toBe(a.uid);
    expect(againA.headers.get("Idempotent-Replayed")).toBe("true");
    const againB = await post(second.event.id, orderBody(second, [2]), { headers: { "Idempotency-Key": key } });
    expect((await expectJson(againB, 201)).uid).toBe(b.uid);
    expect(againB.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("scope is who sent the key too (decisions.md 15): the API key and the ordering key never share an answer", async () => {
    const s = await shop();
    const key = unique("idem-");
    const path = `/events/${s.event.id}/orders`;
    const headers = { "Idempotency-Key": key, "CF-Connecting-IP": `198.51.100.${(Date.now() % 200) + 1}` };
    const body = orderBody(s, [1]);
    const viaApi = await expectJson(callWith(SHOP, request("POST", path, { auth: null, body, headers })), 201);
    // The same key and body from a browser with the ordering key: its own order, not the server's answer replayed.
    const first = await callWith(SHOP, request("POST", path, { auth: null, key: "pk_test", body, headers }));
    const viaPk = await expectJson(first, 201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect(viaPk.uid).not.toBe(viaApi.uid);
    // Another body from the ordering key is not "reused" against the API key's request either.
    const keyB = { ...headers, "Idempotency-Key": `${key}-b` };
    await expectJson(callWith(SHOP, request("POST", path, { auth: null, key: "pk_test", body, headers: keyB })), 201);
    const other = await callWith(SHOP, request("POST", path, { auth: null, body: orderBody(s, [2]), headers: keyB }));
    await expectJson(other, 201);
    expect(other.headers.get("Idempotent-Replayed")).toBeNull();
    // Each caller replays its own.
    const replayPk = await callWith(SHOP, request("POST", path, { auth: null, key: "pk_test", body, headers }));
    expect((await expectJson(replayPk, 201)).uid).toBe(viaPk.uid);
    expect(replayPk.headers.get("Idempotent-Replayed")).toBe("true");
    const replayApi = await callWith(SHOP, request("POST", path, { auth: null, body, headers }));
    expect((await expectJson(replayApi, 201)).uid).toBe(viaApi.uid);
    expect(replayApi.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await ordersOf(s.event.id)).toHaveLength(4);
  });

  it("a retry after a crash that lost the first answer gets the committed order, never a second one (docs/reliability.md 'Guarantees')", async () => {
    const s = await shop({ types: [{ name: "Regular", price: 10, stock_control: true, stock: 10 }] });
    const key = unique("idem-crash-");
    const body = orderBody(s, [2]);
    const first = await expectJson(post(s.event.id, body, { headers: { "Idempotency-Key": key } }), 201);
    // The runtime died after the order's batch and its checkout, before the answer was kept: the key stays claimed.
    const forget = () => db.update(idempotencyKeys).set({ status: null, response: null }).where(eq(idempotencyKeys.key, key));
    await forget();
    const retried = await post(s.event.id, body, { headers: { "Idempotency-Key": key } });
    expect(await expectJson(retried, 201)).toStrictEqual(first);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await ordersOf(s.event.id)).toHaveLength(1);
    // Long after (the claim counts as abandoned), still the same order.
    await forget();
    await db
      .update(idempotencyKeys)
      .set({ createdAt: Math.floor(Date.now() / 1000) - 3600 })
      .where(eq(idempotencyKeys.key, key));
    expect((await expectJson(post(s.event.id, body, { headers: { "Idempotency-Key": key } }), 201)).uid).toBe(first.uid);
    expect(await ordersOf(s.event.id)).toHaveLength(1);
  });

  it("a key claimed by a request that died before committing anything is taken over after two minutes", async () => {
    const s = await shop();
    const key = unique("idem-dead-");
    const body = orderBody(s, [1]);
    const first = await expectJson(post(s.event.id, body, { headers: { "Idempotency-Key": key } }), 201);
    // As if that request had died before its batch: no order under the key, the claim old.
    await db.delete(orders).where(eq(orders.id, first.id));
    await db
      .update(idempotencyKeys)
      .set({ status: null, response: null, createdAt: Math.floor(Date.now() / 1000) - 3600 })
      .where(eq(idempotencyKeys.key, key));
    const again = await expectJson(post(s.event.id, body, { headers: { "Idempotency-Key": key } }), 201);
    expect(again.uid).not.toBe(first.uid);
  });

  it("the same key with another body is 409 idempotency_key_reused; another key places another order", async () => {
    const s = await shop();
    const key = unique("idem-");
    const a = await expectJson(post(s.event.id, orderBody(s, [1]), { headers: { "Idempotency-Key": key } }), 201);
    const err = await expectError(post(s.event.id, orderBody(s, [2]), { headers: { "Idempotency-Key": key } }), 409, "idempotency_key_reused");
    expect(err.message.length).toBeGreaterThan(0);
    expect(await ordersOf(s.event.id)).toHaveLength(1);
    const b = await expectJson(post(s.event.id, orderBody(s, [1]), { headers: { "Idempotency-Key": unique("idem-") } }), 201);
    expect(b.uid).not.toBe(a.uid);
    expect(await ordersOf(s.event.id)).toHaveLength(2);
  });

  it("a 4xx answer is replayed too", async () => {
    const s = await shop();
    const key = unique("idem-");
    const body = orderBody(s, [0]);
    await expectError(post(s.event.id, body, { headers: { "Idempotency-Key": key } }), 400, "order_no_tickets");
    const again = await post(s.event.id, body, { headers: { "Idempotency-Key": key } });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    await expectError(again, 400, "order_no_tickets");
  });
});

describe("GET /orders/<order_id>/<uid>/status", () => {
  it("needs no key (and checks none sent); a wrong uid or id is 404", async () => {
    const s = await shop();
    const order = await placeOrder(s);
    const other = await placeOrder(s);
    expect(await expectJson(call("GET", statusPath(order), { key: null, auth: null }), 200)).toStrictEqual({
      payment_status: "open",
      tickets_ready: false,
      download_url: "",
    });
    expect((await expectJson(call("GET", statusPath(order), { key: "wrong", auth: null }), 200)).payment_status).toBe("open");
    await expectError(call("GET", `/orders/${order.id}/${other.uid}/status`, { key: null, auth: null }), 404, "rest_order_invalid_id");
    await expectError(call("GET", `/orders/${order.id}/${"A".repeat(40)}/status`, { key: null, auth: null }), 404, "rest_order_invalid_id");
    await expectError(call("GET", `/orders/${order.id}/short/status`, { key: null, auth: null }), 404, "rest_order_invalid_id");
    await expectError(call("GET", `/orders/987654321/${order.uid}/status`, { key: null, auth: null }), 404, "rest_order_invalid_id");
  });
});

describe('links with PUBLIC_URL (decisions.md 15 "Links in emails and pages")', () => {
  const PUBLIC = { PUBLIC_URL: "https://tickets.example.com" };
  const PUBLIC_BASE = "https://tickets.example.com/ticketing/v1";
  /** The same request as sent to another host (a forged or stray `Host`). */
  const at = (origin: string, req: Request) => {
    const url = new URL(req.url);
    return new Request(`${origin}${url.pathname}${url.search}`, req);
  };

  it("PUBLIC_URL wins over the request's host: checkout url, the pay page's redirect, the email's links, the download url", async () => {
    const s = await shop({ event: { emails_needed: true, email: { subject: "Your tickets", body: "Download: {%TICKETS%}" } } });
    const forged = "http://evil.example";
    const order = await expectJson(callWith(PUBLIC, at(forged, request("POST", `/events/${s.event.id}/orders`, { auth: null, body: orderBody(s) }))), 201);
    expect(order.payment.checkout_url).toBe(`${PUBLIC_BASE}/pay/test/${order.uid}`);

    const pay = new Request(`${forged}/ticketing/v1/pay/test/${order.uid}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "action=pay",
      redirect: "manual",
    });
    const paid = await callWith(PUBLIC, pay);
    expect(paid.status).toBe(303);
    expect(paid.headers.get("Location")).toBe(`${PUBLIC_BASE}${statusPath(order)}`);

    const mails = await db.select().from(emails).where(eq(emails.orderId, order.id));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.body).toContain(`${PUBLIC_BASE}/tickets/${order.uid}`);
    expect(mails[0]!.body).not.toContain("evil.example");

    const shown = await expectJson(callWith(PUBLIC, at(forged, request("GET", statusPath(order), { key: null, auth: null }))), 200);
    expect(shown.download_url).toBe(`${PUBLIC_BASE}/tickets/${order.uid}`);
  });

  it("without PUBLIC_URL (local development) links follow the request's host", async () => {
    const s = await shop();
    const local = "http://localhost:8787";
    const order = await expectJson(
      callWith({ PUBLIC_URL: undefined }, at(local, request("POST", `/events/${s.event.id}/orders`, { auth: null, body: orderBody(s) }))),
      201,
    );
    expect(order.payment.checkout_url).toBe(`${local}/ticketing/v1/pay/test/${order.uid}`);
  });
});

describe("keys and CORS on the shop-front routes", () => {
  it("customer orders take the API key, and the ordering key when set; no key or an unknown key is 401", async () => {
    const s = await shop();
    const path = `/events/${s.event.id}/orders`;
    await expectError(post(s.event.id, orderBody(s), { key: null }), 401, "rest_forbidden_api_key");
    await expectError(post(s.event.id, orderBody(s), { key: "wrong" }), 401, "rest_forbidden_api_key");
    await expectError(post(s.event.id, orderBody(s), { key: "pk_test" }), 401, "rest_forbidden_api_key");
    expect(await ordersOf(s.event.id)).toEqual([]);

    const viaPk = await expectJson(callWith(SHOP, request("POST", path, { auth: null, key: "pk_test", body: orderBody(s) })), 201);
    expect(viaPk.payment_status).toBe("open");
    await expectJson(callWith(SHOP, request("POST", path, { auth: null, body: orderBody(s) })), 201);
    await expectError(callWith(SHOP, request("POST", path, { auth: null, key: "pk_other", body: orderBody(s) })), 401, "rest_forbidden_api_key");
    expect(await ordersOf(s.event.id)).toHaveLength(2);
  });

  it("the ordering key opens nothing else: admin routes answer 401 even with valid credentials", async () => {
    const s = await shop({ event: { add_dashboard_orders_needed: true } });
    await expectError(callWith(SHOP, request("GET", "/admin/events", { key: "pk_test" })), 401, "rest_forbidden_api_key");
    await expectError(callWith(SHOP, request("GET", `/admin/events/${s.event.id}`, { key: "pk_test" })), 401, "rest_forbidden_api_key");
    await expectError(
      callWith(
        SHOP,
        request("POST", "/admin/orders", { key: "pk_test", body: { event_id: s.event.id, name: "A", email: "a@example.com", tickets: lines(s.types, [1]) } }),
      ),
      401,
      "rest_forbidden_api_key",
    );
    expect(await ordersOf(s.event.id)).toEqual([]);
    // The same call with the API key works, so the 401 was the key.
    await expectJson(callWith(SHOP, request("GET", `/admin/events/${s.event.id}`)), 200);
  });

  it("the status route and the checkout page need no key under a shop-front configuration either", async () => {
    const s = await shop();
    const order = await expectJson(callWith(SHOP, request("POST", `/events/${s.event.id}/orders`, { auth: null, key: "pk_test", body: orderBody(s) })), 201);
    await expectJson(callWith(SHOP, request("GET", statusPath(order), { auth: null, key: null })), 200);
    const page = await callWith(SHOP, new Request(order.payment.checkout_url));
    expect(page.status).toBe(200);
  });

  it("a preflight from an allowed origin is 204 with Access-Control-Allow-Origin and needs no key; others get no allow-origin", async () => {
    const s = await shop();
    const path = `/events/${s.event.id}/orders`;
    const preflight = (origin: string) =>
      request("OPTIONS", path, {
        auth: null,
        key: null,
        headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-evt-api-key,idempotency-key" },
      });
    const ok = await callWith(SHOP, preflight("https://shop.example"));
    expect(ok.status).toBe(204);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    expect(ok.headers.get("Access-Control-Allow-Methods") ?? "").toContain("POST");
    const allowed = (ok.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase();
    for (const h of ["content-type", "x-evt-api-key", "idempotency-key"]) expect(allowed).toContain(h);

    const denied = await callWith(SHOP, preflight("https://evil.example"));
    expect(denied.headers.get("Access-Control-Allow-Origin")).toBeNull();
    // Without CORS_ORIGINS no origin is allowed.
    const none = await callWith({}, preflight("https://shop.example"));
    expect(none.headers.get("Access-Control-Allow-Origin")).toBeNull();

    // The order itself from the shop: allow-origin on the answer, and Location readable by the page.
    const res = await callWith(SHOP, request("POST", path, { auth: null, key: "pk_test", body: orderBody(s), headers: { Origin: "https://shop.example" } }));
    expect(res.status).toBe(201);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    expect((res.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase()).toContain("location");
    const evil = await callWith(SHOP, request("POST", path, { auth: null, key: "pk_test", body: orderBody(s), headers: { Origin: "https://evil.example" } }));
    expect(evil.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("the status route answers the shop's thank-you page across origins too: allowed origins only, no key", async () => {
    const order = await placeOrder(await shop());
    const status = (origin: string) => callWith(SHOP, request("GET", statusPath(order), { auth: null, key: null, headers: { Origin: origin } }));
    const ok = await status("https://shop.example");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    expect((await status("https://evil.example")).headers.get("Access-Control-Allow-Origin")).toBeNull();
    const preflight = await callWith(
      SHOP,
      request("OPTIONS", statusPath(order), { auth: null, key: null, headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "GET" } }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
  });
});

describe("late payment through the checkout page", () => {
  /** The order's payment deadline has passed and the expiry ran (as the object's alarm would have it). */
  async function expire(order: Json, eventId: number) {
    await settled(eventId);
    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, order.id));
    await expireOrder(depsFromEnv(env), order.uid, eventId);
    expect((await status(order)).payment_status).toBe("expired");
  }

  it("with stock left: paid with tickets", async () => {
    const s = await shop({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 2, show_remaining: true }] });
    const order = await placeOrder(s, [2]);
    await expire(order, s.event.id);
    expect(await formRemaining(s)).toBe(2);
    const res = await decide(order.payment.checkout_url, "pay");
    expect(res.status).toBe(303);
    expect(await status(order)).toMatchObject({ payment_status: "paid", tickets_ready: true });
    expect(await ticketsOf(order.id)).toHaveLength(2);
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    expect(await formRemaining(s)).toBe(0);
  });

  it("without stock left: refunded, no tickets, and the sale of the other customer stands", async () => {
    const s = await shop({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 2, show_remaining: true }] });
    const late = await placeOrder(s, [2]);
    await expire(late, s.event.id);
    const other = await placeOrder(s, [2], { email: "bob@example.com" });
    await decide(other.payment.checkout_url, "pay");
    await decide(late.payment.checkout_url, "pay");
    expect(await status(late)).toStrictEqual({ payment_status: "refunded", tickets_ready: false, download_url: "" });
    expect(await ticketsOf(late.id)).toEqual([]);
    expect((await status(other)).payment_status).toBe("paid");
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    expect(await formRemaining(s)).toBe(0);
    const entries = await db.select().from(logs).where(eq(logs.orderId, late.id));
    expect(entries.map((e) => e.logType)).toEqual(["Payment"]);
    expect(entries[0]!.description).toContain("refunded");
  });
});

describe("the test provider's page is matched like a provider's notice (decisions.md 15 \"Payments are matched, not trusted\")", () => {
  const logsOf = (orderId: number) => db.select().from(logs).where(eq(logs.orderId, orderId));

  it("stores the checkout it started; a group whose stored checkout is not the page's own pays and cancels nothing, is logged as Payment, and redirects as usual", async () => {
    const s = await shop({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 5, show_remaining: true }] });
    const order = await placeOrder(s, [2]);
    const stored = (await ordersOf(s.event.id))[0]!;
    expect(stored.checkoutId).toBe(order.payment_id);
    expect(stored.checkoutId).toMatch(/^test_/);

    // The group's stored checkout is another one than the page's (as if another checkout had been started for it).
    await db.update(orders).set({ checkoutId: "test_AnotherCheckout" }).where(eq(orders.id, order.id));
    for (const action of ["pay", "cancel"]) {
      const res = await decide(order.payment.checkout_url, action);
      expect(res.status).toBe(303);
      expect(res.headers.get("Location")).toBe(`${BASE}${statusPath(order)}`);
      expect(await status(order)).toStrictEqual({ payment_status: "open", tickets_ready: false, download_url: "" });
    }
    expect(await ticketsOf(order.id)).toEqual([]);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
    expect(await formRemaining(s)).toBe(3);
    const entries = await logsOf(order.id);
    expect(entries.map((e) => e.logType)).toEqual(["Payment", "Payment"]);
    expect(entries[0]!.description).toMatch(/checkout|session/i);

    // Its own checkout again: the page pays it, once.
    await db.update(orders).set({ checkoutId: stored.checkoutId }).where(eq(orders.id, order.id));
    await decide(order.payment.checkout_url, "pay");
    await decide(order.payment.checkout_url, "pay");
    expect((await status(order)).payment_status).toBe("paid");
    expect(await ticketsOf(order.id)).toHaveLength(2);
    expect(await logsOf(order.id)).toHaveLength(2);
  });
});

describe("an open order in the event object", () => {
  it("an order whose stock is held shows in the object as taken with the payment deadline", async () => {
    const s = await shop({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 4 }] });
    const order = await placeOrder(s, [1]);
    const rs = await settled(s.event.id);
    const row = (await db
      .select()
      .from(orders)
      .where(and(eq(orders.id, order.id), eq(orders.eventId, s.event.id)))
      .get())!;
    expect(rs).toEqual([{ uid: order.uid, state: "taken", deadline: row.expiresAt! * 1000, eventUnits: 1, typeUnits: { [s.types[0]!.id]: 1 } }]);
  });
});

describe("at most 1000 tickets an order (decisions.md 15)", () => {
  const TOO_MANY = "An order holds at most 1000 tickets";

  async function expectTooMany(s: Shop, body: Json, eventIds?: number[]) {
    const err = await expectRefused(s, body, 400, "rest_invalid_param", TOO_MANY, eventIds);
    expect(err.data.params).toEqual({ tickets: TOO_MANY });
    expect(await soldOf(s)).toEqual({ event: 0, types: s.types.map(() => 0) });
  }

  it("refuses 1,001 units whatever maximum_to_order says, across types too, and takes 1,000", async () => {
    const s = await shop({
      types: [
        { name: "Regular", price: 10, maximum_to_order: 0 },
        { name: "Crew", price: 0, maximum_to_order: 5000 },
      ],
    });
    await expectTooMany(s, orderBody(s, [1001, 0]));
    await expectTooMany(s, orderBody(s, [0, 1001]));
    await expectTooMany(s, orderBody(s, [600, 401]));
    await expectTooMany(s, orderBody(s, [10_000, 0]));
    const placed = await placeOrder(s, [600, 400]);
    expect(placed.num_tickets).toBe(1000);
  });

  it("counts a free order's tickets as the order issues them (no hold, no ticket when refused)", async () => {
    const s = await shop({ types: [{ name: "Free", price: 0, maximum_to_order: 0 }] });
    await expectTooMany(s, orderBody(s, [1001]));
    expect(await ordersOf(s.event.id)).toEqual([]);
  });

  it("counts a passe-partout's tickets per child event: 501 units with two children is past 1,000", async () => {
    const g = unique("PP");
    const days = [await shop({ event: { group_type: 1, event_group: g } }), await shop({ event: { group_type: 1, event_group: g } })];
    const pass = await shop({ event: { group_type: 3, event_group: g }, types: [{ name: "Pass", price: 50, maximum_to_order: 0 }] });
    await expectTooMany(pass, orderBody(pass, [501]), [pass.event.id, ...days.map((d) => d.event.id)]);
    await placeOrder(pass, [300]);
  });

  it("counts a group order's dates together: they are placed, paid and issued as one", async () => {
    const g = unique("G");
    const dates: Shop[] = [];
    for (const day of ["01", "02"]) {
      dates.push(
        await shop({ event: { group_type: 2, event_group: g, event_date: `2099-11-${day} 20:00:00` }, types: [{ name: "Day", price: 10, maximum_to_order: 0 }] }),
      );
    }
    const [first, second] = dates as [Shop, Shop];
    const ids = [first.event.id, second.event.id];
    await expectTooMany(first, orderBody(first, [501], { event_ids: ids }), ids);
    const placed = await placeOrder(first, [500], { event_ids: ids });
    expect(placed.group_orders).toHaveLength(2);
  });
});
