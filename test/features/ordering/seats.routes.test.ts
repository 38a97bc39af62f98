import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import type { LedgerSnapshot } from "../../../src/event-object/stock-ledger";
import { depsFromEnv } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { rebuildEventObject } from "../../../src/features/ordering/stock.service";
import { call, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, eventSold, orderBody, placeOrder, postOrder, race, typeSold } from "../../helpers/orders";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * Seats (decisions.md 7 "Seats", 13 "Flows" `order_no_seats`): events with `seats_needed` hand out the seats of their
 * `seats_config` plan (or of `seats.linked_event`'s plan, shared by both events) lowest plan position first, when the
 * order is placed; the seat text (`seats_format`) follows the ticket type name wherever a ticket's type is shown. A
 * full plan refuses with `409 order_no_seats` and holds nothing; released orders give their seats back. Storage is
 * shared with other files: every test makes its own events and orders.
 */

type Json = Record<string, any>;

// The format carries its own separator: the seat text is appended to the type name as it is (decisions.md 14).
const FORMAT = ", row %s seat %02d";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const obj = (eventId: number) => eventObject(env, eventId);

interface Seated {
  event: { id: number; name: string; body: Json };
  type: { id: string; name: string };
}

/** A dashboard-order event with seats and one ticket type "Regular" (no stock control unless `typeBody` says so). */
async function seatedEvent(
  seats: { seats_config: string; seats_format?: string; number_of_seats?: number; linked_event?: number },
  eventBody: Json = {},
  typeBody: Json = {},
): Promise<Seated> {
  const event = await createOrderEvent({
    seats_needed: true,
    seats: { number_of_seats: 0, seats_format: FORMAT, linked_event: 0, ...seats },
    ...eventBody,
  });
  const type = await createOrderType(event.id, "Regular", typeBody);
  return { event, type };
}

const bodyFor = (s: Seated, count: number, extra: Json = {}) => orderBody(s.event.id, [s.type.id], { [s.type.id]: count }, extra);
const order = (s: Seated, count: number) => placeOrder(bodyFor(s, count));

/** The order's seats as D1 keeps them (`orders.seats`). */
async function seatsInD1(orderId: number): Promise<{ planEventId: number; indexes: number[]; labels: string[] } | null> {
  const row = await db.select({ seats: orders.seats }).from(orders).where(eq(orders.id, orderId)).get();
  expect(row, `order ${orderId} in D1`).toBeDefined();
  return row!.seats ?? null;
}

/** `ticket_type` of each ticket of `GET /admin/tickets/<order_id>`, sorted. */
async function adminTicketTypes(orderId: number): Promise<string[]> {
  const body = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return body.tickets.map((t: Json) => t.ticket_type as string).sort();
}

/** The `seat` column of the order's ticket rows, sorted. */
async function ticketSeats(orderId: number): Promise<string[]> {
  const rows = await db.select({ seat: tickets.seat }).from(tickets).where(eq(tickets.orderId, orderId));
  return rows.map((r) => r.seat).sort();
}

const labels = (...seats: string[]) => seats;
const rowSeat = (row: string, n: number) => `, row ${row} seat ${String(n).padStart(2, "0")}`;

/** The object's ledger once every confirm sent off the response path has arrived (no reservation still held). */
async function settledSnapshot(eventId: number): Promise<LedgerSnapshot> {
  for (let i = 0; i < 100; i++) {
    const snap = await obj(eventId).snapshot();
    if (snap.reservations.every((r) => r.state === "taken")) return snap;
    await sleep(50);
  }
  const snap = await obj(eventId).snapshot();
  expect(
    snap.reservations.filter((r) => r.state !== "taken"),
    `event ${eventId}: reservations still held`,
  ).toEqual([]);
  return snap;
}

async function soldOf(eventId: number): Promise<number> {
  return (await expectJson(call("GET", `/admin/events/${eventId}`), 200)).sold;
}

async function expectNoSeats(res: Response | Promise<Response>): Promise<void> {
  const err = await expectError(res, 409, "order_no_seats");
  expect(err.message).toBe("No more seats available");
}

describe("seats are handed out in plan order", () => {
  it("across several orders, a descending range included, with the seat text on tickets, in D1 and in the event object", async () => {
    const s = await seatedEvent({ seats_config: "A:1-3,B:20-18" });

    const first = await order(s, 2);
    expect(await seatsInD1(first.id)).toEqual({ planEventId: s.event.id, indexes: [0, 1], labels: labels(rowSeat("A", 1), rowSeat("A", 2)) });
    expect(await adminTicketTypes(first.id)).toEqual([`Regular${rowSeat("A", 1)}`, `Regular${rowSeat("A", 2)}`]);
    expect(await adminTicketTypes(first.id)).toContain("Regular, row A seat 01");

    const second = await order(s, 3);
    expect(await seatsInD1(second.id)).toEqual({
      planEventId: s.event.id,
      indexes: [2, 3, 4],
      labels: labels(rowSeat("A", 3), rowSeat("B", 20), rowSeat("B", 19)),
    });
    expect(await adminTicketTypes(second.id)).toEqual([rowSeat("A", 3), rowSeat("B", 19), rowSeat("B", 20)].map((l) => `Regular${l}`).sort());
    // The type name and the seat are kept apart in D1.
    expect(await ticketSeats(second.id)).toEqual([rowSeat("A", 3), rowSeat("B", 19), rowSeat("B", 20)].sort());
    const names = await db.select({ name: tickets.ticketTypeName }).from(tickets).where(eq(tickets.orderId, second.id));
    expect(names.map((n) => n.name)).toEqual(["Regular", "Regular", "Regular"]);

    const third = await order(s, 1);
    expect((await seatsInD1(third.id))!.labels).toEqual([rowSeat("B", 18)]);

    // The plan is full.
    await expectNoSeats(postOrder(bodyFor(s, 1)));

    // The object knows which order holds which seat, and its ticket list (used by scanning) shows the seats.
    const snap = await settledSnapshot(s.event.id);
    expect(snap.seats).toEqual([
      { seat: 0, uid: first.uid },
      { seat: 1, uid: first.uid },
      { seat: 2, uid: second.uid },
      { seat: 3, uid: second.uid },
      { seat: 4, uid: second.uid },
      { seat: 5, uid: third.uid },
    ]);
    const all = [first, second, third];
    const adminTickets = (await Promise.all(all.map((o) => expectJson(call("GET", `/admin/tickets/${o.id}`), 200)))).flatMap((b) => b.tickets);
    expect(snap.tickets.map((t) => ({ id: t.id, typeName: t.typeName })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      adminTickets.map((t: Json) => ({ id: t.ticket_id, typeName: t.ticket_type })).sort((a: Json, b: Json) => a.id.localeCompare(b.id)),
    );
    expect(new Set(snap.tickets.map((t) => t.typeName)).size).toBe(6);
  });

  it("an order of several ticket types seats each ticket; %d leaves the number unpadded", async () => {
    const event = await createOrderEvent({ seats_needed: true, seats: { number_of_seats: 0, seats_format: " %s%d", seats_config: "K:8-10", linked_event: 0 } });
    const regular = await createOrderType(event.id, "Regular");
    const vip = await createOrderType(event.id, "VIP");
    const placed = await placeOrder(orderBody(event.id, [regular.id, vip.id], { [regular.id]: 1, [vip.id]: 2 }));
    const seats = await seatsInD1(placed.id);
    expect(seats).toEqual({ planEventId: event.id, indexes: [0, 1, 2], labels: [" K8", " K9", " K10"] });
    const types = await adminTicketTypes(placed.id);
    expect(types).toHaveLength(3);
    expect(types.filter((t) => t.startsWith("Regular K"))).toHaveLength(1);
    expect(types.filter((t) => t.startsWith("VIP K"))).toHaveLength(2);
    expect(types.map((t) => t.replace(/^(Regular|VIP) /, "")).sort()).toEqual(["K10", "K8", "K9"]);
  });

  it("number_of_seats caps the plan at its first seats", async () => {
    const s = await seatedEvent({ seats_config: "A:1-10", number_of_seats: 3 });
    const a = await order(s, 2);
    const b = await order(s, 1);
    expect((await seatsInD1(a.id))!.labels).toEqual([rowSeat("A", 1), rowSeat("A", 2)]);
    expect((await seatsInD1(b.id))!.labels).toEqual([rowSeat("A", 3)]);
    await expectNoSeats(postOrder(bodyFor(s, 1)));
    expect(await eventSold(s.event.id)).toBe(3);
  });

  it("events without seats_needed give no seats, whatever their seat settings", async () => {
    const event = await createOrderEvent({ seats_needed: false, seats: { number_of_seats: 0, seats_format: FORMAT, seats_config: "A:1-1", linked_event: 0 } });
    const type = await createOrderType(event.id, "Regular");
    const placed = await placeOrder(orderBody(event.id, [type.id], { [type.id]: 3 }));
    expect(await seatsInD1(placed.id)).toBeNull();
    expect(await adminTicketTypes(placed.id)).toEqual(["Regular", "Regular", "Regular"]);
  });
});

describe("the seat text wherever a ticket's type is shown", () => {
  it("on the PDF's ticket-type line and in the personalisation view", async () => {
    const s = await seatedEvent({ seats_config: "A:1-5" });
    await order(s, 1); // takes A 01
    const placed = await order(s, 2);
    const expected = [`Regular${rowSeat("A", 2)}`, `Regular${rowSeat("A", 3)}`];

    const res = await call("GET", `/tickets/${placed.uid}`, { key: null, auth: null });
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(res.status, new TextDecoder().decode(bytes.slice(0, 200))).toBe(200);
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(2);
    const typeLines = doc.getPages().map((page) => {
      const lines = readPage(page).lines.map((l) => l.text);
      // The documented order: event name, then the ticket type (with its seat).
      expect(lines[0]).toBe(s.event.name);
      return lines[1]!;
    });
    expect(typeLines.sort()).toEqual(expected);

    const view = await expectJson(call("GET", `/tickets/${placed.uid}/personalisation`, { key: null, auth: null }), 200);
    expect(view.tickets.map((t: Json) => t.ticket_type).sort()).toEqual(expected);
  });

  it("re-issuing the tickets keeps the order's seats (new ticket ids, same seats, in the object too)", async () => {
    const s = await seatedEvent({ seats_config: "C:1-4" });
    await order(s, 1);
    const placed = await order(s, 2);
    const before = await expectJson(call("GET", `/admin/tickets/${placed.id}`), 200);
    await settledSnapshot(s.event.id);

    await expectJson(call("DELETE", `/admin/tickets/${placed.id}`), 200);
    expect(await adminTicketTypes(placed.id)).toEqual([]);
    await expectJson(call("POST", `/admin/tickets/${placed.id}`), 201);

    const after = await expectJson(call("GET", `/admin/tickets/${placed.id}`), 200);
    const ids = (b: Json) => b.tickets.map((t: Json) => t.ticket_id).sort();
    expect(ids(after)).not.toEqual(ids(before));
    expect(after.tickets.map((t: Json) => t.ticket_type).sort()).toEqual([`Regular${rowSeat("C", 2)}`, `Regular${rowSeat("C", 3)}`]);
    expect((await seatsInD1(placed.id))!.indexes).toEqual([1, 2]);

    // The object's ticket list carries the seats of the new tickets, and the order still holds its seats there.
    let mine: { id: string; typeName: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const snap = await obj(s.event.id).snapshot();
      mine = snap.tickets.filter((t) => t.uid === placed.uid).map((t) => ({ id: t.id, typeName: t.typeName }));
      if (mine.length === 2 && mine.every((t) => ids(after).includes(t.id))) break;
      await sleep(50);
    }
    expect(mine.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      after.tickets.map((t: Json) => ({ id: t.ticket_id, typeName: t.ticket_type })).sort((a: Json, b: Json) => a.id.localeCompare(b.id)),
    );
    const snap = await obj(s.event.id).snapshot();
    expect(snap.seats.filter((x) => x.uid === placed.uid).map((x) => x.seat)).toEqual([1, 2]);
    // A re-issue takes no new seat.
    const next = await order(s, 1);
    expect((await seatsInD1(next.id))!.labels).toEqual([rowSeat("C", 4)]);
  });
});

describe("a full plan: 409 order_no_seats", () => {
  it("a plan enlarged by an event update lets the next orders in, on the event and on an event sharing its plan", async () => {
    const owner = await seatedEvent({ seats_config: "A:1-1", seats_format: "%s%d" });
    const sharer = await seatedEvent({ seats_config: "", seats_format: "%s%d", linked_event: owner.event.id });
    await order(owner, 1);
    await expectNoSeats(postOrder(bodyFor(owner, 1)));
    await expectNoSeats(postOrder(bodyFor(sharer, 1)));

    await expectJson(call("PUT", `/admin/events/${owner.event.id}`, { body: { seats: { seats_config: "A:1-1,B:5-4" } } }), 200);
    const s1 = await order(sharer, 1);
    expect((await seatsInD1(s1.id))!.labels).toEqual(["B5"]);
    const o1 = await order(owner, 1);
    expect((await seatsInD1(o1.id))!.labels).toEqual(["B4"]);
    await expectNoSeats(postOrder(bodyFor(sharer, 1)));
  });

  it("holds nothing: no order, no sold, the object's totals and seats unchanged; a smaller order still fits", async () => {
    const s = await seatedEvent({ seats_config: "A:1-4" }, { stock: 50 }, { stock_control: true, stock: 40 });
    const big = await order(s, 3);
    const before = await settledSnapshot(s.event.id);
    const soldBefore = { event: await eventSold(s.event.id), type: await typeSold(s.event.id, s.type.id) };
    expect(soldBefore).toEqual({ event: 3, type: 3 });
    const ordersBefore = await db.$count(orders, eq(orders.eventId, s.event.id));

    await expectNoSeats(postOrder(bodyFor(s, 2)));

    expect({ event: await eventSold(s.event.id), type: await typeSold(s.event.id, s.type.id) }).toEqual(soldBefore);
    expect(await soldOf(s.event.id)).toBe(3);
    expect(await db.$count(orders, eq(orders.eventId, s.event.id))).toBe(ordersBefore);
    expect(await obj(s.event.id).snapshot()).toEqual(before);
    expect(await obj(s.event.id).remaining()).toEqual({ event: 47, types: { [s.type.id]: 37 } });

    // One seat is left: an order within it succeeds and gets it.
    const small = await order(s, 1);
    expect((await seatsInD1(small.id))!.labels).toEqual([rowSeat("A", 4)]);
    await expectNoSeats(postOrder(bodyFor(s, 1)));

    // Freed seats are handed out again, lowest first.
    await expectJson(call("DELETE", `/admin/orders/${big.id}`), 200);
    const again = await order(s, 2);
    expect((await seatsInD1(again.id))!.labels).toEqual([rowSeat("A", 1), rowSeat("A", 2)]);
    const last = await order(s, 1);
    expect((await seatsInD1(last.id))!.labels).toEqual([rowSeat("A", 3)]);
    expect(await eventSold(s.event.id)).toBe(4);
  });

  it("is answered when seats run out before the stock does (seat plan smaller than the stock)", async () => {
    const s = await seatedEvent({ seats_config: "A:1-2" }, {}, { stock_control: true, stock: 10 });
    await expectNoSeats(postOrder(bodyFor(s, 3)));
    expect(await typeSold(s.event.id, s.type.id)).toBe(0);
    expect(await obj(s.event.id).remaining()).toEqual({ event: null, types: { [s.type.id]: 10 } });
    const ok = await order(s, 2);
    expect((await seatsInD1(ok.id))!.labels).toEqual([rowSeat("A", 1), rowSeat("A", 2)]);
  });

  it("a stock refusal comes before the seats: the type's code, not order_no_seats", async () => {
    const s = await seatedEvent({ seats_config: "A:1-10" }, {}, { stock_control: true, stock: 1 });
    await expectError(postOrder(bodyFor(s, 2)), 409, "order_stock_unavailable");
    expect((await obj(s.event.id).snapshot()).seats).toEqual([]);
  });
});

describe("released orders give their seats back", () => {
  it("a deleted order's seats go to the next orders, lowest plan position first", async () => {
    const s = await seatedEvent({ seats_config: "A:1-3,B:1-3" });
    const o1 = await order(s, 1); // A1
    const o2 = await order(s, 2); // A2 A3
    const o3 = await order(s, 1); // B1
    expect((await seatsInD1(o3.id))!.labels).toEqual([rowSeat("B", 1)]);

    await expectJson(call("DELETE", `/admin/orders/${o2.id}`), 200);
    const snap = await obj(s.event.id).snapshot();
    expect(snap.seats.map((x) => x.seat)).toEqual([0, 3]);

    // The hole is filled first, then the plan continues after the highest seat in use.
    const o4 = await order(s, 3);
    expect(await seatsInD1(o4.id)).toEqual({
      planEventId: s.event.id,
      indexes: [1, 2, 4],
      labels: [rowSeat("A", 2), rowSeat("A", 3), rowSeat("B", 2)],
    });
    expect(await adminTicketTypes(o4.id)).toEqual([rowSeat("A", 2), rowSeat("A", 3), rowSeat("B", 2)].map((l) => `Regular${l}`).sort());

    await expectJson(call("DELETE", `/admin/orders/${o1.id}`), 200);
    const o5 = await order(s, 2);
    expect((await seatsInD1(o5.id))!.labels).toEqual([rowSeat("A", 1), rowSeat("B", 3)]);
    await expectNoSeats(postOrder(bodyFor(s, 1)));
  });

  it("a rebuilt event object keeps every live order's seats", async () => {
    const s = await seatedEvent({ seats_config: "A:1-5" });
    const a = await order(s, 2);
    const b = await order(s, 1);
    await expectJson(call("DELETE", `/admin/orders/${a.id}`), 200);
    const c = await order(s, 1);
    const before = await settledSnapshot(s.event.id);
    expect(before.seats).toEqual([
      { seat: 0, uid: c.uid },
      { seat: 2, uid: b.uid },
    ]);

    await rebuildEventObject(depsFromEnv(env), s.event.id);
    const after = await obj(s.event.id).snapshot();
    expect(after.seats).toEqual(before.seats);
    expect(after.tickets).toEqual(before.tickets);
    const d = await order(s, 3);
    expect((await seatsInD1(d.id))!.indexes).toEqual([1, 3, 4]);
  });
});

describe("a plan shared through seats.linked_event", () => {
  it("both events draw from one pool (the plan owner's cap included), no seat is given twice, and releases reach the plan", async () => {
    const owner = await seatedEvent({ seats_config: "A:1-10", seats_format: "%s%d", number_of_seats: 4 });
    const sharer = await seatedEvent({ seats_config: "", seats_format: " Seat %s-%02d", linked_event: owner.event.id }, { stock: 20 });

    const s1 = await order(sharer, 1);
    expect(await seatsInD1(s1.id)).toEqual({ planEventId: owner.event.id, indexes: [0], labels: [" Seat A-01"] });
    expect(await adminTicketTypes(s1.id)).toEqual(["Regular Seat A-01"]);

    const o1 = await order(owner, 2);
    expect(await seatsInD1(o1.id)).toEqual({ planEventId: owner.event.id, indexes: [1, 2], labels: ["A2", "A3"] });

    const s2 = await order(sharer, 1);
    expect((await seatsInD1(s2.id))!.labels).toEqual([" Seat A-04"]);

    // The pool of 4 is exhausted for both events; the sharer's refusal releases its own event stock too.
    const sharerBefore = await settledSnapshot(sharer.event.id);
    await expectNoSeats(postOrder(bodyFor(sharer, 1)));
    await expectNoSeats(postOrder(bodyFor(owner, 1)));
    expect(await obj(sharer.event.id).snapshot()).toEqual(sharerBefore);
    expect(await eventSold(sharer.event.id)).toBe(2);
    expect(await eventSold(owner.event.id)).toBe(2);

    // The seats live in the plan owner's object.
    const plan = await settledSnapshot(owner.event.id);
    expect(plan.seats).toEqual([
      { seat: 0, uid: s1.uid },
      { seat: 1, uid: o1.uid },
      { seat: 2, uid: o1.uid },
      { seat: 3, uid: s2.uid },
    ]);
    expect((await obj(sharer.event.id).snapshot()).seats).toEqual([]);

    // Deleting the sharer's order gives its seat back to the shared plan, where the owner's next order finds it.
    await expectJson(call("DELETE", `/admin/orders/${s1.id}`), 200);
    const o2 = await order(owner, 1);
    expect((await seatsInD1(o2.id))!.labels).toEqual(["A1"]);
  });

  it("racing orders on both events never give one seat twice", async () => {
    const owner = await seatedEvent({ seats_config: "A:1-6,B:1-6", seats_format: "%s%d" });
    const sharer = await seatedEvent({ seats_config: "", seats_format: "%s%d", linked_event: owner.event.id });
    const bodies = times(24, (i) => (i % 2 === 0 ? bodyFor(owner, 1) : bodyFor(sharer, 1)));
    const outcome = await race(bodies);

    expect(outcome.won).toHaveLength(12);
    expect(outcome.lost).toHaveLength(12);
    for (const loss of outcome.lost) {
      expect(loss).toEqual({ status: 409, body: { code: "order_no_seats", message: "No more seats available", data: { status: 409 } } });
    }
    const seats = await Promise.all(outcome.won.map(async (o) => (await seatsInD1(o.id))!));
    for (const s of seats) expect(s.planEventId).toBe(owner.event.id);
    expect(seats.flatMap((s) => s.indexes).sort((a, b) => a - b)).toEqual(times(12, (i) => i));
    expect(new Set(seats.flatMap((s) => s.labels)).size).toBe(12);
    expect((await eventSold(owner.event.id)) + (await eventSold(sharer.event.id))).toBe(12);
  });
});

describe("concurrent orders on a seat plan", () => {
  it("30 one-ticket orders at once on 20 seats: exactly 20 succeed with 20 distinct seats, 10 get order_no_seats", async () => {
    const s = await seatedEvent({ seats_config: "A:1-10,B:10-1" });
    const outcome = await race(times(30, () => bodyFor(s, 1)));

    expect(outcome.won).toHaveLength(20);
    expect(outcome.lost).toHaveLength(10);
    for (const loss of outcome.lost) {
      expect(loss).toEqual({ status: 409, body: { code: "order_no_seats", message: "No more seats available", data: { status: 409 } } });
    }
    const seats = await Promise.all(outcome.won.map(async (o) => (await seatsInD1(o.id))!));
    expect(seats.flatMap((x) => x.indexes).sort((a, b) => a - b)).toEqual(times(20, (i) => i));
    const all = seats.flatMap((x) => x.labels);
    expect(new Set(all).size).toBe(20);
    expect(all.sort()).toEqual([...times(10, (i) => rowSeat("A", i + 1)), ...times(10, (i) => rowSeat("B", i + 1))].sort());

    const types = (await Promise.all(outcome.won.map((o) => adminTicketTypes(o.id)))).flat();
    expect(new Set(types).size).toBe(20);
    expect(await eventSold(s.event.id)).toBe(20);
    const snap = await settledSnapshot(s.event.id);
    expect(snap.seats.map((x) => x.seat)).toEqual(times(20, (i) => i));
    expect(new Set(snap.seats.map((x) => x.uid))).toEqual(new Set(outcome.won.map((o) => o.uid)));
    expect(snap.reservations).toHaveLength(20);
  });
});

describe("seat settings validation", () => {
  const post = (body: Json) => call("POST", "/admin/events", { body: { event_name: unique("Seats "), ...body } });

  it.each([
    ["no colon", { seats_config: "A1-10", seats_format: FORMAT }],
    ["no range", { seats_config: "A:1", seats_format: FORMAT }],
    ["empty plan without a linked event", { seats_config: "", seats_format: FORMAT }],
    ["format without %s", { seats_config: "A:1-10", seats_format: "Seat %d" }],
    ["format without a number", { seats_config: "A:1-10", seats_format: "Row %s" }],
    ["number before row", { seats_config: "A:1-10", seats_format: "%d %s" }],
    ["unknown conversion", { seats_config: "A:1-10", seats_format: "Row %s seat %x" }],
  ])("seats_needed with a bad plan or format (%s) is a 400 naming seats", async (_label, seats) => {
    const err = await expectError(post({ seats_needed: true, seats }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("seats");
  });

  it("accepts a linked_event with an empty plan of its own (but still wants a good format)", async () => {
    const owner = await createEvent({ event_name: unique("Owner "), seats_needed: true, seats: { seats_config: "A:1-10", seats_format: "%s%d" } });
    const sharer = await expectJson(post({ seats_needed: true, seats: { seats_config: "", seats_format: "%s-%02d", linked_event: owner.id } }), 201);
    expect(sharer.seats).toEqual({ number_of_seats: 0, seats_config: "", seats_format: "%s-%02d", linked_event: owner.id });
    const err = await expectError(post({ seats_needed: true, seats: { seats_config: "", seats_format: "Seat %d", linked_event: owner.id } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("seats");
  });
});

describe("customer orders", () => {
  const post = (eventId: number, body: unknown) => call("POST", `/events/${eventId}/orders`, { body, auth: null });
  const open = (url: string, init: RequestInit = {}) => exports.default.fetch(new Request(url, { redirect: "manual", ...init }));
  const decide = (url: string, action: string) =>
    open(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` });

  it("an open order holds its seats when placed; its tickets carry them once paid; a cancelled order gives them back", async () => {
    const event = await createEvent({ event_name: unique("Seated shop "), seats_needed: true, seats: { seats_config: "F:1-3", seats_format: FORMAT } });
    const type = await createTicketType(event.id, { name: "Regular", price: 10 });
    const body = (count: number) => ({ name: "Ann Smith", email: "ann@example.com", tickets: [{ [type.id]: count }] });

    const a = await expectJson(post(event.id, body(2)), 201);
    expect(a.payment_status).toBe("open");
    expect(await seatsInD1(a.id)).toEqual({ planEventId: event.id, indexes: [0, 1], labels: [rowSeat("F", 1), rowSeat("F", 2)] });
    expect(await adminTicketTypes(a.id)).toEqual([]);

    const b = await expectJson(post(event.id, body(1)), 201);
    expect((await seatsInD1(b.id))!.labels).toEqual([rowSeat("F", 3)]);
    await expectNoSeats(post(event.id, body(1)));

    const paid = await decide(a.payment.checkout_url, "pay");
    expect(paid.status).toBe(303);
    expect((await expectJson(call("GET", `/admin/orders/${a.id}`), 200)).payment_status).toBe("paid");
    expect(await adminTicketTypes(a.id)).toEqual([`Regular${rowSeat("F", 1)}`, `Regular${rowSeat("F", 2)}`]);
    expect(await ticketSeats(a.id)).toEqual([rowSeat("F", 1), rowSeat("F", 2)]);

    const cancelled = await decide(b.payment.checkout_url, "cancel");
    expect(cancelled.status).toBe(303);
    expect((await expectJson(call("GET", `/admin/orders/${b.id}`), 200)).payment_status).toBe("canceled");
    const c = await expectJson(post(event.id, body(1)), 201);
    expect((await seatsInD1(c.id))!.labels).toEqual([rowSeat("F", 3)]);
    await decide(c.payment.checkout_url, "pay");
    expect(await adminTicketTypes(c.id)).toEqual([`Regular${rowSeat("F", 3)}`]);
  });
  /** The order's payment deadline has passed and the expiry ran (as the object's alarm would have it through the queue). */
  async function expire(o: Json, eventId: number) {
    await settledSnapshot(eventId);
    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, o.id));
    await expireOrder(depsFromEnv(env), o.uid, eventId);
    expect((await expectJson(call("GET", `/admin/orders/${o.id}`), 200)).payment_status).toBe("expired");
  }

  it("an expired order gives its seats back; paid late it takes free seats again (others than before) and its tickets show them", async () => {
    const event = await createEvent({ event_name: unique("Seated shop "), seats_needed: true, seats: { seats_config: "G:1-3", seats_format: FORMAT } });
    const type = await createTicketType(event.id, { name: "Regular", price: 10 });
    const body = () => ({ name: "Ann Smith", email: "ann@example.com", tickets: [{ [type.id]: 1 }] });

    const late = await expectJson(post(event.id, body()), 201);
    expect((await seatsInD1(late.id))!.labels).toEqual([rowSeat("G", 1)]);
    await expire(late, event.id);
    expect((await obj(event.id).snapshot()).seats).toEqual([]);

    const other = await expectJson(post(event.id, body()), 201);
    expect((await seatsInD1(other.id))!.labels).toEqual([rowSeat("G", 1)]);

    await decide(late.payment.checkout_url, "pay");
    expect((await expectJson(call("GET", `/admin/orders/${late.id}`), 200)).payment_status).toBe("paid");
    expect(await seatsInD1(late.id)).toEqual({ planEventId: event.id, indexes: [1], labels: [rowSeat("G", 2)] });
    expect(await adminTicketTypes(late.id)).toEqual([`Regular${rowSeat("G", 2)}`]);
    const snap = await settledSnapshot(event.id);
    expect(snap.seats).toEqual([
      { seat: 0, uid: other.uid },
      { seat: 1, uid: late.uid },
    ]);

    const third = await expectJson(post(event.id, body()), 201);
    expect((await seatsInD1(third.id))!.labels).toEqual([rowSeat("G", 3)]);
    await expectNoSeats(post(event.id, body()));
  });

  it("an expired order paid late when no seat is left is refunded and gets no tickets", async () => {
    const event = await createEvent({ event_name: unique("Seated shop "), seats_needed: true, seats: { seats_config: "H:1-1", seats_format: FORMAT } });
    const type = await createTicketType(event.id, { name: "Regular", price: 10 });
    const body = () => ({ name: "Ann Smith", email: "ann@example.com", tickets: [{ [type.id]: 1 }] });
    const late = await expectJson(post(event.id, body()), 201);
    await expire(late, event.id);
    const other = await expectJson(post(event.id, body()), 201);
    await decide(other.payment.checkout_url, "pay");
    await decide(late.payment.checkout_url, "pay");
    expect((await expectJson(call("GET", `/admin/orders/${late.id}`), 200)).payment_status).toBe("refunded");
    expect(await adminTicketTypes(late.id)).toEqual([]);
    expect(await adminTicketTypes(other.id)).toEqual([`Regular${rowSeat("H", 1)}`]);
    const snap = await settledSnapshot(event.id);
    expect(snap.seats).toEqual([{ seat: 0, uid: other.uid }]);
  });
});
