import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events, objectSyncs, orders, tickets, ticketTypes } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import { HOLD_MS, type EventObject } from "../../../src/event-object/event.do";
import type { LedgerSnapshot } from "../../../src/event-object/stock-ledger";
import { ApiError } from "../../../src/domain/errors";
import { depsFromEnv } from "../../../src/platform/deps";
import { newOrderUid, ticketSeeds } from "../../../src/features/ordering/order-drafts";
import type { TicketLine } from "../../../src/domain/order-rules";
import { holdStock, objectsLearnOnTheirOwn, planStock, rebuildEventObject, releaseStock, type StockPlan } from "../../../src/features/ordering/stock.service";
import { call, expectJson, unique } from "../../helpers/api";
import { db } from "../../helpers/catalogue";
import { expectLogged } from "../../helpers/logs";
import { createOrderEvent, createOrderType, eventSold, orderBody, ordersOf, placeOrder, postOrder, race, typeSold, type RaceOutcome } from "../../helpers/orders";

/**
 * The hold / take / release protocol of docs/stock.md (decisions.md sections 1, 5.6 and 13): one event object per
 * event is the stock authority, racing orders never oversell, a failure between steps leaks nothing, abandoned holds
 * come back through the object's alarm, a rebuilt object answers as the live one did, and deleting an order gives
 * its units back. Every test uses its own events.
 */

const obj = (eventId: number) => eventObject(env, eventId);
const deps = () => depsFromEnv(env);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

/** Exactly `wins` orders were created; every other answer is the 409 refusal with this code and message. */
function expectRace(outcome: RaceOutcome, fired: number, wins: number, code: string, message: string): void {
  expect(outcome.won.length + outcome.lost.length).toBe(fired);
  expect(outcome.won, `orders created (refusals: ${JSON.stringify(outcome.lost.slice(0, 2))})`).toHaveLength(wins);
  expect(new Set(outcome.won.map((o) => o.id)).size).toBe(wins);
  expect(outcome.lost).toHaveLength(fired - wins);
  for (const loss of outcome.lost) {
    expect(loss).toEqual({ status: 409, body: { code, message, data: { status: 409 } } });
  }
}

/** D1 holds exactly the created orders for the event, no other. */
async function expectOrdersInD1(eventId: number, won: readonly any[]): Promise<void> {
  const rows = await ordersOf(eventId);
  expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(won.map((o) => o.id as number).sort((a, b) => a - b));
  expect(rows.map((r) => r.uid).sort()).toEqual(won.map((o) => o.uid as string).sort());
}

/**
 * The object's ledger once every confirm sent off the response path (`waitUntil`) has arrived: no reservation is
 * still held. Fails when one stays held.
 */
async function settledSnapshot(eventId: number): Promise<LedgerSnapshot> {
  const stub = obj(eventId);
  for (let i = 0; i < 100; i++) {
    const snap = await stub.snapshot();
    if (snap.reservations.every((r) => r.state === "taken")) return snap;
    await sleep(50);
  }
  const snap = await stub.snapshot();
  expect(
    snap.reservations.filter((r) => r.state !== "taken"),
    `event ${eventId}: reservations still held`,
  ).toEqual([]);
  return snap;
}

/** The reservations of the object are exactly the takes of these orders. */
async function expectTakes(eventId: number, won: readonly any[]): Promise<LedgerSnapshot> {
  const snap = await settledSnapshot(eventId);
  expect(snap.reservations.map((r) => r.uid).sort()).toEqual(won.map((o) => o.uid as string).sort());
  for (const r of snap.reservations) expect(r).toMatchObject({ state: "taken", deadline: null });
  return snap;
}

/** What an order is made of at the service level: the event row, its lines (every type, in position order), seeds. */
async function servicePieces(eventId: number, counts: Record<string, number>) {
  const event = await db.select().from(events).where(eq(events.id, eventId)).get();
  expect(event).toBeDefined();
  const types = await db.select().from(ticketTypes).where(eq(ticketTypes.eventId, eventId)).orderBy(asc(ticketTypes.position));
  const lines: TicketLine[] = types.map((type) => ({ type, count: counts[type.id] ?? 0 }));
  const seeds = ticketSeeds(
    event!,
    lines.filter((l) => l.count > 0),
    [],
  );
  return { event: event!, lines, seeds };
}

/** The object's ticket rows with what they know of their order (the snapshot leaves that out). */
async function ticketRowsOf(eventId: number) {
  return runInDurableObject(obj(eventId), (_i: EventObject, state) =>
    state.storage.sql
      .exec<{ id: string; uid: string; type_name: string; order_id: number | null; name: string | null; email: string | null }>(
        `SELECT id, uid, type_name, order_id, name, email FROM tickets ORDER BY id`,
      )
      .toArray(),
  );
}

async function expectNoReservation(eventId: number, uid: string): Promise<void> {
  const snap = await obj(eventId).snapshot();
  expect(snap.reservations.filter((r) => r.uid === uid)).toEqual([]);
  expect(snap.tickets.filter((t) => t.uid === uid)).toEqual([]);
}

describe("racing dashboard orders never oversell", () => {
  it("(a) ticket-type stock: of 100 one-ticket orders at a stock of 30, exactly 30 are created", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 30 });
    const outcome = await race(times(100, () => orderBody(event.id, [type.id], { [type.id]: 1 })));

    expectRace(outcome, 100, 30, "order_stock_unavailable", "Not enough stock available for ticket-type: Limited (0)");
    expect(await typeSold(event.id, type.id)).toBe(30);
    expect(await eventSold(event.id)).toBe(30);
    await expectOrdersInD1(event.id, outcome.won);
    expect(await db.$count(tickets, eq(tickets.eventId, event.id))).toBe(30);
    expect(await obj(event.id).remaining()).toEqual({ event: null, types: { [type.id]: 0 } });
    const snap = await expectTakes(event.id, outcome.won);
    expect(snap.totals).toEqual({ event: 30, [`type:${type.id}`]: 30 });
    expect(snap.tickets).toHaveLength(30);
  });

  it("(b) event stock: of 100 one-ticket orders of an unlimited type at an event stock of 30, exactly 30 are created", async () => {
    const event = await createOrderEvent({ stock: 30 });
    const type = await createOrderType(event.id, "Open");
    const outcome = await race(times(100, () => orderBody(event.id, [type.id], { [type.id]: 1 })));

    expectRace(outcome, 100, 30, "order_event_stock_unavailable", `No more stock available for "${event.name}"`);
    expect(await eventSold(event.id)).toBe(30);
    expect(await typeSold(event.id, type.id)).toBe(30);
    await expectOrdersInD1(event.id, outcome.won);
    expect(await obj(event.id).remaining()).toEqual({ event: 0, types: { [type.id]: null } });
    await expectTakes(event.id, outcome.won);
  });

  it("(c) linked event: orders on an unlimited event draw on its linked event's stock of 30", async () => {
    const linked = await createOrderEvent({ stock: 30 });
    const event = await createOrderEvent({ stock_link: linked.id });
    const type = await createOrderType(event.id, "Regular");
    const outcome = await race(times(100, () => orderBody(event.id, [type.id], { [type.id]: 1 })));

    expectRace(outcome, 100, 30, "order_linked_stock_unavailable", `Not enough stock for linked event-id ${linked.id}`);
    expect(await eventSold(linked.id)).toBe(30);
    expect(await eventSold(event.id)).toBe(30);
    expect(await typeSold(event.id, type.id)).toBe(30);
    await expectOrdersInD1(event.id, outcome.won);
    expect(await ordersOf(linked.id)).toEqual([]);
    expect(await obj(linked.id).remaining()).toEqual({ event: 0, types: {} });
    expect(await obj(event.id).remaining()).toEqual({ event: null, types: { [type.id]: null } });
    await expectTakes(linked.id, outcome.won);
    await expectTakes(event.id, outcome.won);
    // The linked event gets no tickets; the ordered event gets all of them.
    expect((await obj(linked.id).snapshot()).tickets).toEqual([]);
    expect((await obj(event.id).snapshot()).tickets).toHaveLength(30);
  });

  it("(d) linked type: the linked event's type of exactly the same name (case-sensitive) limits the orders", async () => {
    const linked = await createOrderEvent();
    // Created first, so a case-insensitive lookup would find it before "Adult".
    const lower = await createOrderType(linked.id, "adult", { stock_control: true, stock: 1000 });
    const adultB = await createOrderType(linked.id, "Adult", { stock_control: true, stock: 30 });
    const event = await createOrderEvent({ stock_link: linked.id });
    const adultA = await createOrderType(event.id, "Adult");
    const outcome = await race(times(100, () => orderBody(event.id, [adultA.id], { [adultA.id]: 1 })));

    expectRace(outcome, 100, 30, "order_linked_stock_unavailable", `Not enough stock for linked event-id ${linked.id}`);
    expect(await typeSold(linked.id, adultB.id)).toBe(30);
    expect(await typeSold(linked.id, lower.id)).toBe(0);
    expect(await eventSold(linked.id)).toBe(30);
    expect(await typeSold(event.id, adultA.id)).toBe(30);
    await expectOrdersInD1(event.id, outcome.won);
    expect(await obj(linked.id).remaining()).toEqual({ event: null, types: { [lower.id]: 1000, [adultB.id]: 0 } });
    const snap = await expectTakes(linked.id, outcome.won);
    for (const r of snap.reservations) expect(r).toMatchObject({ typeUnits: { [adultB.id]: 1 }, eventUnits: 1 });
  });

  it("(e) passe-partout: each order takes one unit of every child event; the lowest child's stock of 30 limits it", async () => {
    const group = unique("G");
    const c1 = await createOrderEvent({ stock: 30, group_type: 1, event_group: group });
    const c2 = await createOrderEvent({ group_type: 1, event_group: group });
    await createOrderType(c1.id, "Day");
    await createOrderType(c2.id, "Day");
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const type = await createOrderType(pass.id, "Pass");
    const outcome = await race(times(100, () => orderBody(pass.id, [type.id], { [type.id]: 1 })));

    expectRace(outcome, 100, 30, "order_event_stock_unavailable", `No more stock available for "${c1.name}"`);
    expect(await eventSold(c1.id)).toBe(30);
    expect(await eventSold(c2.id)).toBe(30);
    expect(await eventSold(pass.id)).toBe(30);
    expect(await typeSold(pass.id, type.id)).toBe(30);
    await expectOrdersInD1(pass.id, outcome.won);
    expect(await ordersOf(c1.id)).toEqual([]);
    expect((await obj(c1.id).remaining())!.event).toBe(0);
    expect((await obj(c2.id).remaining())!.event).toBeNull();

    // Every created order has one ticket at C1 and C2, each shown under P's type name, and none at P (decisions.md 15).
    const views = await Promise.all(outcome.won.map((o) => expectJson(call("GET", `/admin/tickets/${o.id}`), 200)));
    for (const view of views) {
      expect(view.tickets.map((t: any) => t.event_id).sort((a: number, b: number) => a - b)).toEqual([c1.id, c2.id]);
      for (const t of view.tickets) expect(t.ticket_type).toBe("Pass");
    }
    const byEvent = (id: number) => views.flatMap((v) => v.tickets.filter((t: any) => t.event_id === id).map((t: any) => t.ticket_id as string)).sort();
    for (const id of [c1.id, c2.id, pass.id]) {
      const snap = await expectTakes(id, outcome.won);
      expect(snap.tickets.map((t) => t.id).sort()).toEqual(byEvent(id));
      for (const t of snap.tickets) expect(t.typeName).toBe("Pass");
    }
    expect(byEvent(pass.id)).toEqual([]);
  });

  it("orders of 2 tickets at a stock of 30 sell exactly 30 (15 orders)", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Pair", { stock_control: true, stock: 30 });
    const outcome = await race(times(60, () => orderBody(event.id, [type.id], { [type.id]: 2 })));

    expectRace(outcome, 60, 15, "order_stock_unavailable", "Not enough stock available for ticket-type: Pair (0)");
    expect(await typeSold(event.id, type.id)).toBe(30);
    expect(await eventSold(event.id)).toBe(30);
    await expectOrdersInD1(event.id, outcome.won);
    expect(await db.$count(tickets, eq(tickets.eventId, event.id))).toBe(30);
    expect(await obj(event.id).remaining()).toEqual({ event: null, types: { [type.id]: 0 } });
    await expectTakes(event.id, outcome.won);
  });

  it("types with is_counted false do not count against the event stock", async () => {
    const event = await createOrderEvent({ stock: 30 });
    const counted = await createOrderType(event.id, "Counted");
    const free = await createOrderType(event.id, "Companion", { is_counted: false });
    const ids = [counted.id, free.id];
    const outcome = await race(times(40, () => orderBody(event.id, ids, { [counted.id]: 1, [free.id]: 1 })));

    expectRace(outcome, 40, 30, "order_event_stock_unavailable", `No more stock available for "${event.name}"`);
    expect(await eventSold(event.id)).toBe(30);
    expect(await typeSold(event.id, counted.id)).toBe(30);
    expect(await typeSold(event.id, free.id)).toBe(30);
    expect(await obj(event.id).remaining()).toEqual({ event: 0, types: { [counted.id]: null, [free.id]: null } });

    // The event is sold out, yet uncounted tickets are still available.
    const more = await placeOrder(orderBody(event.id, ids, { [free.id]: 3 }));
    expect(await eventSold(event.id)).toBe(30);
    expect(await typeSold(event.id, free.id)).toBe(33);
    expect((await obj(event.id).remaining())!.event).toBe(0);
    const snap = await expectTakes(event.id, [...outcome.won, more]);
    expect(snap.reservations.find((r) => r.uid === more.uid)).toMatchObject({ eventUnits: 0, typeUnits: { [free.id]: 3 } });
    expect(snap.totals).toEqual({ event: 30, [`type:${counted.id}`]: 30, [`type:${free.id}`]: 33 });
  });
});

describe("the object decides on the current catalogue", () => {
  it("an object behind D1's catalogue is brought up to date before it decides (a lowered stock is never oversold)", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const stub = obj(event.id);
    const pushed = await stub.configVersion();

    // The stock is lowered to 3 in D1, but the push never reaches the object.
    await db.batch([
      db.update(ticketTypes).set({ stock: 3 }).where(eq(ticketTypes.id, type.id)),
      db
        .update(events)
        .set({ configVersion: pushed + 1 })
        .where(eq(events.id, event.id)),
    ]);
    expect(await stub.remaining()).toEqual({ event: null, types: { [type.id]: 10 } });

    const refused = await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 4 })), 409);
    expect(refused).toMatchObject({ code: "order_stock_unavailable", message: "Not enough stock available for ticket-type: Limited (3)" });
    expect(await stub.configVersion()).toBe(pushed + 1);
    const order = await placeOrder(orderBody(event.id, [type.id], { [type.id]: 3 }));
    expect(await stub.remaining()).toEqual({ event: null, types: { [type.id]: 0 } });
    await expectTakes(event.id, [order]);
  });

  it("a stock lowered below what is sold is allowed, and the object refuses every new unit", async () => {
    const event = await createOrderEvent({ stock: 10 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 8 });
    await placeOrder(orderBody(event.id, [type.id], { [type.id]: 6 }));

    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${type.id}`, { body: { stock: 4 } }), 200);
    expect(await obj(event.id).remaining()).toEqual({ event: 4, types: { [type.id]: -2 } });
    const refused = await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 409);
    expect(refused).toMatchObject({ code: "order_stock_unavailable", message: "Not enough stock available for ticket-type: Limited (0)" });

    await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { stock: 5 } }), 200);
    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${type.id}`, { body: { stock: 100 } }), 200);
    const byEvent = await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 409);
    expect(byEvent).toMatchObject({ code: "order_event_stock_unavailable", message: `No more stock available for "${event.name}"` });
    expect(await typeSold(event.id, type.id)).toBe(6);
    expect(await eventSold(event.id)).toBe(6);
  });
});

describe("a failure between steps leaves nothing held", () => {
  it("a refusal by the second object (higher id) releases the first object's hold", async () => {
    const event = await createOrderEvent();
    const adult = await createOrderType(event.id, "Adult", { stock_control: true, stock: 10 });
    const linked = await createOrderEvent({ stock: 2 });
    await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { stock_link: linked.id } }), 200);
    expect(linked.id).toBeGreaterThan(event.id);
    const before = await obj(event.id).remaining();
    expect(before).toEqual({ event: null, types: { [adult.id]: 10 } });

    // Through HTTP: the event's object holds 3, the linked one refuses, the hold is given back.
    const refused = await expectJson(postOrder(orderBody(event.id, [adult.id], { [adult.id]: 3 })), 409);
    expect(refused).toEqual({ code: "order_linked_stock_unavailable", message: `Not enough stock for linked event-id ${linked.id}`, data: { status: 409 } });
    expect(await obj(event.id).remaining()).toEqual(before);
    expect(await obj(event.id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect(await obj(linked.id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect(await ordersOf(event.id)).toEqual([]);
    expect(await eventSold(event.id)).toBe(0);
    expect(await eventSold(linked.id)).toBe(0);

    // The same through the service pieces, with a known uid.
    const { event: row, lines, seeds } = await servicePieces(event.id, { [adult.id]: 3 });
    const plan = await planStock(deps(), row, lines, seeds, []);
    expect(plan.steps.map((s) => s.eventId)).toEqual([event.id, linked.id]);
    const uid = newOrderUid();
    const thrown = await holdStock(deps(), uid, plan).then(
      () => null,
      (err: unknown) => err,
    );
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 409, code: "order_linked_stock_unavailable" });
    await expectNoReservation(event.id, uid);
    await expectNoReservation(linked.id, uid);
    expect(await obj(event.id).remaining()).toEqual(before);

    // Nothing leaked: an order that fits the linked stock takes exactly its 2 units everywhere.
    const fits = await placeOrder(orderBody(event.id, [adult.id], { [adult.id]: 2 }));
    expect(await obj(event.id).remaining()).toEqual({ event: null, types: { [adult.id]: 8 } });
    expect(await obj(linked.id).remaining()).toEqual({ event: 0, types: {} });
    await expectTakes(event.id, [fits]);
    await expectTakes(linked.id, [fits]);
  });

  it("a passe-partout refused by its second child releases the first child's hold, naming the child that refused", async () => {
    const group = unique("F");
    const c1 = await createOrderEvent({ stock: 10, group_type: 1, event_group: group });
    const c2 = await createOrderEvent({ stock: 1, group_type: 1, event_group: group });
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const type = await createOrderType(pass.id, "Pass", { stock_control: true, stock: 5 });

    const refused = await expectJson(postOrder(orderBody(pass.id, [type.id], { [type.id]: 2 })), 409);
    expect(refused).toEqual({ code: "order_event_stock_unavailable", message: `No more stock available for "${c2.name}"`, data: { status: 409 } });
    for (const id of [c1.id, c2.id, pass.id]) expect(await obj(id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect((await obj(c1.id).remaining())!.event).toBe(10);
    expect(await obj(pass.id).remaining()).toEqual({ event: null, types: { [type.id]: 5 } });
    expect(await ordersOf(pass.id)).toEqual([]);
    expect([await eventSold(c1.id), await eventSold(c2.id), await eventSold(pass.id)]).toEqual([0, 0, 0]);

    const fits = await placeOrder(orderBody(pass.id, [type.id], { [type.id]: 1 }));
    expect((await obj(c1.id).remaining())!.event).toBe(9);
    expect((await obj(c2.id).remaining())!.event).toBe(0);
    for (const id of [c1.id, c2.id, pass.id]) await expectTakes(id, [fits]);
  });

  it("a failed D1 write after both holds releases them (HTTP, with the order insert forced to fail)", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const adult = await createOrderType(event.id, "Adult", { stock_control: true, stock: 10 });
    const linked = await createOrderEvent({ stock: 50 });
    const linkedAdult = await createOrderType(linked.id, "Adult", { stock_control: true, stock: 40 });
    await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { stock_link: linked.id } }), 200);
    const beforeEvent = await obj(event.id).remaining();
    const beforeLinked = await obj(linked.id).remaining();
    expect(beforeEvent).toEqual({ event: 20, types: { [adult.id]: 10 } });
    expect(beforeLinked).toEqual({ event: 50, types: { [linkedAdult.id]: 40 } });

    // D1 refuses this event's order rows: the batch (order, tickets, sold) fails after both objects held.
    const trigger = `test_fail_orders_${event.id}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON orders WHEN NEW.event_id = ${event.id} BEGIN SELECT RAISE(ABORT, 'forced by the stock test'); END`,
    ).run();
    // The 500 is logged with its cause (the forced abort), which this test expects.
    const logged = expectLogged("error", /"msg":"unhandled error".*forced by the stock test/);
    try {
      const failed = await expectJson(postOrder(orderBody(event.id, [adult.id], { [adult.id]: 4 })), 500);
      expect(failed.code).toBe("rest_internal_error");
      expect(logged.lines).toHaveLength(1);
    } finally {
      await env.DB.prepare(`DROP TRIGGER IF EXISTS ${trigger}`).run();
    }
    expect(await obj(event.id).remaining()).toEqual(beforeEvent);
    expect(await obj(linked.id).remaining()).toEqual(beforeLinked);
    expect(await obj(event.id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect(await obj(linked.id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect(await ordersOf(event.id)).toEqual([]);
    expect(await db.$count(tickets, eq(tickets.eventId, event.id))).toBe(0);
    expect(await eventSold(event.id)).toBe(0);
    expect(await typeSold(event.id, adult.id)).toBe(0);
    expect(await eventSold(linked.id)).toBe(0);
    expect(await typeSold(linked.id, linkedAdult.id)).toBe(0);

    // With the write working again, the same order takes its units.
    const ok = await placeOrder(orderBody(event.id, [adult.id], { [adult.id]: 4 }));
    expect(await obj(event.id).remaining()).toEqual({ event: 16, types: { [adult.id]: 6 } });
    expect(await obj(linked.id).remaining()).toEqual({ event: 46, types: { [linkedAdult.id]: 36 } });
    expect(await typeSold(linked.id, linkedAdult.id)).toBe(4);
    await expectTakes(event.id, [ok]);
  });

  it("holdStock holds in every object, and releaseStock (the failed-write path) gives every hold back", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const adult = await createOrderType(event.id, "Adult", { stock_control: true, stock: 10 });
    const child = await createOrderType(event.id, "Child", { is_counted: false });
    const linked = await createOrderEvent({ stock: 50 });
    const linkedAdult = await createOrderType(linked.id, "Adult", { stock_control: true, stock: 40 });
    await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { stock_link: linked.id } }), 200);

    const { event: row, lines, seeds } = await servicePieces(event.id, { [adult.id]: 2, [child.id]: 1 });
    const plan: StockPlan = await planStock(deps(), row, lines, seeds, []);
    expect(plan.steps.map((s) => s.eventId)).toEqual([event.id, linked.id]);
    const uid = newOrderUid();
    const start = Date.now();
    await holdStock(deps(), uid, plan);

    const held = (await obj(event.id).snapshot()).reservations;
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ uid, state: "held", eventUnits: 2, typeUnits: { [adult.id]: 2, [child.id]: 1 } });
    expect(held[0]!.deadline).toBeGreaterThanOrEqual(start + HOLD_MS);
    expect((await obj(event.id).snapshot()).tickets.map((t) => t.id).sort()).toEqual(seeds.map((s) => s.id).sort());
    const heldLinked = (await obj(linked.id).snapshot()).reservations;
    expect(heldLinked).toEqual([{ uid, state: "held", eventUnits: 2, typeUnits: { [linkedAdult.id]: 2 }, deadline: expect.any(Number) }]);
    expect(await obj(event.id).remaining()).toEqual({ event: 18, types: { [adult.id]: 8, [child.id]: null } });
    expect(await obj(linked.id).remaining()).toEqual({ event: 48, types: { [linkedAdult.id]: 38 } });

    await releaseStock(
      deps(),
      uid,
      plan.steps.map((s) => s.eventId),
    );
    await expectNoReservation(event.id, uid);
    await expectNoReservation(linked.id, uid);
    expect(await obj(event.id).remaining()).toEqual({ event: 20, types: { [adult.id]: 10, [child.id]: null } });
    expect(await obj(linked.id).remaining()).toEqual({ event: 50, types: { [linkedAdult.id]: 40 } });
    expect((await obj(event.id).snapshot()).totals).toEqual({});
    // Releasing again changes nothing.
    expect(await obj(event.id).release(uid)).toBe(false);
    expect(await obj(event.id).remaining()).toEqual({ event: 20, types: { [adult.id]: 10, [child.id]: null } });
  });
});

describe("the object's alarm settles holds that were never confirmed", () => {
  /** Moves a reservation's deadline into the past, as if five minutes had gone by. */
  async function expire(eventId: number, uid: string): Promise<void> {
    await runInDurableObject(obj(eventId), (_instance: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET deadline = ? WHERE uid = ?`, Date.now() - 1_000, uid);
    });
  }

  /** A final order's hold is due to be looked up in D1 now (instead of a quarter second after it was made). */
  async function dueToLearn(eventId: number, uid: string): Promise<void> {
    await runInDurableObject(obj(eventId), (_instance: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET learn_at = ? WHERE uid = ?`, Date.now() - 1_000, uid);
    });
  }

  const alarmOf = (eventId: number) => runInDurableObject(obj(eventId), (_i: EventObject, state) => state.storage.getAlarm());

  it("gives back a hold whose order never reached D1, and keeps a hold that is not yet due", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const stub = obj(event.id);
    const version = await stub.configVersion();
    expect(version).toBeGreaterThan(0);

    const abandoned = newOrderUid();
    const start = Date.now();
    expect(
      await stub.reserve(
        { uid: abandoned, typeUnits: { [type.id]: 4 }, eventUnits: 4, tickets: [{ id: "ABANDONED0000001", typeId: type.id, typeName: "Limited" }] },
        version,
      ),
    ).toEqual({ ok: true, seats: [] });
    expect(await stub.remaining()).toEqual({ event: 16, types: { [type.id]: 6 } });
    const [hold] = (await stub.snapshot()).reservations;
    expect(hold).toMatchObject({ uid: abandoned, state: "held" });
    expect(hold!.deadline).toBeGreaterThanOrEqual(start + HOLD_MS);
    // The alarm is set for the deadline.
    expect(await runInDurableObject(stub, (_i: EventObject, state) => state.storage.getAlarm())).toBe(hold!.deadline);

    const pending = newOrderUid();
    expect(await stub.reserve({ uid: pending, typeUnits: { [type.id]: 1 }, eventUnits: 1, tickets: [] }, version)).toEqual({ ok: true, seats: [] });
    expect(await stub.remaining()).toEqual({ event: 15, types: { [type.id]: 5 } });

    await expire(event.id, abandoned);
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    expect(await stub.remaining()).toEqual({ event: 19, types: { [type.id]: 9 } });
    const snap = await stub.snapshot();
    expect(snap.reservations.map((r) => [r.uid, r.state])).toEqual([[pending, "held"]]);
    expect(snap.tickets).toEqual([]);
    // The alarm is set again for the hold still waiting.
    const pendingDeadline = snap.reservations[0]!.deadline;
    expect(await runInDurableObject(stub, (_i: EventObject, state) => state.storage.getAlarm())).toBe(pendingDeadline);
  });

  it("takes a hold whose order reached D1 with a live status, and releases one whose order is no longer live", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const stub = obj(event.id);
    const version = await stub.configVersion();
    const now = Math.floor(Date.now() / 1000);

    const written = newOrderUid();
    const cancelled = newOrderUid();
    expect(
      await stub.reserve(
        { uid: written, typeUnits: { [type.id]: 3 }, eventUnits: 3, tickets: [{ id: "WRITTEN000000001", typeId: type.id, typeName: "Limited" }] },
        version,
      ),
    ).toEqual({ ok: true, seats: [] });
    expect(
      await stub.reserve(
        { uid: cancelled, typeUnits: { [type.id]: 2 }, eventUnits: 2, tickets: [{ id: "CANCELLED0000001", typeId: type.id, typeName: "Limited" }] },
        version,
      ),
    ).toEqual({ ok: true, seats: [] });
    expect(await stub.remaining()).toEqual({ event: 15, types: { [type.id]: 5 } });

    // The D1 batch landed, but the confirm never came.
    const deductions = (units: number) => [{ eventId: event.id, typeId: type.id, units, eventUnits: units }];
    const [order] = await db
      .insert(orders)
      .values({ eventId: event.id, uid: written, paymentStatus: "dashboard", name: "Late Confirm", email: "late@example.com", createdAt: now, deductions: deductions(3) })
      .returning();
    await db
      .insert(orders)
      .values({ eventId: event.id, uid: cancelled, paymentStatus: "canceled", name: "Gone", email: "gone@example.com", createdAt: now, deductions: deductions(2) });

    await expire(event.id, written);
    await expire(event.id, cancelled);
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const snap = await stub.snapshot();
    expect(snap.reservations).toEqual([{ uid: written, state: "taken", deadline: null, eventUnits: 3, typeUnits: { [type.id]: 3 } }]);
    expect(await stub.remaining()).toEqual({ event: 17, types: { [type.id]: 7 } });
    expect(snap.tickets).toEqual([{ id: "WRITTEN000000001", uid: written, typeId: type.id, typeName: "Limited" }]);
    // The taken ticket learnt its order.
    const ticketRow = await runInDurableObject(stub, (_i: EventObject, state) =>
      state.storage.sql.exec<{ order_id: number; name: string; email: string }>(`SELECT order_id, name, email FROM tickets WHERE uid = ?`, written).toArray(),
    );
    expect(ticketRow).toEqual([{ order_id: order!.id, name: "Late Confirm", email: "late@example.com" }]);
    // No more deadlines: a later alarm run changes nothing.
    await runDurableObjectAlarm(stub);
    expect(await stub.remaining()).toEqual({ event: 17, types: { [type.id]: 7 } });
  });

  it("looks a final order's hold up in D1 soon, again while D1 lacks it, then takes it and clears its intent", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const other = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const stub = obj(event.id);
    const version = await stub.configVersion();
    const uid = newOrderUid();
    const ticket = { id: "FINAL00000000001", typeId: type.id, typeName: "Limited" };
    expect(await stub.reserve({ uid, typeUnits: { [type.id]: 2 }, eventUnits: 2, tickets: [ticket], final: true }, version)).toEqual({ ok: true, seats: [] });
    const [hold] = (await stub.snapshot()).reservations;
    expect(hold).toMatchObject({ uid, state: "held" });
    // The alarm comes for the lookup, long before the hold's deadline.
    expect(await alarmOf(event.id)).toBeLessThan(hold!.deadline! - HOLD_MS / 2);

    // D1 does not hold the order yet (its batch is still on its way): the hold stays and is looked up again later.
    await dueToLearn(event.id, uid);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await stub.snapshot()).reservations).toEqual([hold]);
    expect(await stub.remaining()).toEqual({ event: 18, types: { [type.id]: 8 } });
    const again = await alarmOf(event.id);
    expect(again).toBeGreaterThan(Date.now());
    expect(again).toBeLessThan(hold!.deadline!);

    // The batch lands: the order, and its intents for this object and for another event's.
    const now = Math.floor(Date.now() / 1000);
    const [order] = await db
      .insert(orders)
      .values({
        eventId: event.id,
        uid,
        paymentStatus: "dashboard",
        name: "Box Office",
        email: "box@example.com",
        createdAt: now,
        finalizeToken: "FINALTOKEN000001",
        deductions: [{ eventId: event.id, typeId: type.id, units: 2, eventUnits: 2 }],
      })
      .returning();
    await db.insert(objectSyncs).values([
      { uid, eventId: event.id, token: "FINALTOKEN000001", createdAt: now },
      { uid, eventId: other.id, token: "FINALTOKEN000001", createdAt: now },
    ]);
    await dueToLearn(event.id, uid);
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    expect((await stub.snapshot()).reservations).toEqual([{ uid, state: "taken", deadline: null, eventUnits: 2, typeUnits: { [type.id]: 2 } }]);
    expect(await stub.remaining()).toEqual({ event: 18, types: { [type.id]: 8 } });
    const rows = await runInDurableObject(stub, (_i: EventObject, state) =>
      state.storage.sql.exec<{ order_id: number; name: string; email: string }>(`SELECT order_id, name, email FROM tickets WHERE uid = ?`, uid).toArray(),
    );
    expect(rows).toEqual([{ order_id: order!.id, name: "Box Office", email: "box@example.com" }]);
    // Only this object's intent is fulfilled; the other event's object still has to learn the order.
    expect(await db.select({ eventId: objectSyncs.eventId }).from(objectSyncs).where(eq(objectSyncs.uid, uid))).toEqual([{ eventId: other.id }]);
  });

  it("looks final holds up in batches: no run follows the last one by less than a quarter second, however overdue", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const stub = obj(event.id);
    const version = await stub.configVersion();
    const hold = async () => {
      const uid = newOrderUid();
      await stub.reserve({ uid, typeUnits: { [type.id]: 1 }, eventUnits: 1, tickets: [], final: true }, version);
      return uid;
    };
    const first = [await hold(), await hold(), await hold()];
    for (const uid of first) await dueToLearn(event.id, uid);
    const runStarted = Date.now();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // One run looked all three up (D1 holds none of them yet): each waits for a later lookup.
    const held = (await stub.snapshot()).reservations.filter((r) => first.includes(r.uid));
    expect(held.map((r) => r.state)).toEqual(["held", "held", "held"]);

    // A hold overdue at once, and another made after it: the alarm still waits for the quarter second.
    await dueToLearn(event.id, await hold());
    await hold();
    expect(await alarmOf(event.id)).toBeGreaterThanOrEqual(runStarted + 250);
  });

  it("releases a final order's hold that D1 says is no longer live, without waiting for its deadline", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const stub = obj(event.id);
    const uid = newOrderUid();
    const ticket = { id: "GONE000000000001", typeId: type.id, typeName: "Limited" };
    await stub.reserve({ uid, typeUnits: { [type.id]: 3 }, eventUnits: 3, tickets: [ticket], final: true }, await stub.configVersion());
    const now = Math.floor(Date.now() / 1000);
    await db.insert(orders).values({
      eventId: event.id,
      uid,
      paymentStatus: "canceled",
      name: "Gone",
      email: "gone@example.com",
      createdAt: now,
      deductions: [{ eventId: event.id, typeId: type.id, units: 3, eventUnits: 3 }],
    });
    await dueToLearn(event.id, uid);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect(await stub.remaining()).toEqual({ event: 20, types: { [type.id]: 10 } });
  });

  it("marks a hold final only when it carries exactly the tickets the order is written with", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const { event: row, lines, seeds } = await servicePieces(event.id, { [type.id]: 2 });
    expect(seeds).toHaveLength(2);
    // Drafted final: the plan holds the tickets that are written.
    expect(objectsLearnOnTheirOwn(await planStock(deps(), row, lines, seeds, []), seeds)).toBe(true);
    // Drafted before its tickets were drawn (a free customer order): the objects are told after the answer.
    expect(objectsLearnOnTheirOwn(await planStock(deps(), row, lines, [], []), seeds)).toBe(false);
    // Another ticket than the one held, or one more.
    const other = seeds.map((s, i) => (i === 0 ? { ...s, id: "OTHERTICKET00001" } : s));
    expect(objectsLearnOnTheirOwn(await planStock(deps(), row, lines, seeds, []), other)).toBe(false);
    expect(objectsLearnOnTheirOwn(await planStock(deps(), row, lines, seeds.slice(1), []), seeds)).toBe(false);
    // Seats: their labels come with the hold.
    const plan = await planStock(deps(), row, lines, seeds, []);
    const seated: StockPlan = { ...plan, steps: plan.steps.map((s) => ({ ...s, request: { ...s.request, seats: 2 } })) };
    expect(objectsLearnOnTheirOwn(seated, seeds)).toBe(false);
  });

  it("an order placed through HTTP ends up taken, and the alarm leaves it taken", async () => {
    const event = await createOrderEvent({ stock: 20 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 10 });
    const order = await placeOrder(orderBody(event.id, [type.id], { [type.id]: 2 }));
    const stub = obj(event.id);

    const snap = await expectTakes(event.id, [order]);
    expect(snap.reservations[0]).toMatchObject({ uid: order.uid, eventUnits: 2, typeUnits: { [type.id]: 2 } });
    const rows = await runInDurableObject(stub, (_i: EventObject, state) =>
      state.storage.sql.exec<{ order_id: number }>(`SELECT order_id FROM tickets WHERE uid = ?`, order.uid).toArray(),
    );
    expect(rows).toEqual([{ order_id: order.id }, { order_id: order.id }]);

    await runDurableObjectAlarm(stub);
    expect(await stub.remaining()).toEqual({ event: 18, types: { [type.id]: 8 } });
    expect((await stub.snapshot()).reservations).toEqual(snap.reservations);
  });
});

describe("a rebuilt object answers exactly as the live one did", () => {
  it("after direct, linked, passe-partout and deleted orders", async () => {
    const group = unique("R");
    const linked = await createOrderEvent({ stock: 100, group_type: 1, event_group: group });
    const lAdult = await createOrderType(linked.id, "Adult", { stock_control: true, stock: 50 });
    const lChild = await createOrderType(linked.id, "Child");
    const event = await createOrderEvent({ stock: 60, stock_link: linked.id });
    const eAdult = await createOrderType(event.id, "Adult", { stock_control: true, stock: 40 });
    const eGuest = await createOrderType(event.id, "Guest", { is_counted: false });
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const pType = await createOrderType(pass.id, "Pass", { stock_control: true, stock: 20 });
    const ids = [linked.id, event.id, pass.id];

    const eTypes = [eAdult.id, eGuest.id];
    const lTypes = [lAdult.id, lChild.id];
    const placed = await Promise.all([
      placeOrder(orderBody(event.id, eTypes, { [eAdult.id]: 2, [eGuest.id]: 1 })),
      placeOrder(orderBody(event.id, eTypes, { [eAdult.id]: 1 })),
      placeOrder(orderBody(event.id, eTypes, { [eGuest.id]: 4 })),
      placeOrder(orderBody(event.id, eTypes, { [eAdult.id]: 3, [eGuest.id]: 2 })),
      placeOrder(orderBody(linked.id, lTypes, { [lAdult.id]: 2, [lChild.id]: 1 })),
      placeOrder(orderBody(linked.id, lTypes, { [lChild.id]: 3 })),
      placeOrder(orderBody(linked.id, lTypes, { [lAdult.id]: 5 })),
      placeOrder(orderBody(pass.id, [pType.id], { [pType.id]: 2 })),
      placeOrder(orderBody(pass.id, [pType.id], { [pType.id]: 1 })),
    ]);
    // One linked order and one direct order are deleted.
    for (const gone of [placed[3], placed[6]]) await expectJson(call("DELETE", `/admin/orders/${gone.id}`), 200);
    const kept = placed.filter((_, i) => i !== 3 && i !== 6);

    const live = new Map<number, { snap: LedgerSnapshot; remaining: unknown; config: unknown; ticketRows: unknown[] }>();
    for (const id of ids) {
      const snap = await settledSnapshot(id);
      const ticketRows = await ticketRowsOf(id);
      // Confirmed: every ticket knows its order.
      for (const t of ticketRows) expect(t.order_id, `ticket ${t.id} at ${id}`).not.toBeNull();
      live.set(id, { snap, remaining: await obj(id).remaining(), config: await obj(id).config(), ticketRows });
    }
    // The live state is what it should be, so the comparison below means something.
    const liveLinked = live.get(linked.id)!;
    // Every kept order draws on the linked event: its own, the linked ones (even Guest only) and the passe-partout's.
    expect(liveLinked.snap.reservations.map((r) => r.uid).sort()).toEqual(kept.map((o) => o.uid as string).sort());
    // linked: own orders 2+1, 3 (Child), the event's orders (2+1 Adult -> 2, 1, Guest only 4), the pass orders 2 and 1.
    expect(liveLinked.remaining).toEqual({ event: 100 - (3 + 3) - (2 + 1 + 0) - (2 + 1), types: { [lAdult.id]: 50 - 2 - (2 + 1), [lChild.id]: null } });
    expect(live.get(event.id)!.remaining).toEqual({ event: 60 - 3, types: { [eAdult.id]: 40 - 3, [eGuest.id]: null } });
    expect(live.get(pass.id)!.remaining).toEqual({ event: null, types: { [pType.id]: 17 } });
    expect(liveLinked.snap.tickets).toHaveLength(3 + 3 + 2 + 1);

    for (const id of ids) {
      await runInDurableObject(obj(id), (o: EventObject) => o.retire());
      expect(await obj(id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
      expect(await obj(id).config()).toBeNull();
    }
    for (const id of ids) await rebuildEventObject(deps(), id);

    for (const id of ids) {
      const before = live.get(id)!;
      expect(await obj(id).config(), `config of ${id}`).toEqual(before.config);
      expect(await obj(id).snapshot(), `snapshot of ${id}`).toEqual(before.snap);
      expect(await obj(id).remaining(), `remaining of ${id}`).toEqual(before.remaining);
      expect(await ticketRowsOf(id), `ticket rows of ${id}`).toEqual(before.ticketRows);
    }

    // The rebuilt objects keep deciding from the rebuilt totals: 37 Adult are left at the event, 45 at the linked one.
    const refused = await expectJson(postOrder(orderBody(event.id, eTypes, { [eAdult.id]: 38 })), 409);
    expect(refused).toMatchObject({ code: "order_stock_unavailable", message: "Not enough stock available for ticket-type: Adult (37)" });
    await placeOrder(orderBody(event.id, eTypes, { [eAdult.id]: 37 }));
    expect((await obj(linked.id).remaining())!.types[lAdult.id]).toBe(8);
  });

  it("drops a hold that never reached D1 and the units of an order deleted in D1 whose release was lost", async () => {
    const event = await createOrderEvent({ stock: 10 });
    const type = await createOrderType(event.id, "Limited", { stock_control: true, stock: 8 });
    const stub = obj(event.id);
    const keep = await placeOrder(orderBody(event.id, [type.id], { [type.id]: 2 }));
    const lost = await placeOrder(orderBody(event.id, [type.id], { [type.id]: 3 }));
    await expectTakes(event.id, [keep, lost]);

    // A crash after the D1 delete, before the release: D1 forgot the order, the object did not.
    await db.batch([db.delete(tickets).where(eq(tickets.orderId, lost.id)), db.delete(orders).where(eq(orders.id, lost.id))]);
    // And a hold whose order never reached D1.
    expect(await stub.reserve({ uid: newOrderUid(), typeUnits: { [type.id]: 1 }, eventUnits: 1, tickets: [] }, await stub.configVersion())).toEqual({
      ok: true,
      seats: [],
    });
    expect(await stub.remaining()).toEqual({ event: 4, types: { [type.id]: 2 } });

    await rebuildEventObject(deps(), event.id);

    expect(await stub.remaining()).toEqual({ event: 8, types: { [type.id]: 6 } });
    const snap = await stub.snapshot();
    expect(snap.reservations).toEqual([{ uid: keep.uid, state: "taken", deadline: null, eventUnits: 2, typeUnits: { [type.id]: 2 } }]);
    expect(snap.tickets.map((t) => t.uid)).toEqual([keep.uid, keep.uid]);
  });
});

describe("deleting an order gives its units back", () => {
  it("on the event and its linked event: remaining goes up, sold goes down, its tickets are forgotten", async () => {
    const linked = await createOrderEvent({ stock: 8 });
    const lAdult = await createOrderType(linked.id, "Adult", { stock_control: true, stock: 6 });
    const event = await createOrderEvent({ stock: 10, stock_link: linked.id });
    const adult = await createOrderType(event.id, "Adult", { stock_control: true, stock: 5 });

    const other = await placeOrder(orderBody(event.id, [adult.id], { [adult.id]: 1 }));
    const order = await placeOrder(orderBody(event.id, [adult.id], { [adult.id]: 2 }));
    await expectTakes(event.id, [other, order]);
    await expectTakes(linked.id, [other, order]);
    expect(await obj(event.id).remaining()).toEqual({ event: 7, types: { [adult.id]: 2 } });
    expect(await obj(linked.id).remaining()).toEqual({ event: 5, types: { [lAdult.id]: 3 } });
    expect([await eventSold(event.id), await typeSold(event.id, adult.id), await eventSold(linked.id), await typeSold(linked.id, lAdult.id)]).toEqual([3, 3, 3, 3]);

    const view = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
    const ticketIds = view.tickets.map((t: any) => t.ticket_id as string);
    expect(ticketIds).toHaveLength(2);
    const ticketsBefore = (await obj(event.id).snapshot()).tickets;
    expect(ticketsBefore.filter((t) => ticketIds.includes(t.id))).toHaveLength(2);

    await expectJson(call("DELETE", `/admin/orders/${order.id}`), 200);

    expect(await obj(event.id).remaining()).toEqual({ event: 9, types: { [adult.id]: 4 } });
    expect(await obj(linked.id).remaining()).toEqual({ event: 7, types: { [lAdult.id]: 5 } });
    expect([await eventSold(event.id), await typeSold(event.id, adult.id), await eventSold(linked.id), await typeSold(linked.id, lAdult.id)]).toEqual([1, 1, 1, 1]);
    const after = await obj(event.id).snapshot();
    expect(after.tickets.filter((t) => ticketIds.includes(t.id))).toEqual([]);
    expect(after.tickets).toHaveLength(1);
    expect(after.reservations.map((r) => r.uid)).toEqual([other.uid]);
    expect((await obj(linked.id).snapshot()).reservations.map((r) => r.uid)).toEqual([other.uid]);

    // The units really are free again: an order for the 4 left succeeds.
    await placeOrder(orderBody(event.id, [adult.id], { [adult.id]: 4 }));
    expect((await obj(event.id).remaining())!.types[adult.id]).toBe(0);
  });

  it("of a passe-partout: the child events get their units back and forget the child tickets", async () => {
    const group = unique("D");
    const c1 = await createOrderEvent({ stock: 5, group_type: 1, event_group: group });
    const c2 = await createOrderEvent({ stock: 7, group_type: 1, event_group: group });
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const type = await createOrderType(pass.id, "Pass");
    const order = await placeOrder(orderBody(pass.id, [type.id], { [type.id]: 2 }));
    await expectTakes(c1.id, [order]);
    expect((await obj(c1.id).remaining())!.event).toBe(3);
    expect((await obj(c2.id).remaining())!.event).toBe(5);
    expect((await obj(c1.id).snapshot()).tickets).toHaveLength(2);
    expect((await obj(c2.id).snapshot()).tickets).toHaveLength(2);
    expect([await eventSold(c1.id), await eventSold(c2.id), await eventSold(pass.id)]).toEqual([2, 2, 2]);

    await expectJson(call("DELETE", `/admin/orders/${order.id}`), 200);

    for (const [id, stock] of [
      [c1.id, 5],
      [c2.id, 7],
    ] as const) {
      expect((await obj(id).remaining())!.event).toBe(stock);
      expect(await obj(id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    }
    expect(await obj(pass.id).snapshot()).toEqual({ totals: {}, reservations: [], tickets: [], seats: [] });
    expect([await eventSold(c1.id), await eventSold(c2.id), await eventSold(pass.id), await typeSold(pass.id, type.id)]).toEqual([0, 0, 0, 0]);
  });
});
