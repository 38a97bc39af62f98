import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders, revokedTickets, webhookDeliveries } from "../../../src/db/schema";
import worker from "../../../src/index";
import { handleQueue } from "../../../src/queue";
import { depsFromEnv } from "../../../src/platform/deps";
import { refundOrder } from "../../../src/features/payments/refunds.service";
import { BASE, ORIGIN, call, createUser, expectError, expectJson, request, unique, type Credentials } from "../../helpers/api";
import { createEvent, createScanKey, createTicketType, db } from "../../helpers/catalogue";
import { SECRET_KEY, stripeEnv, stripeSignature } from "../../helpers/stripe";
import { programStub, receivedBy, stubUrl, waitForRequests, type StubRequest } from "../../helpers/stubs";
import { criteria, decide, lines, listCriteriaValidation, sleep, statusOf, waitFor, type Json, type Shop } from "../../helpers/bulk";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * Bulk refunds (spec "Bulk refunds"; decisions.md 10, 13 "Orders" and "Tickets, scans, messages") and the single
 * refund route `POST /admin/orders/<id>/refund`. The list selects paid orders by criteria; the send call checks each
 * id and queues the rest; the queue consumer refunds through the payment provider once, however often it is asked.
 * Storage is shared with every other test file: each test makes its own events and orders and filters every list
 * by them (or by a moment no other test uses).
 */

const NOT_FOUND = "Order not found";
const NOT_PAID = "Order status is not set to 'paid'";

// ---------------------------------------------------------------------------------------------------------------
// Set-up: shop-front events with customer orders paid through the test provider

async function shop(types: Json[] = [{ name: "Regular", price: 10 }], event: Json = {}, auth?: Credentials): Promise<Shop> {
  const created = await createEvent({ event_name: unique("Refunds "), ...event }, auth);
  const made: Json[] = [];
  for (const t of types) made.push(await createTicketType(created.id, { maximum_to_order: 0, ...t }, auth));
  return { event: created, types: made };
}

/** A customer order (open until paid). */
async function openOrder(s: Shop, counts: number[] = [1], email = "ann@example.com"): Promise<Json> {
  return expectJson(call("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email, tickets: lines(s, counts) } }), 201);
}

/** A customer order paid on the test provider's checkout page. */
async function paidOrder(s: Shop, counts: number[] = [1], email?: string): Promise<Json> {
  const o = await openOrder(s, counts, email);
  const res = await decide(o.payment.checkout_url, "pay");
  expect(res.status).toBe(303);
  expect(await statusOf(o.id)).toBe("paid");
  return o;
}

async function dashboardOrder(s: Shop, counts: number[] = [1]): Promise<Json> {
  return expectJson(call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "Desk Sale", email: "desk@example.com", tickets: lines(s, counts) } }), 201);
}

const waitStatus = (orderId: number, status: string) =>
  waitFor(
    `order ${orderId} to be ${status}`,
    () => statusOf(orderId),
    (s) => s === status,
  );

async function ticketIdsOf(orderId: number): Promise<string[]> {
  const view = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return view.tickets.map((t: Json) => t.ticket_id as string).sort();
}

async function logsOf(orderId: number): Promise<Json[]> {
  return expectJson<Json[]>(call("GET", `/admin/logs/order/${orderId}`), 200);
}

const refundedEntries = async (orderId: number) => (await logsOf(orderId)).filter((e) => /was refunded/.test(e.description));

/** Waits for the refund's log entry (written in the refund's batch) and answers its description. */
async function refundLog(orderId: number): Promise<string> {
  const entries = await waitFor(
    `a refund log entry of order ${orderId}`,
    () => refundedEntries(orderId),
    (e) => e.length > 0,
  );
  expect(entries, `refund log entries of order ${orderId}`).toHaveLength(1);
  return entries[0]!.description as string;
}

async function soldOf(s: Shop): Promise<{ event: number; types: number[] }> {
  const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${s.event.id}/ticket-types`), 200);
  return { event: event.sold, types: s.types.map((t) => types.find((x) => x.id === t.id)!.sold) };
}

async function formRemaining(s: Shop, index = 0): Promise<number> {
  const form = await expectJson(call("GET", `/events/${s.event.id}/order-form`, { auth: null }), 200);
  return form.ticket_types.find((t: Json) => t.id === s.types[index]!.id).remaining;
}

const list = (body: unknown, auth?: Credentials) => call("POST", "/admin/bulk/refunds/list", { body, auth });
const listIds = async (body: unknown, auth?: Credentials): Promise<number[]> => (await expectJson(list(body, auth), 200)).order_ids;
const send = (body: unknown, auth?: Credentials, headers?: Record<string, string>) => call("POST", "/admin/bulk/refunds/send", { body, auth, headers });
const sendOk = async (body: unknown, auth?: Credentials): Promise<Json[]> => (await expectJson(send(body, auth), 200)).errors;
const refundOne = (id: number | string, body: unknown = {}, auth?: Credentials) => call("POST", `/admin/orders/${id}/refund`, { body, auth });

async function setCreatedAt(orderIds: number[], epochSeconds: number): Promise<void> {
  await db.update(orders).set({ createdAt: epochSeconds }).where(inArray(orders.id, orderIds));
}

/** A random second of 2003 that no other test uses: lists with empty `event_ids` are narrowed by it. */
function privateMoment(): number {
  const start = Date.UTC(2003, 0, 2) / 1000;
  return start + Math.floor(Math.random() * 360 * 86_400);
}

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/bulk/refunds/list", () => {
  it("selects only paid orders of the named events, echoes the criteria with batch_size 25, ids ascending", async () => {
    const a = await shop([{ name: "Regular", price: 10 }], { add_dashboard_orders_needed: true });
    const b = await shop();
    const p1 = await paidOrder(a, [1]);
    const open = await openOrder(a, [1]);
    const cancelled = await openOrder(a, [1]);
    expect((await decide(cancelled.payment.checkout_url, "cancel")).status).toBe(303);
    const p2 = await paidOrder(a, [3]);
    const desk = await dashboardOrder(a, [2]);
    const pb = await paidOrder(b, [2]);

    const body = criteria([a.event.id]);
    const answer = await expectJson(list(body), 200);
    expect(answer).toStrictEqual({
      date_from: body.date_from,
      date_to: body.date_to,
      event_ids: String(a.event.id),
      tickets_minimum: 0,
      tickets_maximum: 1000,
      amount_minimum: 0,
      amount_maximum: 100_000,
      batch_size: 25,
      order_ids: [p1.id, p2.id],
    });
    expect(answer.order_ids).not.toContain(open.id);
    expect(answer.order_ids).not.toContain(cancelled.id);
    expect(answer.order_ids).not.toContain(desk.id);

    const both = await expectJson(list(criteria(`${a.event.id},${b.event.id}`, { amount_minimum: "5.50", amount_maximum: 99.9 })), 200);
    expect(both.order_ids).toEqual([p1.id, p2.id, pb.id]);
    expect(both).toMatchObject({ event_ids: `${a.event.id},${b.event.id}`, amount_minimum: 5.5, amount_maximum: 99.9, batch_size: 25 });
  });

  it("ticket and amount bounds are inclusive on both sides", async () => {
    const s = await shop([{ name: "Regular", price: "12.50" }]);
    const one = await paidOrder(s, [1]); // 12.50
    const two = await paidOrder(s, [2]); // 25.00
    const three = await paidOrder(s, [3]); // 37.50
    const ids = (extra: Json) => listIds(criteria([s.event.id], extra));

    expect(await ids({ tickets_minimum: 2, tickets_maximum: 3 })).toEqual([two.id, three.id]);
    expect(await ids({ tickets_minimum: 1, tickets_maximum: 1 })).toEqual([one.id]);
    expect(await ids({ tickets_minimum: 4, tickets_maximum: 10 })).toEqual([]);
    expect(await ids({ amount_minimum: 25, amount_maximum: 25 })).toEqual([two.id]);
    expect(await ids({ amount_minimum: 12.5, amount_maximum: 25 })).toEqual([one.id, two.id]);
    expect(await ids({ amount_minimum: 12.51, amount_maximum: 37.49 })).toEqual([two.id]);
    expect(await ids({ amount_minimum: 0, amount_maximum: 12.49 })).toEqual([]);
    // Numbers may arrive as strings.
    expect(await ids({ tickets_minimum: "3", tickets_maximum: "3", amount_minimum: "37.50", amount_maximum: "37.5" })).toEqual([three.id]);
  });

  it("dates are read in the service's time zone (Europe/Amsterdam), both ends inclusive", async () => {
    const s = await shop();
    const winter = await paidOrder(s);
    const summer = await paidOrder(s);
    // 2024-01-15 09:00:00 UTC is 10:00:00 in Amsterdam (CET); 2024-07-15 09:00:00 UTC is 11:00:00 (CEST).
    await setCreatedAt([winter.id], Date.UTC(2024, 0, 15, 9, 0, 0) / 1000);
    await setCreatedAt([summer.id], Date.UTC(2024, 6, 15, 9, 0, 0) / 1000);
    const ids = (date_from: string, date_to: string) => listIds(criteria([s.event.id], { date_from, date_to }));

    expect(await ids("2024-01-01 00:00:00", "2024-12-31 23:59:59")).toEqual([winter.id, summer.id]);
    expect(await ids("2024-01-15 10:00:00", "2024-01-15 10:00:00")).toEqual([winter.id]);
    expect(await ids("2024-01-15 10:00:01", "2024-07-15 10:59:59")).toEqual([]);
    expect(await ids("2024-07-15 11:00:00", "2024-07-15 11:00:00")).toEqual([summer.id]);
    // Read as UTC these would match; in Amsterdam they do not.
    expect(await ids("2024-01-15 09:00:00", "2024-01-15 09:59:59")).toEqual([]);
    expect(await ids("2024-07-15 09:00:00", "2024-07-15 10:59:59")).toEqual([]);
    // The orders of now are outside a range in the past.
    const fresh = await paidOrder(s);
    expect(await ids("2024-01-01 00:00:00", "2024-12-31 23:59:59")).not.toContain(fresh.id);
  });

  it("empty event_ids: every event for an administrator, only its authorised events for an organizer", async () => {
    const mine = await shop();
    const theirs = await shop();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const a = await paidOrder(mine);
    const b = await paidOrder(theirs);
    const moment = privateMoment();
    await setCreatedAt([a.id, b.id], moment);
    const at = wallClockAt(moment * 1000);
    const body = criteria("", { date_from: at, date_to: at });

    const admin = await expectJson(list(body), 200);
    expect(admin.order_ids).toEqual([a.id, b.id]);
    expect(admin.event_ids).toBe("");
    expect(await listIds(body, organizer.credentials)).toEqual([a.id]);
    expect(await listIds(criteria([mine.event.id], { date_from: at, date_to: at }), organizer.credentials)).toEqual([a.id]);
  });

  it("an organizer naming an event outside its authorised events gets 403", async () => {
    const mine = await shop();
    const theirs = await shop();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    await expectError(list(criteria([theirs.event.id]), organizer.credentials), 403, "rest_forbidden");
    await expectError(list(criteria([mine.event.id, theirs.event.id]), organizer.credentials), 403, "rest_forbidden");
  });

  it("needs the API key and credentials", async () => {
    await expectError(call("POST", "/admin/bulk/refunds/list", { body: criteria(""), key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("POST", "/admin/bulk/refunds/list", { body: criteria(""), auth: null }), 401, "rest_not_logged_in");
  });

  listCriteriaValidation((body) => list(body));

  it("an unknown field is refused: 400", async () => {
    const err = await expectError(list(criteria([1], { status: "paid" })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("status");
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/bulk/refunds/send: checks", () => {
  it("reports unknown and unpaid orders with the spec's texts, in the order sent, and refunds the paid ones", async () => {
    const s = await shop([{ name: "Regular", price: 10 }], { add_dashboard_orders_needed: true });
    const paid = await paidOrder(s, [2]);
    const open = await openOrder(s);
    const desk = await dashboardOrder(s);
    const cancelled = await openOrder(s);
    await decide(cancelled.payment.checkout_url, "cancel");
    const unknown = 2_000_000_000;

    const errors = await sendOk({ order_ids: [unknown, open.id, paid.id, desk.id, cancelled.id], cost_type: "order", cost: 0 });
    expect(errors).toStrictEqual([
      { order_id: unknown, error: NOT_FOUND },
      { order_id: open.id, error: NOT_PAID },
      { order_id: desk.id, error: NOT_PAID },
      { order_id: cancelled.id, error: NOT_PAID },
    ]);
    await waitStatus(paid.id, "refunded");
    expect(await statusOf(open.id)).toBe("open");
    expect(await statusOf(desk.id)).toBe("dashboard");
    expect(await statusOf(cancelled.id)).toBe("canceled");

    // Once refunded, it is no longer paid: a second send reports it.
    expect(await sendOk({ order_ids: [paid.id], cost_type: "order", cost: 0 })).toStrictEqual([{ order_id: paid.id, error: NOT_PAID }]);
    // And the list no longer selects it.
    expect(await listIds(criteria([s.event.id]))).toEqual([]);
  });

  it("takes at most batch_size (25) ids: 26 is a 400 and nothing is refunded; 25 are checked", async () => {
    const s = await shop();
    const paid = await paidOrder(s);
    const unknown = Array.from({ length: 25 }, (_, i) => 2_000_000_100 + i);
    const err = await expectError(send({ order_ids: [paid.id, ...unknown], cost_type: "order", cost: 0 }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("order_ids");
    await sleep(300);
    expect(await statusOf(paid.id)).toBe("paid");

    const errors = await sendOk({ order_ids: [paid.id, ...unknown.slice(0, 24)], cost_type: "order", cost: 0 });
    expect(errors).toStrictEqual(unknown.slice(0, 24).map((id) => ({ order_id: id, error: NOT_FOUND })));
    await waitStatus(paid.id, "refunded");
  });

  it.each([
    ["order_ids", { order_ids: undefined }, "rest_missing_callback_param"],
    ["cost_type", { cost_type: undefined }, "rest_missing_callback_param"],
    ["cost", { cost: undefined }, "rest_missing_callback_param"],
    ["order_ids", { order_ids: [] }, "rest_invalid_param"],
    ["order_ids", { order_ids: "1,2" }, "rest_invalid_param"],
    ["order_ids", { order_ids: ["x"] }, "rest_invalid_param"],
    ["order_ids", { order_ids: [0] }, "rest_invalid_param"],
    ["order_ids", { order_ids: [1.5] }, "rest_invalid_param"],
    ["cost_type", { cost_type: "percent" }, "rest_invalid_param"],
    ["cost_type", { cost_type: "" }, "rest_invalid_param"],
    ["cost", { cost: -1 }, "rest_invalid_param"],
    ["cost", { cost: 1.234 }, "rest_invalid_param"],
    ["cost", { cost: "abc" }, "rest_invalid_param"],
    ["reason", { reason: "x" }, "rest_invalid_param"],
  ])("%s (%j): 400 %s", async (field, change, code) => {
    const body: Json = { order_ids: [2_000_000_000], cost_type: "order", cost: 1, ...change };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const err = await expectError(send(body), 400, code);
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });
});

describe("the refund amount", () => {
  it.each([
    ["order", 2.5, "35.00"], // 37.50 - 2.50
    ["order", "0.01", "37.49"],
    ["order", 0, "37.50"],
    ["order", 37.5, "0.00"], // all withheld
    ["order", 100, "0.00"], // never below 0
    ["ticket", 1.25, "33.75"], // 37.50 - 3 x 1.25
    ["ticket", "12.50", "0.00"], // 3 x 12.50 = the total
    ["ticket", 13, "0.00"], // 3 x 13 above the total: never below 0
    ["ticket", 0, "37.50"],
  ])("cost_type %s, cost %j, on 3 tickets of 12.50: %s EUR", async (costType, cost, expected) => {
    const s = await shop([{ name: "Regular", price: "12.50" }]);
    const o = await paidOrder(s, [3]);
    expect(await sendOk({ order_ids: [o.id], cost_type: costType, cost })).toEqual([]);
    await waitStatus(o.id, "refunded");
    expect(await refundLog(o.id)).toBe(`Order ${o.id} was refunded (${expected} EUR).`);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("a refund's effects", () => {
  it("refunded order, tickets deleted and revoked (also for scans), stock back, sold down, PDF purged, logged", async () => {
    const s = await shop([{ name: "Regular", price: 10, stock_control: true, stock: 10, show_remaining: true }]);
    const gate = (await createScanKey(s.event.id, { level: 0, location: "Gate" })).key as string;
    const o = await paidOrder(s, [3]);
    const kept = await paidOrder(s, [2], "bob@example.com");
    const tickets = await ticketIdsOf(o.id);
    const keptTickets = await ticketIdsOf(kept.id);
    expect(tickets).toHaveLength(3);
    expect(await soldOf(s)).toEqual({ event: 5, types: [5] });
    expect(await formRemaining(s)).toBe(5);
    // The event object knows the tickets (it learns them just after payment).
    const scanTickets = async () => (await expectJson(call("GET", "/scans/tickets", { key: gate, auth: null }), 200)).tickets.map((t: Json) => t.ticket_id as string);
    await waitFor("the event object to know the tickets", scanTickets, (known) => [...tickets, ...keptTickets].every((t) => known.includes(t)));
    // The PDF is cached in R2.
    const pdf = await call("GET", `/tickets/${o.uid}`, { key: null, auth: null });
    expect(pdf.status).toBe(200);
    await pdf.arrayBuffer();
    expect(await env.FILES.head(`tickets/${o.uid}.pdf`)).not.toBeNull();
    const revokedBefore = await expectJson(call("GET", "/scans/revoked", { key: gate, auth: null }), 200);
    expect(revokedBefore.revoked).toEqual([]);

    expect(await sendOk({ order_ids: [o.id], cost_type: "ticket", cost: 1 })).toEqual([]);
    await waitStatus(o.id, "refunded");

    // The order: refunded, no tickets; the other order untouched.
    const view = await expectJson(call("GET", `/admin/orders/${o.id}`), 200);
    expect(view).toMatchObject({ id: o.id, payment_status: "refunded", total: 30, num_tickets: 3 });
    expect(await ticketIdsOf(o.id)).toEqual([]);
    expect(await ticketIdsOf(kept.id)).toEqual(keptTickets);
    expect(await statusOf(kept.id)).toBe("paid");
    // Sold goes down by the refunded tickets; the event object gives the units back.
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    await waitFor(
      "remaining back to 8",
      () => formRemaining(s),
      (n) => n === 8,
    );
    // Revoked for offline scanners; unknown to the event object for online scans.
    const revoked = await expectJson(call("GET", "/scans/revoked", { key: gate, auth: null }), 200);
    expect(revoked.event_id).toBe(s.event.id);
    expect(revoked.revoked.map((r: Json) => r.ticket_id).sort()).toEqual(tickets);
    const known = await waitFor("the event object to forget the tickets", scanTickets, (k) => tickets.every((t) => !k.includes(t)));
    expect(keptTickets.every((t) => known.includes(t))).toBe(true);
    const scan = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: tickets[0] } }), 200);
    expect(scan).toMatchObject({ status: false, error: "Ticket not found" });
    // The cached PDF is purged; the download is no longer there.
    await waitFor(
      "the cached PDF to be purged",
      () => env.FILES.head(`tickets/${o.uid}.pdf`),
      (h) => h === null,
    );
    const after = await call("GET", `/tickets/${o.uid}`, { key: null, auth: null });
    expect(after.status).not.toBe(200);
    await after.arrayBuffer();
    // A log entry with the amount (30.00 - 3 x 1.00).
    const entries = await logsOf(o.id);
    const refunded = entries.filter((e) => e.description.includes("refunded"));
    expect(refunded).toHaveLength(1);
    expect(refunded[0]).toMatchObject({ event_id: s.event.id, order_id: o.id, description: `Order ${o.id} was refunded (27.00 EUR).` });
    // The whole log shows it too.
    const all = await expectJson<Json[]>(call("GET", "/admin/logs"), 200);
    expect(all.some((e) => e.order_id === o.id && e.description === `Order ${o.id} was refunded (27.00 EUR).`)).toBe(true);
    // The customer's status route says so.
    const status = await expectJson(call("GET", `/orders/${o.id}/${o.uid}/status`, { key: null, auth: null }), 200);
    expect(status.payment_status).toBe("refunded");
    expect(status.tickets_ready).toBe(false);
  });

  it("order.refunded fires once, with the order as the API shows it, when the queue consumer refunds", async () => {
    const s = await shop([{ name: "Regular", price: 10 }], { webhooks_needed: true });
    const hookName = unique("refund-hook-");
    await programStub(hookName, {});
    const hook = await expectJson(
      call("POST", "/admin/webhooks", { body: { name: hookName, url: stubUrl(`/${hookName}/hook`), secret: "refund-secret", topic: "order.refunded" } }),
      201,
    );
    await expectJson(call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: true } }), 200);
    try {
      const o = await paidOrder(s, [2]);
      expect(await sendOk({ order_ids: [o.id], cost_type: "order", cost: 0 })).toEqual([]);
      await waitStatus(o.id, "refunded");
      await refundLog(o.id);
      const rows = await waitFor(
        "an order.refunded delivery row for the event",
        async () => (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, s.event.id))).filter((r) => r.topic === "order.refunded"),
        (r) => r.length > 0,
      );
      expect(rows).toHaveLength(1);
      const deliveries = await waitFor(
        "the order.refunded delivery at the receiver",
        async () => (await receivedBy(hookName)).filter((r) => JSON.parse(r.body).id === o.id),
        (d) => d.length > 0,
      );
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]!.headers["x-evt-webhook-topic"]).toBe("order.refunded");
      expect(JSON.parse(deliveries[0]!.body)).toMatchObject({ id: o.id, uid: o.uid, payment_status: "refunded", event_id: s.event.id, total: 20 });
    } finally {
      await call("DELETE", `/admin/webhooks/${hook.id}`);
    }
  });

  it("sending the same refund twice, and the same id twice in one call, refunds once", async () => {
    const s = await shop([{ name: "Regular", price: 10, stock_control: true, stock: 10, show_remaining: true }]);
    const o = await paidOrder(s, [4]);
    const other = await paidOrder(s, [1]);
    expect(await soldOf(s)).toEqual({ event: 5, types: [5] });
    const [first, second] = await Promise.all([
      sendOk({ order_ids: [o.id, o.id], cost_type: "order", cost: 5 }),
      sendOk({ order_ids: [o.id], cost_type: "order", cost: 1 }),
    ]);
    expect(first).toEqual([]);
    expect(second).toEqual([]);
    await waitStatus(o.id, "refunded");
    // Let the duplicates run through the consumer, then count.
    await refundLog(o.id);
    await sleep(1500);
    const entries = await refundedEntries(o.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.description).toMatch(new RegExp(`^Order ${o.id} was refunded \\((35|39)\\.00 EUR\\)\\.$`));
    expect(await soldOf(s)).toEqual({ event: 1, types: [1] });
    await waitFor(
      "remaining back to 9",
      () => formRemaining(s),
      (n) => n === 9,
    );
    await sleep(300);
    expect(await formRemaining(s)).toBe(9);
    expect(await statusOf(other.id)).toBe("paid");
    const revoked = await db.select().from(revokedTickets).where(eq(revokedTickets.eventId, s.event.id));
    expect(revoked).toHaveLength(4);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Stripe: the provider's side of a refund (the local stub plays Stripe's API)

const SESSION = { id: "cs_test_bulk", url: "https://checkout.stripe.test/c/pay/cs_test_bulk" };
const REFUND_OK = JSON.stringify({ id: "re_1", object: "refund", status: "succeeded" });
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function callWith(e: typeof env, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const signStripe = (body: string) => stripeSignature(body);

/** A customer order paid at Stripe: a Checkout Session at the stub, then Stripe's signed `checkout.session.completed`. */
async function stripePaidOrder(s: Shop, count: number, pi: string): Promise<Json> {
  const api = unique("stripe-session-");
  await programStub(api, { body: JSON.stringify(SESSION) });
  const o = await expectJson(
    callWith(
      stripeEnv(api),
      request("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email: "ann@example.com", tickets: lines(s, [count]) } }),
    ),
    201,
  );
  expect(o.payment.provider).toBe("stripe");
  const event = JSON.stringify({
    id: `evt_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`,
    object: "event",
    created: nowSeconds(),
    livemode: false,
    type: "checkout.session.completed",
    data: {
      object: {
        id: SESSION.id,
        object: "checkout.session",
        currency: "eur",
        mode: "payment",
        client_reference_id: o.uid,
        metadata: { payment_group: o.uid },
        payment_intent: pi,
        payment_status: "paid",
        status: "complete",
        amount_total: Math.round(o.total * 100),
      },
    },
  });
  const res = await callWith(
    stripeEnv(api),
    new Request(`${BASE}/payments/stripe/webhook`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Stripe-Signature": await signStripe(event) },
      body: event,
    }),
  );
  expect(res.status, await res.text()).toBe(200);
  const row = await db.select().from(orders).where(eq(orders.id, o.id)).get();
  expect([row!.paymentStatus, row!.paymentId]).toEqual(["paid", pi]);
  return o;
}

/** A Queue binding that only records: the jobs a call enqueued stay here until a test hands them to the consumer. */
function recordingJobs() {
  const sent: unknown[] = [];
  const JOBS = {
    async send(body: unknown) {
      sent.push(body);
    },
    async sendBatch(messages: { body: unknown }[]) {
      for (const m of messages) sent.push(m.body);
    },
  };
  return { sent, JOBS };
}

/** The bulk send under the Stripe configuration (Stripe's API the stub `api`); its jobs recorded, not consumed. */
async function stripeSend(api: string, body: Json): Promise<{ errors: Json[]; jobs: unknown[] }> {
  const { sent, JOBS } = recordingJobs();
  const answer = await expectJson(callWith(stripeEnv(api, { JOBS }), request("POST", "/admin/bulk/refunds/send", { body })), 200);
  return { errors: answer.errors, jobs: sent.filter((j) => (j as Json).kind === "order.refund") };
}

/** Hands jobs to the queue consumer under the Stripe configuration, as the Queue would deliver them. */
async function consume(api: string, jobs: unknown[]) {
  const batch = createMessageBatch<unknown>(
    "ticketing-jobs",
    jobs.map((body, i) => ({ id: `refund-${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
  );
  await handleQueue(batch, stripeEnv(api));
  return getQueueResult(batch, createExecutionContext());
}

const form = (r: StubRequest) => Object.fromEntries(new URLSearchParams(r.body));

describe("refunds at the payment provider (Stripe)", () => {
  it("asks Stripe for the refund of the payment intent, the amount in cents, with an Idempotency-Key; the order is refunded", async () => {
    const s = await shop([{ name: "Regular", price: "12.50" }]);
    const o = await stripePaidOrder(s, 2, "pi_bulk_ok");
    const api = unique("stripe-refund-");
    await programStub(api, { body: REFUND_OK });
    const { errors, jobs } = await stripeSend(api, { order_ids: [o.id], cost_type: "ticket", cost: 0.5 });
    expect(errors).toEqual([]);
    expect(jobs).toHaveLength(1);
    const result = await consume(api, jobs);
    expect(result.retryMessages).toEqual([]);

    const got = await receivedBy(api);
    expect(got).toHaveLength(1);
    expect(got[0]!.method).toBe("POST");
    expect(got[0]!.path).toBe(`/${api}/v1/refunds`);
    expect(got[0]!.headers["authorization"]).toBe(`Bearer ${SECRET_KEY}`);
    expect(got[0]!.headers["idempotency-key"]).toBeTruthy();
    expect(got[0]!.headers["stripe-version"]).toBe("2026-09-30.endive");
    expect(form(got[0]!)).toStrictEqual({ payment_intent: "pi_bulk_ok", amount: "2400" });
    expect(await statusOf(o.id)).toBe("refunded");
    expect(await refundLog(o.id)).toBe(`Order ${o.id} was refunded (24.00 EUR).`);
  });

  it("the same refund job delivered three times at once, and again later, moves the money once", async () => {
    const s = await shop([{ name: "Regular", price: 10 }]);
    const o = await stripePaidOrder(s, 1, "pi_bulk_dupe");
    const api = unique("stripe-refund-");
    await programStub(api, { body: REFUND_OK, delayMs: 100 });
    const { jobs } = await stripeSend(api, { order_ids: [o.id, o.id], cost_type: "order", cost: 0 });
    expect(jobs.length).toBeGreaterThanOrEqual(1);
    await Promise.all([consume(api, jobs), consume(api, jobs), consume(api, [jobs[0]])]);
    await consume(api, jobs);
    // Directly, too: the service asked again after the order is refunded does nothing.
    await refundOrder(depsFromEnv(stripeEnv(api), undefined, ORIGIN), o.id, 1000);
    expect(await receivedBy(api)).toHaveLength(1);
    expect(await statusOf(o.id)).toBe("refunded");
    expect(await refundedEntries(o.id)).toHaveLength(1);
  });

  it("a refund Stripe refuses leaves the order paid with its tickets and sold, and writes a log entry; a later send succeeds", async () => {
    const s = await shop([{ name: "Regular", price: 10, stock_control: true, stock: 5, show_remaining: true }]);
    const o = await stripePaidOrder(s, 2, "pi_bulk_refused");
    const tickets = await ticketIdsOf(o.id);
    expect(tickets).toHaveLength(2);
    const refusing = unique("stripe-refund-");
    await programStub(refusing, {
      status: 400,
      body: JSON.stringify({ error: { type: "invalid_request_error", code: "charge_disputed", message: "Charge ch_9 has been charged back." } }),
    });
    const { errors, jobs } = await stripeSend(refusing, { order_ids: [o.id], cost_type: "order", cost: 0 });
    expect(errors).toEqual([]);
    await consume(refusing, jobs);

    const got = await waitForRequests(refusing, 1);
    expect(got).toHaveLength(1);
    expect(form(got[0]!)).toStrictEqual({ payment_intent: "pi_bulk_refused", amount: "2000" });
    expect(await statusOf(o.id)).toBe("paid");
    expect(await ticketIdsOf(o.id)).toEqual(tickets);
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
    expect(await formRemaining(s)).toBe(3);
    const entries = await logsOf(o.id);
    const failed = entries.filter((e) => e.description.includes("Charge ch_9 has been charged back."));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ event_id: s.event.id, order_id: o.id });
    expect(failed[0]!.description).toContain("20.00 EUR");
    expect(entries.filter((e) => /was refunded/.test(e.description))).toEqual([]);

    // The order is still paid, so it can be refunded again; this time Stripe agrees.
    const agreeing = unique("stripe-refund-");
    await programStub(agreeing, { body: REFUND_OK });
    const again = await stripeSend(agreeing, { order_ids: [o.id], cost_type: "order", cost: 0 });
    expect(again.errors).toEqual([]);
    await consume(agreeing, again.jobs);
    expect(await receivedBy(agreeing)).toHaveLength(1);
    expect(await statusOf(o.id)).toBe("refunded");
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
  });

  it("a refund of 0.00 (everything withheld) still refunds the order, without asking Stripe to move 0 (Stripe refuses amounts below 1)", async () => {
    const s = await shop([{ name: "Regular", price: 10 }]);
    const o = await stripePaidOrder(s, 2, "pi_bulk_zero");
    const api = unique("stripe-refund-");
    await programStub(api, { body: REFUND_OK });
    const { errors, jobs } = await stripeSend(api, { order_ids: [o.id], cost_type: "ticket", cost: 10 });
    expect(errors).toEqual([]);
    await consume(api, jobs);
    const zeroRequests = (await receivedBy(api)).filter((r) => form(r).amount === "0");
    expect(zeroRequests, "requests to Stripe with amount=0").toEqual([]);
    expect(await statusOf(o.id)).toBe("refunded");
    expect(await refundLog(o.id)).toBe(`Order ${o.id} was refunded (0.00 EUR).`);
  });

  it("Stripe answering 503: the order stays paid and the failure is logged", async () => {
    const s = await shop([{ name: "Regular", price: 10 }]);
    const o = await stripePaidOrder(s, 1, "pi_bulk_down");
    const down = unique("stripe-refund-");
    await programStub(down, { status: 503, body: "upstream unavailable" });
    const { jobs } = await stripeSend(down, { order_ids: [o.id], cost_type: "order", cost: 0 });
    await consume(down, jobs);
    expect(await receivedBy(down)).toHaveLength(1);
    expect(await statusOf(o.id)).toBe("paid");
    const failed = (await logsOf(o.id)).filter((e) => /fail/i.test(e.description));
    expect(failed).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/orders/<id>/refund", () => {
  it("200 with the whole total queued (decisions.md 3: success is 200 or 201); the order becomes refunded through the same path", async () => {
    const s = await shop([{ name: "Regular", price: "12.50", stock_control: true, stock: 4, show_remaining: true }]);
    const o = await paidOrder(s, [2]);
    const res = await refundOne(o.id);
    expect(await expectJson(res, 200)).toStrictEqual({ order_id: o.id, amount: 25, status: "queued" });
    await waitStatus(o.id, "refunded");
    expect(await refundLog(o.id)).toBe(`Order ${o.id} was refunded (25.00 EUR).`);
    expect(await ticketIdsOf(o.id)).toEqual([]);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
    await waitFor(
      "remaining back to 4",
      () => formRemaining(s),
      (n) => n === 4,
    );
    // Refunded now: a second refund is a 409.
    const err = await expectError(refundOne(o.id), 409, "order_not_paid");
    expect(err.message).toBe(NOT_PAID);
  });

  it("with an amount: that part of the total (a decimal string too)", async () => {
    const s = await shop([{ name: "Regular", price: "12.50" }]);
    const a = await paidOrder(s, [2]);
    const b = await paidOrder(s, [2]);
    expect(await expectJson(refundOne(a.id, { amount: 7.5 }), 200)).toStrictEqual({ order_id: a.id, amount: 7.5, status: "queued" });
    expect(await expectJson(refundOne(b.id, { amount: "25.00" }), 200)).toStrictEqual({ order_id: b.id, amount: 25, status: "queued" });
    await waitStatus(a.id, "refunded");
    await waitStatus(b.id, "refunded");
    expect(await refundLog(a.id)).toBe(`Order ${a.id} was refunded (7.50 EUR).`);
    expect(await refundLog(b.id)).toBe(`Order ${b.id} was refunded (25.00 EUR).`);
  });

  it("an amount above the total is a 400; a malformed amount or an unknown field too; the order stays paid", async () => {
    const s = await shop([{ name: "Regular", price: 10 }]);
    const o = await paidOrder(s, [1]);
    for (const amount of [10.01, "11", -1, 1.234, "abc", null]) {
      const err = await expectError(refundOne(o.id, { amount }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), `amount ${JSON.stringify(amount)}`).toEqual(["amount"]);
    }
    const err = await expectError(refundOne(o.id, { amount: 1, cost: 1 }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("cost");
    await sleep(300);
    expect(await statusOf(o.id)).toBe("paid");
  });

  it("not paid: 409 order_not_paid (open, dashboard, cancelled); unknown: 404", async () => {
    const s = await shop([{ name: "Regular", price: 10 }], { add_dashboard_orders_needed: true });
    const open = await openOrder(s);
    const desk = await dashboardOrder(s);
    const cancelled = await openOrder(s);
    await decide(cancelled.payment.checkout_url, "cancel");
    for (const o of [open, desk, cancelled]) {
      const err = await expectError(refundOne(o.id), 409, "order_not_paid");
      expect(err.message).toBe(NOT_PAID);
    }
    await expectError(refundOne(2_000_000_000), 404, "rest_order_invalid_id");
    await expectError(refundOne("abc"), 404, "rest_order_invalid_id");
  });

  it("an organizer refunds orders of its events only: another's is a 403 and stays paid", async () => {
    const mine = await shop();
    const theirs = await shop();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const own = await paidOrder(mine);
    const foreign = await paidOrder(theirs);
    await expectError(refundOne(foreign.id, {}, organizer.credentials), 403, "rest_forbidden");
    expect(await expectJson(refundOne(own.id, {}, organizer.credentials), 200)).toMatchObject({ order_id: own.id, status: "queued" });
    await waitStatus(own.id, "refunded");
    await sleep(300);
    expect(await statusOf(foreign.id)).toBe("paid");
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("authorisation and idempotency of the send call", () => {
  it("an organizer's send: another event's order is 'Order not found' and stays paid; its own is refunded", async () => {
    const mine = await shop();
    const theirs = await shop();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const own = await paidOrder(mine);
    const foreign = await paidOrder(theirs);
    const errors = await sendOk({ order_ids: [foreign.id, own.id], cost_type: "order", cost: 0 }, organizer.credentials);
    expect(errors).toStrictEqual([{ order_id: foreign.id, error: NOT_FOUND }]);
    await waitStatus(own.id, "refunded");
    await sleep(500);
    expect(await statusOf(foreign.id)).toBe("paid");
    expect(await refundedEntries(foreign.id)).toEqual([]);
  });

  it("Idempotency-Key: the same key and body replays the first answer (nothing runs again); another body is a 409", async () => {
    const s = await shop();
    const o = await paidOrder(s, [2]);
    const key = unique("refund-key-");
    const body = { order_ids: [o.id, 2_000_000_000], cost_type: "order", cost: 1 };
    const first = await send(body, undefined, { "Idempotency-Key": key });
    const firstBody = await expectJson(first, 200);
    expect(firstBody).toStrictEqual({ errors: [{ order_id: 2_000_000_000, error: NOT_FOUND }] });
    await waitStatus(o.id, "refunded");

    // Replayed: the first answer, although the order is no longer paid.
    const replay = await send({ cost: 1, cost_type: "order", order_ids: [o.id, 2_000_000_000] }, undefined, { "Idempotency-Key": key });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await expectJson(replay, 200)).toStrictEqual(firstBody);
    // Without the key the same body runs and sees the refund.
    expect(await sendOk(body)).toStrictEqual([
      { order_id: o.id, error: NOT_PAID },
      { order_id: 2_000_000_000, error: NOT_FOUND },
    ]);
    // The same key with another body.
    await expectError(send({ ...body, cost: 2 }, undefined, { "Idempotency-Key": key }), 409, "idempotency_key_reused");
    await sleep(300);
    expect(await refundedEntries(o.id)).toHaveLength(1);
  });
});
