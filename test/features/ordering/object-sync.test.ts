import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { objectSyncs, orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import { createDashboardOrderBody } from "../../../src/features/ordering/orders.schema";
import { createCustomerOrderBody } from "../../../src/features/checkout/customer-orders.schema";
import { createCustomerOrder } from "../../../src/features/checkout/customer-orders.service";
import { depsFromEnv, type Deps } from "../../../src/platform/deps";
import { getEvent } from "../../../src/features/catalogue/events.service";
import { reconcileObjects, RECONCILE_AFTER_SECONDS } from "../../../src/features/ordering/object-sync.service";
import { createDashboardOrder } from "../../../src/features/ordering/orders.service";
import { completeGenuine } from "../../helpers/payments";
import { expectLogged } from "../../helpers/logs";
import { call, expectJson, unique } from "../../helpers/api";
import { createEvent, createScanKey, createTicketType, db } from "../../helpers/catalogue";

/**
 * docs/reliability.md "Guarantees": what the event objects must learn of an order is recorded in the order's own
 * batch (`object_syncs`), so losing the call after the answer (the runtime dies) loses nothing: the reconciler
 * re-drives it from D1, and the door catches up on a ticket D1 holds. Deferred work is dropped on purpose here (a
 * `defer` that never runs it).
 */

const ADMIN_USER = { id: 0, username: "admin", role: "administrator" as const, authorisedEvents: [] };

/** Deps as a request's, but whatever it defers is lost, as when the runtime dies right after the answer. */
function crashingDeps(offsetSeconds = 0): Deps {
  const deps = depsFromEnv(env);
  return { ...deps, defer: () => {}, now: () => Math.floor(Date.now() / 1000) + offsetSeconds };
}

async function setup(typeBody: Record<string, unknown> = {}) {
  const event = await createEvent({ event_name: unique("Sync "), add_dashboard_orders_needed: true });
  const type = await createTicketType(event.id, { name: "Regular", price: 0, ...typeBody });
  const gate = (await createScanKey(event.id, { level: 0, location: "Gate" })).key as string;
  return { event, type, gate };
}

/**
 * A customer order paid through the test provider, every call after each answer lost: its tickets are made at
 * payment, so only the deferred call (or the reconciler, or the door) can teach them to the object.
 */
async function lostPaidOrder(eventId: number, typeId: string, count = 2) {
  const input = createCustomerOrderBody.parse({ name: "Lost Call", email: "lost@example.com", tickets: [{ [typeId]: count }] });
  const { order } = await createCustomerOrder(crashingDeps(), await getEvent(depsFromEnv(env), eventId), input, "");
  const paymentId = (await db.select({ id: orders.paymentId }).from(orders).where(eq(orders.id, order.id)).get())!.id;
  await completeGenuine(crashingDeps(), order.paymentGroup, { status: "paid", paymentId });
  const paid = (await db.select().from(orders).where(eq(orders.id, order.id)).get())!;
  const rows = await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id));
  return { order: paid, ticketIds: rows.map((r) => r.id) };
}

async function lostDashboardOrder(eventId: number, typeId: string, count = 2) {
  const input = createDashboardOrderBody.parse({ event_id: eventId, name: "Lost Call", email: "lost@example.com", tickets: [{ [typeId]: count }] });
  const { order } = await createDashboardOrder(crashingDeps(), ADMIN_USER, input, "");
  const rows = await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id));
  return { order, ticketIds: rows.map((r) => r.id) };
}

const intentsOf = (uid: string) => db.select().from(objectSyncs).where(eq(objectSyncs.uid, uid));
const objectTickets = async (eventId: number) => (await eventObject(env, eventId).snapshot()).tickets.map((t) => t.id);
const reservationOf = async (eventId: number, uid: string) => (await eventObject(env, eventId).snapshot()).reservations.find((r) => r.uid === uid);

describe("object sync intents", () => {
  it("a paid order's batch records what its object must learn; with the call lost, the reconciler teaches it", async () => {
    const { event, type } = await setup({ price: 10 });
    const { order, ticketIds } = await lostPaidOrder(event.id, type.id);
    expect(order.paymentStatus).toBe("paid");
    expect(ticketIds).toHaveLength(2);
    expect(await intentsOf(order.uid)).toMatchObject([{ eventId: event.id, token: order.finalizeToken }]);
    expect(await objectTickets(event.id)).not.toContain(ticketIds[0]);

    // Too young: the call may still be on its way.
    await reconcileObjects(crashingDeps());
    expect(await intentsOf(order.uid)).toHaveLength(1);

    await reconcileObjects(crashingDeps(RECONCILE_AFTER_SECONDS + 1));
    expect(await objectTickets(event.id)).toEqual(expect.arrayContaining(ticketIds));
    expect(await reservationOf(event.id, order.uid)).toMatchObject({ state: "taken" });
    expect(await intentsOf(order.uid)).toEqual([]);
    // Re-driving again changes nothing.
    await reconcileObjects(crashingDeps(RECONCILE_AFTER_SECONDS + 1));
    expect((await objectTickets(event.id)).filter((id) => ticketIds.includes(id))).toHaveLength(ticketIds.length);
  });

  it("a dashboard order's object takes it from D1 on its own and clears its intent", async () => {
    const { event, type } = await setup();
    const placed = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: event.id, name: "Ann", email: "ann@example.com", tickets: [{ [type.id]: 1 }] } }),
      201,
    );
    for (let i = 0; i < 100 && (await intentsOf(placed.uid)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await intentsOf(placed.uid)).toEqual([]);
    expect(await reservationOf(event.id, placed.uid)).toMatchObject({ state: "taken", deadline: null });
  });

  it("a dashboard order whose runtime died right after the answer is taken by its object all the same, reconciler or not", async () => {
    const { event, type, gate } = await setup();
    const { order, ticketIds } = await lostDashboardOrder(event.id, type.id);
    expect(await intentsOf(order.uid)).toMatchObject([{ eventId: event.id, token: order.finalizeToken }]);
    for (let i = 0; i < 100 && (await reservationOf(event.id, order.uid))?.state !== "taken"; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await reservationOf(event.id, order.uid)).toMatchObject({ state: "taken", deadline: null });
    expect(await intentsOf(order.uid)).toEqual([]);
    // Its tickets know their order there: listed for the doors' offline lists, admitted with the buyer's name.
    const list = await expectJson(call("GET", "/scans/tickets", { key: gate, auth: null }), 200);
    expect(JSON.stringify(list)).toContain(ticketIds[0]);
    const scan = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: ticketIds[0] } }), 200);
    expect(scan).toMatchObject({ status: true, name: "Lost Call", order_id: order.id });
  });

  it("dashboard orders placed at once are all taken by their object from D1, and their intents cleared", async () => {
    const { event, type } = await setup();
    const placed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        expectJson(call("POST", "/admin/orders", { body: { event_id: event.id, name: "Ann", email: `ann${i}@example.com`, tickets: [{ [type.id]: 1 }] } }), 201),
      ),
    );
    const left = () => db.select().from(objectSyncs).where(eq(objectSyncs.eventId, event.id));
    for (let i = 0; i < 100 && (await left()).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await left()).toEqual([]);
    const learned = await objectTickets(event.id);
    const ids = await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.eventId, event.id));
    expect(ids).toHaveLength(placed.length);
    expect(learned).toEqual(expect.arrayContaining(ids.map((t) => t.id)));
    for (const p of placed) expect(await reservationOf(event.id, p.uid)).toMatchObject({ state: "taken" });
  });

  it("open orders placed at once have their intents cleared together, each once its own call reached the object", async () => {
    const { event, type } = await setup({ price: 10 });
    const placed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        expectJson(call("POST", `/events/${event.id}/orders`, { auth: null, body: { name: "Ann", email: `ann${i}@example.com`, tickets: [{ [type.id]: 1 }] } }), 201),
      ),
    );
    const left = () => db.select().from(objectSyncs).where(eq(objectSyncs.eventId, event.id));
    for (let i = 0; i < 100 && (await left()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await left()).toEqual([]);
    const rows = await db.select().from(orders).where(eq(orders.eventId, event.id));
    expect(rows).toHaveLength(placed.length);
    for (const row of rows) expect(await reservationOf(event.id, row.uid)).toMatchObject({ state: "taken", deadline: row.expiresAt! * 1000 });
  });

  it("the door admits a ticket its object never learned: it catches up from D1 for that order, then decides", async () => {
    const { event, type, gate } = await setup({ price: 10 });
    const { ticketIds } = await lostPaidOrder(event.id, type.id, 1);
    expect(await objectTickets(event.id)).not.toContain(ticketIds[0]);
    const first = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: ticketIds[0] } }), 200);
    expect(first).toMatchObject({ status: true, name: "Lost Call" });
    const again = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: ticketIds[0] } }), 200);
    expect(again.status).toBe(false);
    // A ticket D1 does not hold stays unknown.
    const unknown = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: "ZZZZZZZZZZZZZZZZ" } }), 200);
    expect(unknown).toMatchObject({ status: false, error: "Ticket not found" });
  });

  it("an open order's deadline reaches its object through the reconciler when the call is lost", async () => {
    const { event, type } = await setup({ price: 10 });
    const input = createCustomerOrderBody.parse({ name: "Open Order", email: "open@example.com", tickets: [{ [type.id]: 1 }] });
    const { order } = await createCustomerOrder(crashingDeps(), await getEvent(depsFromEnv(env), event.id), input, "");
    expect(await intentsOf(order.uid)).toMatchObject([{ eventId: event.id, token: "wait" }]);
    expect((await reservationOf(event.id, order.uid))?.state).toBe("held");
    await reconcileObjects(crashingDeps(RECONCILE_AFTER_SECONDS + 1));
    expect(await reservationOf(event.id, order.uid)).toMatchObject({ state: "taken", deadline: order.expiresAt! * 1000 });
    expect(await intentsOf(order.uid)).toEqual([]);
  });

  it("renaming an open order teaches its object the new name and keeps its payment deadline", async () => {
    const { event, type } = await setup({ price: 10 });
    const placed = await expectJson(
      call("POST", `/events/${event.id}/orders`, { auth: null, body: { name: "Old Name", email: "old@example.com", tickets: [{ [type.id]: 1 }] } }),
      201,
    );
    const row = (await db.select().from(orders).where(eq(orders.id, placed.id)).get())!;
    for (let i = 0; i < 50 && (await reservationOf(event.id, row.uid))?.state !== "taken"; i++) await new Promise((r) => setTimeout(r, 20));
    await expectJson(call("PUT", `/admin/orders/${placed.id}`, { body: { name: "New Name" } }), 200);
    for (let i = 0; i < 50 && (await intentsOf(row.uid)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await intentsOf(row.uid)).toEqual([]);
    expect(await reservationOf(event.id, row.uid)).toMatchObject({ state: "taken", deadline: row.expiresAt! * 1000 });
  });

  it("a cancelled order whose release never reached its object is released by the reconciler", async () => {
    const { event, type } = await setup({ price: 10, stock_control: true, stock: 5 });
    const input = createCustomerOrderBody.parse({ name: "Cancelled", email: "cancel@example.com", tickets: [{ [type.id]: 2 }] });
    const { order } = await createCustomerOrder(depsFromEnv(env), await getEvent(depsFromEnv(env), event.id), input, "");
    // The object cannot be reached right after the cancel's batch (as when the runtime dies between the two).
    const base = depsFromEnv(env);
    const unreachable: Deps = {
      ...base,
      eventObjects: {
        get: (id) => new Proxy(base.eventObjects.get(id), { get: (t, p) => (p === "release" ? () => Promise.reject(new Error("gone")) : Reflect.get(t, p)) }),
      },
    };
    const logged = expectLogged("error", /"msg":"stock release failed; the reconciler retries"/);
    await completeGenuine(unreachable, order.paymentGroup, { status: "canceled" });
    expect((await db.select().from(orders).where(eq(orders.id, order.id)).get())!.paymentStatus).toBe("canceled");
    expect(await intentsOf(order.uid)).toMatchObject([{ eventId: event.id, token: "release" }]);
    expect(logged.lines.map((l) => JSON.parse(l))).toMatchObject([{ event_id: event.id, error: "Error: gone" }]);
    expect((await eventObject(env, event.id).remaining())?.types[type.id]).toBe(3);

    await reconcileObjects(crashingDeps(RECONCILE_AFTER_SECONDS + 1));
    expect((await eventObject(env, event.id).remaining())?.types[type.id]).toBe(5);
    expect(await intentsOf(order.uid)).toEqual([]);
  });

  it("an intent whose order is gone releases the units its object still holds", async () => {
    const { event, type } = await setup({ price: 10, stock_control: true, stock: 5 });
    const input = createCustomerOrderBody.parse({ name: "Gone", email: "gone@example.com", tickets: [{ [type.id]: 2 }] });
    const { order } = await createCustomerOrder(crashingDeps(), await getEvent(depsFromEnv(env), event.id), input, "");
    await db.delete(orders).where(eq(orders.id, order.id));
    await reconcileObjects(crashingDeps(RECONCILE_AFTER_SECONDS + 1));
    expect(await reservationOf(event.id, order.uid)).toBeUndefined();
    expect((await eventObject(env, event.id).remaining())?.types[type.id]).toBe(5);
  });
});
