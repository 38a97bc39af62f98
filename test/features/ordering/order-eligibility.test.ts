import { env, exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { logs, orderClaims, orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import { depsFromEnv } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { ADMIN, API_KEY, BASE, basic, call, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { programStub, receivedBy, stubUrl, type StubBehaviour } from "../../helpers/stubs";

/**
 * Who may order (decisions.md 5.4, 5.7 and 13 "Orders"): unique users (one live order per email per event, or across
 * `unique_event_ids`), the email list with its per-person cap, and the outbound REST eligibility check
 * (ticketing-api.md "Outbound eligibility check"). Claims are decided inside the order's D1 batch, so parallel
 * orders by one person cannot slip past a rule. Storage is shared by the tests of this file: each makes its own events.
 */

type Json = Record<string, any>;

interface Shop {
  event: Json;
  types: Json[];
  fields: Json[];
}

async function shop(options: { event?: Json; types?: Json[]; fields?: Json[] } = {}): Promise<Shop> {
  const event = await createEvent({ event_name: unique("Who "), ...options.event });
  const types: Json[] = [];
  for (const t of options.types ?? [{ name: "Regular", price: 10, maximum_to_order: 0 }]) types.push(await createTicketType(event.id, t));
  const fields: Json[] = [];
  for (const f of options.fields ?? []) fields.push(await createInputField(event.id, f));
  return { event, types, fields };
}

const lines = (s: Shop, counts: number[]) => s.types.map((t, i) => ({ [t.id]: counts[i] ?? 0 }));

function body(s: Shop, counts: number[] = [1], extra: Json = {}): Json {
  return { name: "Ann Smith", email: "ann@example.com", tickets: lines(s, counts), ...extra };
}

const post = (eventId: number, b: unknown) => call("POST", `/events/${eventId}/orders`, { body: b, auth: null });

async function place(s: Shop, counts: number[] = [1], extra: Json = {}): Promise<Json> {
  return expectJson(post(s.event.id, body(s, counts, extra)), 201);
}

const ordersOf = (eventId: number) => db.select().from(orders).where(eq(orders.eventId, eventId)).orderBy(orders.id);
const claimsOf = (eventId: number) => db.select().from(orderClaims).where(eq(orderClaims.eventId, eventId)).orderBy(orderClaims.id);
const eligibilityLogs = (eventId: number) =>
  db
    .select()
    .from(logs)
    .where(and(eq(logs.eventId, eventId), eq(logs.logType, "Eligibility")));
const reservations = async (eventId: number) => (await eventObject(env, eventId).snapshot()).reservations;
const remaining = (eventId: number) => eventObject(env, eventId).remaining();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function soldOf(s: Shop): Promise<{ event: number; types: number[] }> {
  const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${s.event.id}/ticket-types`), 200);
  return { event: event.sold, types: s.types.map((t) => types.find((x) => x.id === t.id)!.sold) };
}

/** Polls until every reservation of the event's object is taken (confirms go out after the answer). */
async function settled(eventId: number) {
  for (let i = 0; i < 100; i++) {
    const rs = await reservations(eventId);
    if (rs.every((r) => r.state === "taken")) return rs;
    await sleep(30);
  }
  return reservations(eventId);
}

/** A refusal with exactly this code and message, after which the event has no more orders and holds nothing more. */
async function expectRefused(s: Shop, b: unknown, code: string, message: string, status = 400) {
  const before = { orders: (await ordersOf(s.event.id)).length, reservations: await reservations(s.event.id) };
  const err = await expectError(post(s.event.id, b), status, code);
  expect(err.message).toBe(message);
  const after = { orders: (await ordersOf(s.event.id)).length, reservations: await reservations(s.event.id) };
  expect(after, "a refused order writes and holds nothing").toEqual(before);
  return err;
}

/** Fires every body at once and sorts the answers. */
async function race(eventId: number, bodies: unknown[]) {
  const responses = await Promise.all(bodies.map((b) => post(eventId, b)));
  const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: JSON.parse(await r.text()) as Json })));
  return { won: answers.filter((a) => a.status === 201).map((a) => a.body), lost: answers.filter((a) => a.status !== 201) };
}

/** The test provider's checkout page, as a browser posts it. */
function decide(checkoutUrl: string, action: "pay" | "cancel"): Promise<Response> {
  return exports.default.fetch(
    new Request(checkoutUrl, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` }),
  );
}

/** An open order whose payment time ran out, expired as the object's alarm would have it. */
async function expire(order: Json, eventId: number) {
  await settled(eventId);
  await db
    .update(orders)
    .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
    .where(eq(orders.id, order.id));
  await expireOrder(depsFromEnv(env), order.uid, eventId);
  const row = await db.select().from(orders).where(eq(orders.id, order.id)).get();
  expect(row?.paymentStatus).toBe("expired");
}

/** POST /admin/emaillists/<event_id> with a CSV file part. */
async function uploadList(eventId: number, csv: string) {
  const form = new FormData();
  form.append("file", new File([csv], "list.csv", { type: "text/csv" }));
  const res = await exports.default.fetch(
    new Request(`${BASE}/admin/emaillists/${eventId}`, { method: "POST", headers: { "X-EVT-API-KEY": API_KEY, Authorization: basic(ADMIN) }, body: form }),
  );
  expect([200, 201], await res.clone().text()).toContain(res.status);
  return res.json();
}

const ALREADY = "You already have a booking/order";
const NOT_ALLOWED = "You are not allowed to book/order";

describe("unique users: one live order per email", () => {
  it("50 parallel free orders by one email in different letter cases: exactly one 201, one order, stock taken once", async () => {
    const s = await shop({ event: { unique_users_needed: true }, types: [{ name: "Free", price: 0, stock_control: true, stock: 100 }] });
    const cases = ["ann@example.com", "ANN@EXAMPLE.COM", "Ann@Example.com", "aNN@example.COM", "ann@EXAMPLE.com"];
    const bodies = Array.from({ length: 50 }, (_, i) => body(s, [1], { email: cases[i % cases.length] }));
    const { won, lost } = await race(s.event.id, bodies);

    expect(won).toHaveLength(1);
    expect(won[0]!.payment_status).toBe("booked");
    expect(lost).toHaveLength(49);
    for (const l of lost) {
      expect(l.status, JSON.stringify(l.body)).toBe(400);
      expect(l.body).toEqual({ code: "order_already_ordered", message: ALREADY, data: { status: 400 } });
    }
    const rows = await ordersOf(s.event.id);
    expect(rows.map((r) => r.id)).toEqual([won[0]!.id]);
    expect(await db.select().from(tickets).where(eq(tickets.eventId, s.event.id))).toHaveLength(1);
    expect(await soldOf(s)).toEqual({ event: 1, types: [1] });
    const rs = await settled(s.event.id);
    expect(rs.map((r) => r.uid)).toEqual([won[0]!.uid]);
    expect((await remaining(s.event.id))?.types).toEqual({ [s.types[0]!.id]: 99 });
    const claims = await claimsOf(s.event.id);
    expect(claims.map((c) => [c.kind, c.emailKey, c.orderUid])).toEqual([["unique", "ann@example.com", won[0]!.uid]]);
  });

  it("50 parallel paid orders by one email: exactly one open order holding its units once, the rest order_already_ordered", async () => {
    const s = await shop({ event: { unique_users_needed: true }, types: [{ name: "Paid", price: 15, stock_control: true, stock: 100 }] });
    const bodies = Array.from({ length: 50 }, (_, i) => body(s, [2], { email: i % 2 === 0 ? "bob@example.com" : "BOB@Example.Com" }));
    const { won, lost } = await race(s.event.id, bodies);

    expect(won).toHaveLength(1);
    expect(won[0]!.payment_status).toBe("open");
    expect(lost).toHaveLength(49);
    for (const l of lost) expect(l.body).toEqual({ code: "order_already_ordered", message: ALREADY, data: { status: 400 } });
    expect((await ordersOf(s.event.id)).map((r) => r.uid)).toEqual([won[0]!.uid]);
    const rs = await settled(s.event.id);
    expect(rs.map((r) => [r.uid, r.typeUnits])).toEqual([[won[0]!.uid, { [s.types[0]!.id]: 2 }]]);
    expect((await remaining(s.event.id))?.types).toEqual({ [s.types[0]!.id]: 98 });
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
  });

  it("refuses a second order by the same email (any case) and lets other emails and events without the rule through", async () => {
    const s = await shop({ event: { unique_users_needed: true } });
    await place(s, [1], { email: "Carl@Example.com" });
    await expectRefused(s, body(s, [1], { email: "carl@example.com" }), "order_already_ordered", ALREADY);
    await expectRefused(s, body(s, [3], { email: " CARL@EXAMPLE.COM " }), "order_already_ordered", ALREADY);
    expect((await place(s, [1], { email: "dora@example.com" })).email).toBe("dora@example.com");

    const free = await shop();
    await place(free, [1], { email: "carl@example.com" });
    expect((await place(free, [1], { email: "carl@example.com" })).payment_status).toBe("open");
    expect(await ordersOf(free.event.id)).toHaveLength(2);
  });

  it("across unique_event_ids (A and B list each other): an order on A blocks B and one on B blocks A", async () => {
    const a = await shop({ event: { unique_users_needed: true } });
    const b = await shop({ event: { unique_users_needed: true, unique_event_ids: String(a.event.id) } });
    await expectJson(call("PUT", `/admin/events/${a.event.id}`, { body: { unique_event_ids: String(b.event.id) } }), 200);

    await place(a, [1], { email: "eve@example.com" });
    await expectRefused(b, body(b, [1], { email: "Eve@Example.com" }), "order_already_ordered", ALREADY);
    await place(b, [1], { email: "finn@example.com" });
    await expectRefused(a, body(a, [1], { email: "FINN@example.com" }), "order_already_ordered", ALREADY);
    // An unrelated event is not in the scope.
    const c = await shop({ event: { unique_users_needed: true } });
    expect((await place(c, [1], { email: "eve@example.com" })).payment_status).toBe("open");
  });

  it("parallel orders by one email on A and on B at once: exactly one of them is placed", async () => {
    const a = await shop({ event: { unique_users_needed: true } });
    const b = await shop({ event: { unique_users_needed: true, unique_event_ids: String(a.event.id) } });
    await expectJson(call("PUT", `/admin/events/${a.event.id}`, { body: { unique_event_ids: String(b.event.id) } }), 200);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0 ? post(a.event.id, body(a, [1], { email: "gil@example.com" })) : post(b.event.id, body(b, [1], { email: "GIL@example.com" })),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((x) => x === 201)).toHaveLength(1);
    expect(statuses.filter((x) => x === 400)).toHaveLength(19);
    expect((await ordersOf(a.event.id)).length + (await ordersOf(b.event.id)).length).toBe(1);
  });

  it("an order that dies frees the email again: cancelled at the test checkout, expired, deleted by an admin", async () => {
    const a = await shop({ event: { unique_users_needed: true, add_dashboard_orders_needed: true } });
    const b = await shop({ event: { unique_users_needed: true, unique_event_ids: String(a.event.id) } });
    await expectJson(call("PUT", `/admin/events/${a.event.id}`, { body: { unique_event_ids: String(b.event.id) } }), 200);
    const email = { email: "hal@example.com" };

    // Cancelled: the email is free on A and on B.
    const first = await place(a, [1], email);
    await expectRefused(b, body(b, [1], email), "order_already_ordered", ALREADY);
    expect((await decide(first.payment.checkout_url, "cancel")).status).toBe(303);
    expect((await db.select().from(orders).where(eq(orders.id, first.id)).get())?.paymentStatus).toBe("canceled");

    // Expired.
    const second = await place(b, [1], email);
    await expectRefused(a, body(a, [1], email), "order_already_ordered", ALREADY);
    await expire(second, b.event.id);

    // Deleted by an administrator (a final, dashboard order this time).
    const third = await expectJson(call("POST", "/admin/orders", { body: { event_id: a.event.id, name: "Hal", email: "HAL@example.com", tickets: lines(a, [1]) } }), 201);
    expect(third.payment_status).toBe("dashboard");
    await expectRefused(a, body(a, [1], email), "order_already_ordered", ALREADY);
    await expectJson(call("DELETE", `/admin/orders/${third.id}`), 200);

    const fourth = await place(a, [1], email);
    expect(fourth.payment_status).toBe("open");
    expect((await claimsOf(a.event.id)).filter((c) => c.kind === "unique").map((c) => c.orderUid)).toEqual([fourth.uid]);
  });

  it("a paid order keeps the email taken", async () => {
    const s = await shop({ event: { unique_users_needed: true } });
    const paid = await place(s, [1], { email: "ida@example.com" });
    await decide(paid.payment.checkout_url, "pay");
    expect((await db.select().from(orders).where(eq(orders.id, paid.id)).get())?.paymentStatus).toBe("paid");
    await expectRefused(s, body(s, [1], { email: "IDA@example.com" }), "order_already_ordered", ALREADY);
  });

  it("an order that expired and was then paid late is live again and takes the email again", async () => {
    const s = await shop({ event: { unique_users_needed: true }, types: [{ name: "Regular", price: 10, stock_control: true, stock: 5 }] });
    // decisions.md 13: paid orders count. A late payment makes the expired order paid (and live) again.
    const late = await place(s, [1], { email: "jan@example.com" });
    await expire(late, s.event.id);
    await decide(late.payment.checkout_url, "pay");
    expect((await db.select().from(orders).where(eq(orders.id, late.id)).get())?.paymentStatus).toBe("paid");
    await expectRefused(s, body(s, [1], { email: "JAN@example.com" }), "order_already_ordered", ALREADY);
  });

  it("follows an order whose email an administrator changed: the new address has an order, the old one none", async () => {
    const s = await shop({ event: { unique_users_needed: true } });
    const order = await place(s, [1], { email: "old@example.com" });
    await expectJson(call("PUT", `/admin/orders/${order.id}`, { body: { email: "New@Example.com" } }), 200);
    expect((await db.select().from(orders).where(eq(orders.id, order.id)).get())?.emailKey).toBe("new@example.com");
    // decisions.md 13: the orders that count are the live orders by that (lowercased) email.
    await expectRefused(s, body(s, [1], { email: "new@example.com" }), "order_already_ordered", ALREADY);
    expect((await place(s, [1], { email: "old@example.com" })).email).toBe("old@example.com");
  });

  it("refuses an administrator's email change to an address another live order holds: 409 order_already_ordered, nothing changed", async () => {
    // docs/who-may-order.md "Claims": the claim moves in the change's batch, where the unique index refuses it; the
    // only order_already_ordered that is a 409 (domain/error-codes.ts `also`), an order rule's is a 400.
    const s = await shop({ event: { unique_users_needed: true } });
    await place(s, [1], { email: "ole@example.com" });
    const other = await place(s, [1], { email: "pia@example.com" });
    const err = await expectError(call("PUT", `/admin/orders/${other.id}`, { body: { email: "OLE@example.com" } }), 409, "order_already_ordered");
    expect(err.message).toBe("Another live order of that email already holds this event (unique users).");
    const stored = await db.select().from(orders).where(eq(orders.id, other.id)).get();
    expect({ email: stored?.email, emailKey: stored?.emailKey }).toEqual({ email: "pia@example.com", emailKey: "pia@example.com" });
    await expectRefused(s, body(s, [1], { email: "pia@example.com" }), "order_already_ordered", ALREADY);
  });

  it("dashboard orders obey it too, in both directions", async () => {
    const s = await shop({ event: { unique_users_needed: true, add_dashboard_orders_needed: true } });
    const dash = (email: string) => call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "Kim", email, tickets: lines(s, [1]) } });

    await place(s, [1], { email: "kim@example.com" });
    const err = await expectError(dash("KIM@example.com"), 400, "order_already_ordered");
    expect(err.message).toBe(ALREADY);

    await expectJson(dash("lou@example.com"), 201);
    await expectRefused(s, body(s, [1], { email: "Lou@Example.com" }), "order_already_ordered", ALREADY);
    const again = await expectError(dash("lou@example.com"), 400, "order_already_ordered");
    expect(again.message).toBe(ALREADY);
    expect(await ordersOf(s.event.id)).toHaveLength(2);
  });

  it("comes after the ticket lines and input fields, and before the user groups", async () => {
    const s = await shop({ event: { unique_users_needed: true }, fields: [{ name: "Company", is_required: true }] });
    const company = { fields: { [s.fields[0]!.id]: "ACME" } };
    await place(s, [1], { email: "max@example.com", ...company });
    expect((await expectJson(post(s.event.id, body(s, [0], { email: "max@example.com", ...company })), 400)).code).toBe("order_no_tickets");
    expect((await expectJson(post(s.event.id, body(s, [1], { email: "max@example.com" })), 400)).code).toBe("order_required_fields");
    await expectRefused(s, body(s, [1], { email: "max@example.com", ...company }), "order_already_ordered", ALREADY);

    // With an email list capping at 1: the repeat order is refused as a repeat, not as over the cap.
    const listed = await shop({ event: { unique_users_needed: true, user_groups_needed: true, user_groups: { group_type: 1 } } });
    await uploadList(listed.event.id, "Max,max@example.com,1\n");
    await place(listed, [1], { email: "max@example.com" });
    await expectRefused(listed, body(listed, [1], { email: "max@example.com" }), "order_already_ordered", ALREADY);
    // Not on the list and not ordered before: the user group refuses.
    await expectRefused(listed, body(listed, [1], { email: "nina@example.com" }), "order_not_allowed", NOT_ALLOWED);
  });
});

describe("user groups: the email list (group_type 1)", () => {
  async function listed(csv: string, extra: Json = {}, types?: Json[]): Promise<Shop> {
    const s = await shop({ event: { user_groups_needed: true, user_groups: { group_type: 1 }, ...extra }, types });
    await uploadList(s.event.id, csv);
    return s;
  }

  it("an address not on the list is order_not_allowed; an event without any list lets nobody order", async () => {
    const s = await listed("Ann,ann@example.com,0\n");
    await expectRefused(s, body(s, [1], { email: "stranger@example.com" }), "order_not_allowed", NOT_ALLOWED);
    expect((await place(s, [1], { email: "ann@example.com" })).payment_status).toBe("open");

    const empty = await shop({ event: { user_groups_needed: true, user_groups: { group_type: 1 } } });
    await expectRefused(empty, body(empty), "order_not_allowed", NOT_ALLOWED);
  });

  it("a cap of 3: orders of 2 then 2, the second refused with the room left; 1 fits; then nothing more", async () => {
    const s = await listed("Ann,ann@example.com,3\n");
    await place(s, [2]);
    await expectRefused(s, body(s, [2]), "order_max_tickets", "You can book a maximum of 1 tickets");
    expect((await place(s, [1])).num_tickets).toBe(1);
    await expectRefused(s, body(s, [1]), "order_max_tickets", "You can book a maximum of 0 tickets");
    const claims = await claimsOf(s.event.id);
    expect(claims.filter((c) => c.kind === "cap").reduce((n, c) => n + c.units, 0)).toBe(3);
  });

  it("20 parallel orders of 1 ticket by one listed address with a cap of 3: exactly 3 placed", async () => {
    const s = await listed("Ann,Ann@Example.com,3\n", {}, [{ name: "Free", price: 0, stock_control: true, stock: 50 }]);
    const bodies = Array.from({ length: 20 }, (_, i) => body(s, [1], { email: i % 2 ? "ann@example.com" : "ANN@example.com" }));
    const { won, lost } = await race(s.event.id, bodies);
    expect(won).toHaveLength(3);
    expect(lost).toHaveLength(17);
    for (const l of lost) {
      expect(l.status).toBe(400);
      expect(l.body.code).toBe("order_max_tickets");
      expect(l.body.message).toMatch(/^You can book a maximum of [0-2] tickets$/);
    }
    expect(await ordersOf(s.event.id)).toHaveLength(3);
    expect(await soldOf(s)).toEqual({ event: 3, types: [3] });
    await settled(s.event.id);
    expect((await remaining(s.event.id))?.types).toEqual({ [s.types[0]!.id]: 47 });
  });

  it("a cap of 0 or empty means no cap", async () => {
    const s = await listed("Zero,zero@example.com,0\nEmpty,empty@example.com,\nTwo,two@example.com\n");
    for (const email of ["zero@example.com", "empty@example.com", "two@example.com"]) {
      await place(s, [10], { email });
      await place(s, [15], { email });
    }
    expect(await ordersOf(s.event.id)).toHaveLength(6);
  });

  it("addresses are compared lowercased, on the list and in the orders; the cap counts across letter cases", async () => {
    const s = await listed("Ann,Ann.Smith@Example.COM,2\n");
    expect((await place(s, [1], { email: "ann.smith@example.com" })).email).toBe("ann.smith@example.com");
    expect((await place(s, [1], { email: "ANN.SMITH@EXAMPLE.COM" })).email).toBe("ANN.SMITH@EXAMPLE.COM");
    await expectRefused(s, body(s, [1], { email: "Ann.Smith@Example.COM" }), "order_max_tickets", "You can book a maximum of 0 tickets");
  });

  it("a dead order gives its units back to the cap: cancelled, expired, deleted", async () => {
    const s = await listed("Ann,ann@example.com,2\n", { add_dashboard_orders_needed: true });
    const a = await place(s, [2]);
    await expectRefused(s, body(s, [1]), "order_max_tickets", "You can book a maximum of 0 tickets");
    await decide(a.payment.checkout_url, "cancel");

    const b = await place(s, [2]);
    await expectRefused(s, body(s, [1]), "order_max_tickets", "You can book a maximum of 0 tickets");
    await expire(b, s.event.id);

    const c = await expectJson(call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "Ann", email: "ann@example.com", tickets: lines(s, [2]) } }), 201);
    const dashErr = await expectError(
      call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "Ann", email: "ann@example.com", tickets: lines(s, [1]) } }),
      400,
      "order_max_tickets",
    );
    expect(dashErr.message).toBe("You can book a maximum of 0 tickets");
    await expectJson(call("DELETE", `/admin/orders/${c.id}`), 200);

    expect((await place(s, [2])).num_tickets).toBe(2);
  });

  it("an order that expired and was then paid late counts against the cap again", async () => {
    const s = await listed("Ann,ann@example.com,2\n");
    const late = await place(s, [2]);
    await expire(late, s.event.id);
    await decide(late.payment.checkout_url, "pay");
    expect((await db.select().from(orders).where(eq(orders.id, late.id)).get())?.paymentStatus).toBe("paid");
    await expectRefused(s, body(s, [1]), "order_max_tickets", "You can book a maximum of 0 tickets");
  });

  it("dashboard orders are held to the list too", async () => {
    const s = await listed("Ann,ann@example.com,1\n", { add_dashboard_orders_needed: true });
    const err = await expectError(
      call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "X", email: "x@example.com", tickets: lines(s, [1]) } }),
      400,
      "order_not_allowed",
    );
    expect(err.message).toBe(NOT_ALLOWED);
    expect(await ordersOf(s.event.id)).toEqual([]);
  });
});

describe("user groups: the REST check (group_type 2)", () => {
  async function checked(name: string, behaviour: StubBehaviour, options: { types?: Json[]; fields?: Json[]; event?: Json } = {}): Promise<Shop> {
    await programStub(name, behaviour);
    return shop({
      event: { user_groups_needed: true, user_groups: { group_type: 2, rest_url: stubUrl(`/${name}/check`), rest_header: "X-Secret: abc" }, ...options.event },
      types: options.types ?? [{ name: "Regular", price: "12.50", vat: 21, maximum_to_order: 0 }],
      fields: options.fields,
    });
  }

  it("sends the spec's body and the configured header; {count: 5} lets an order of 2 through", async () => {
    const name = unique("elig-ok");
    const s = await checked(name, { body: '{"count": 5}' }, { fields: [{ name: "Company" }, { name: "Pin", type: "password" }] });
    const [company, pin] = s.fields;
    const order = await place(s, [2], { name: "Ann Smith", email: "Ann@Example.com", fields: { [company!.id]: "ACME", [pin!.id]: "s3cr3t-pin" } });
    expect(order.num_tickets).toBe(2);

    const got = await receivedBy(name);
    expect(got).toHaveLength(1);
    expect(got[0]!.method).toBe("POST");
    expect(got[0]!.path).toBe(`/${name}/check`);
    expect(got[0]!.headers["x-secret"]).toBe("abc");
    expect(got[0]!.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(got[0]!.body)).toStrictEqual({
      name: "Ann Smith",
      email: "Ann@Example.com",
      order_amount: "25.00",
      order_vat: "4.34",
      fields: [
        { name: "Company", value: "ACME" },
        { name: "Pin", value: "s3cr3t-pin" },
      ],
      tickets: [{ name: "Regular", price: "12.50", vat: "21.00", count: 2 }],
    });
    // The password went to the trusted server only: never stored.
    const row = await db.select().from(orders).where(eq(orders.id, order.id)).get();
    expect(JSON.stringify(row)).not.toContain("s3cr3t-pin");
  });

  it("sends fields null when the order has none", async () => {
    const name = unique("elig-null");
    const s = await checked(name, { body: '{"count": 1}' });
    await place(s, [1], { name: "Bob", email: "bob@example.com" });
    const [req] = await receivedBy(name);
    expect(JSON.parse(req!.body)).toStrictEqual({
      name: "Bob",
      email: "bob@example.com",
      order_amount: "12.50",
      order_vat: "2.17",
      fields: null,
      tickets: [{ name: "Regular", price: "12.50", vat: "21.00", count: 1 }],
    });
  });

  it("{count: 1} with 2 tickets: order_max_tickets naming the count", async () => {
    const s = await checked(unique("elig-cap"), { body: '{"count": 1}' });
    await expectRefused(s, body(s, [2]), "order_max_tickets", "You can book a maximum of 1 tickets");
    expect((await place(s, [1])).num_tickets).toBe(1);
  });

  it("{count: 0}: order_not_allowed with the standard text", async () => {
    const s = await checked(unique("elig-zero"), { body: '{"count": 0}' });
    await expectRefused(s, body(s, [1]), "order_not_allowed", NOT_ALLOWED);
  });

  it("{count: 0, error} with a 403: order_not_allowed showing the consumer's message", async () => {
    const s = await checked(unique("elig-deny"), { status: 403, body: '{"count": 0, "error": "Members only"}' });
    await expectRefused(s, body(s, [1]), "order_not_allowed", "Members only");
  });

  it("a 4xx without a message: order_not_allowed with the standard text", async () => {
    const s = await checked(unique("elig-404"), { status: 404, body: "" });
    await expectRefused(s, body(s, [1]), "order_not_allowed", NOT_ALLOWED);
  });

  it("a 500: order_not_allowed with the standard text, and a log entry", async () => {
    const s = await checked(unique("elig-500"), { status: 500, body: '{"count": 5, "error": "database down"}' });
    await expectRefused(s, body(s, [1]), "order_not_allowed", NOT_ALLOWED);
    const entries = await eligibilityLogs(s.event.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.description).toContain("500");
  });

  it("no answer within 5 s: denied with the standard text and logged", { timeout: 20_000 }, async () => {
    const name = unique("elig-slow");
    const s = await checked(name, { delayMs: 6000, body: '{"count": 5}' });
    const started = Date.now();
    await expectRefused(s, body(s, [1]), "order_not_allowed", NOT_ALLOWED);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(4500);
    expect(took).toBeLessThan(9000);
    expect(await receivedBy(name)).toHaveLength(1);
    const entries = await eligibilityLogs(s.event.id);
    expect(entries).toHaveLength(1);
  });

  it("a malformed answer (not JSON, no count, a negative or fractional count) is denied and logged", async () => {
    const answers = ["this is not json", "{}", '{"count": "5"}', '{"count": -1}', '{"count": 1.5}'];
    for (const answer of answers) {
      const s = await checked(unique("elig-bad"), { body: answer });
      await expectRefused(s, body(s, [1]), "order_not_allowed", NOT_ALLOWED);
      expect(await eligibilityLogs(s.event.id), answer).toHaveLength(1);
    }
  });

  it("is asked only after the earlier rules pass, and before stock", async () => {
    const name = unique("elig-order");
    const s = await checked(name, { body: '{"count": 5}' }, { types: [{ name: "Regular", price: 10, stock_control: true, stock: 1 }] });
    expect((await expectJson(post(s.event.id, body(s, [0])), 400)).code).toBe("order_no_tickets");
    expect(await receivedBy(name)).toHaveLength(0);
    const err = await expectError(post(s.event.id, body(s, [2])), 409, "order_stock_unavailable");
    expect(err.message).toBe("Not enough stock available for ticket-type: Regular (1)");
    expect(await receivedBy(name)).toHaveLength(1);
  });

  it("comes after unique users: a repeat order is refused without asking the server", async () => {
    const name = unique("elig-unique");
    const s = await checked(name, { body: '{"count": 5}' }, { event: { unique_users_needed: true } });
    await place(s, [1], { email: "pat@example.com" });
    expect(await receivedBy(name)).toHaveLength(1);
    await expectRefused(s, body(s, [1], { email: "Pat@example.com" }), "order_already_ordered", ALREADY);
    expect(await receivedBy(name)).toHaveLength(1);
  });

  it("dashboard orders are checked too", async () => {
    const name = unique("elig-dash");
    const s = await checked(name, { status: 403, body: '{"count": 0, "error": "Staff only"}' }, { event: { add_dashboard_orders_needed: true } });
    const err = await expectError(
      call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "X", email: "x@example.com", tickets: lines(s, [1]) } }),
      400,
      "order_not_allowed",
    );
    expect(err.message).toBe("Staff only");
    expect(await receivedBy(name)).toHaveLength(1);
  });
});
