import { env } from "cloudflare:workers";
import { eq, and } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders, tickets as ticketRows, ticketTypes } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import { BASE, call, createUser, expectError, expectJson, ORIGIN, unique, type Credentials } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";

/**
 * Tickets of an order: `GET/POST/DELETE /admin/tickets/<order_id>` (ticketing-api.md "Order tickets", "Tickets of an
 * order", States; decisions.md sections 3, 7, 12 and 13 "Orders"; docs/stock.md). The event objects know which
 * tickets are valid; `sold` follows live final orders, never ticket rows. Storage is shared by this file's tests,
 * so each test makes its own events (and passe-partout groups get unique names).
 */

const TICKET_ID = /^[A-Za-z0-9]{16}$/;
const ticketsPath = (orderId: number | string) => `/admin/tickets/${orderId}`;

interface TicketView {
  ticket_id: string;
  event_id: number;
  event_name: string;
  event_date: string;
  ticket_type: string;
  scans: unknown[];
}

interface OrderTicketsView {
  order_id: number;
  name: string;
  email: string;
  created_at: string;
  tickets: TicketView[];
  _links: { self: { href: string }[]; download: { href: string }[] };
}

async function newEvent(body: Record<string, unknown> = {}): Promise<any> {
  return createEvent({ event_name: unique("Evt "), add_dashboard_orders_needed: true, ...body });
}

/** A dashboard order naming every type of the event (`counts` by type id, 0 for the others). */
async function placeOrder(eventId: number, typeIds: string[], counts: Record<string, number>, auth?: Credentials): Promise<any> {
  const body = {
    event_id: eventId,
    name: "Ada Lovelace",
    email: "ada@example.com",
    tickets: typeIds.map((id) => ({ [id]: counts[id] ?? 0 })),
  };
  return expectJson(call("POST", "/admin/orders", { body, auth }), 201);
}

const getTickets = (orderId: number, auth?: Credentials) => expectJson<OrderTicketsView>(call("GET", ticketsPath(orderId), { auth }), 200);

async function deleteTickets(orderId: number) {
  const body = await expectJson(call("DELETE", ticketsPath(orderId)), 200);
  expect(body).toEqual({ deleted: true });
}

async function issueTickets(orderId: number): Promise<OrderTicketsView> {
  const res = await call("POST", ticketsPath(orderId));
  const body = await expectJson<OrderTicketsView>(res, 201);
  expect(res.headers.get("Location")).toBe(`${BASE}${ticketsPath(orderId)}`);
  return body;
}

const snapshot = (eventId: number) => eventObject(env, eventId).snapshot();
const remaining = (eventId: number) => eventObject(env, eventId).remaining();

/** The ticket ids the event's object holds for the order `uid`, sorted. */
async function objectTickets(eventId: number, uid: string): Promise<{ id: string; typeName: string }[]> {
  const snap = await snapshot(eventId);
  return snap.tickets
    .filter((t) => t.uid === uid)
    .map((t) => ({ id: t.id, typeName: t.typeName }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The deferred confirm (waitUntil) makes the order's hold a take; poll briefly until every object has it. */
async function waitUntilTaken(eventIds: number[], uid: string): Promise<void> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const states = await Promise.all(eventIds.map(async (id) => (await snapshot(id)).reservations.find((r) => r.uid === uid)?.state));
    if (states.every((s) => s === "taken")) return;
    if (Date.now() > deadline) throw new Error(`order ${uid} not taken at every object: ${JSON.stringify(states)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The response's tickets at one event, as the object should know them. */
function expectedAt(view: OrderTicketsView, eventId: number) {
  return view.tickets
    .filter((t) => t.event_id === eventId)
    .map((t) => ({ id: t.ticket_id, typeName: t.ticket_type }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function eventSold(eventId: number): Promise<number> {
  return (await expectJson(call("GET", `/admin/events/${eventId}`), 200)).sold;
}

async function typeSold(eventId: number, typeId: string): Promise<number> {
  return (await expectJson(call("GET", `/admin/events/${eventId}/ticket-types/${typeId}`), 200)).sold;
}

function expectShape(view: OrderTicketsView, order: any) {
  expect(Object.keys(view).sort()).toEqual(["_links", "created_at", "email", "name", "order_id", "tickets"]);
  expect(view).toMatchObject({ order_id: order.id, name: order.name, email: order.email, created_at: order.created_at });
  expect(view._links).toEqual({
    self: [{ href: `${BASE}${ticketsPath(order.id)}` }],
    download: [{ href: `${ORIGIN}/ticketing/v1/tickets/${order.uid}` }],
  });
  for (const t of view.tickets) {
    expect(Object.keys(t).sort()).toEqual(["event_date", "event_id", "event_name", "scans", "ticket_id", "ticket_type"]);
    expect(t.ticket_id).toMatch(TICKET_ID);
    expect(t.scans).toEqual([]);
  }
  const ids = view.tickets.map((t) => t.ticket_id);
  expect(new Set(ids).size).toBe(ids.length);
}

/** An event with two types (VIP with stock control) and an order of 2 Regular + 1 VIP, confirmed at the object. */
async function orderedEvent(eventBody: Record<string, unknown> = {}) {
  const event = await newEvent({ stock: 20, ...eventBody });
  const regular = await createTicketType(event.id, { name: "Regular", price: 10 });
  const vip = await createTicketType(event.id, { name: "VIP", price: 50, stock_control: true, stock: 10 });
  const order = await placeOrder(event.id, [regular.id, vip.id], { [regular.id]: 2, [vip.id]: 1 });
  await waitUntilTaken([event.id], order.uid);
  return { event, regular, vip, order };
}

describe("GET /admin/tickets/<order_id>", () => {
  it("shows the tickets of a dashboard order: one per unit, in the event's zone, with the public download link", async () => {
    const { event, order } = await orderedEvent({ event_date: "2031-07-04 21:15:00", timezone: "America/New_York" });
    const view = await getTickets(order.id);
    expectShape(view, order);
    expect(view.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(view.tickets).toHaveLength(3);
    const base = { event_id: event.id, event_name: event.event_name, event_date: "2031-07-04 21:15:00", scans: [] };
    expect(view.tickets.filter((t) => t.ticket_type === "Regular")).toEqual([expect.objectContaining(base), expect.objectContaining(base)]);
    expect(view.tickets.filter((t) => t.ticket_type === "VIP")).toEqual([expect.objectContaining(base)]);
  });

  it("shows an unset event date as an empty string", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Standing" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 });
    const view = await getTickets(order.id);
    expectShape(view, order);
    expect(view.tickets).toEqual([
      { ticket_id: expect.stringMatching(TICKET_ID), event_id: event.id, event_name: event.event_name, event_date: "", ticket_type: "Standing", scans: [] },
    ]);
  });

  it("the event object knows the order's tickets under the order's uid", async () => {
    const { event, order } = await orderedEvent();
    const view = await getTickets(order.id);
    const known = await objectTickets(event.id, order.uid);
    expect(known).toHaveLength(3);
    expect(known).toEqual(expectedAt(view, event.id));
  });

  it("honours _fields", async () => {
    const { order } = await orderedEvent();
    const some = await expectJson(call("GET", `${ticketsPath(order.id)}?_fields=order_id,tickets`), 200);
    expect(Object.keys(some).sort()).toEqual(["order_id", "tickets"]);
    expect(some.order_id).toBe(order.id);
    expect(some.tickets).toHaveLength(3);
    const withLinks = await expectJson(call("GET", `${ticketsPath(order.id)}?_fields=email,_links,nope`), 200);
    expect(withLinks).toEqual({
      email: "ada@example.com",
      _links: { self: [{ href: `${BASE}${ticketsPath(order.id)}` }], download: [{ href: `${ORIGIN}/ticketing/v1/tickets/${order.uid}` }] },
    });
  });
});

describe("DELETE and POST /admin/tickets/<order_id>", () => {
  it("DELETE removes the tickets everywhere but keeps sold and the taken stock", async () => {
    const { event, regular, vip, order } = await orderedEvent();
    const before = await getTickets(order.id);
    const soldBefore = { event: await eventSold(event.id), regular: await typeSold(event.id, regular.id), vip: await typeSold(event.id, vip.id) };
    expect(soldBefore).toEqual({ event: 3, regular: 2, vip: 1 });
    const remainingBefore = await remaining(event.id);
    expect(remainingBefore).toEqual({ event: 17, types: { [regular.id]: null, [vip.id]: 9 } });
    const snapBefore = await snapshot(event.id);

    await deleteTickets(order.id);

    const after = await getTickets(order.id);
    expectShape(after, order);
    expect(after.tickets).toEqual([]);
    expect(await objectTickets(event.id, order.uid)).toEqual([]);
    const snapAfter = await snapshot(event.id);
    for (const t of before.tickets) expect(snapAfter.tickets.map((k) => k.id)).not.toContain(t.ticket_id);
    expect(snapAfter.totals).toEqual(snapBefore.totals);
    expect(snapAfter.reservations.find((r) => r.uid === order.uid)).toMatchObject({ state: "taken", eventUnits: 3 });
    expect(await remaining(event.id)).toEqual(remainingBefore);
    expect({ event: await eventSold(event.id), regular: await typeSold(event.id, regular.id), vip: await typeSold(event.id, vip.id) }).toEqual(soldBefore);
    // D1 agrees: no ticket rows left for the order.
    expect(await db.select().from(ticketRows).where(eq(ticketRows.orderId, order.id))).toEqual([]);
  });

  it("POST after DELETE issues new, different ids that the object knows; sold and stock unchanged; POST again is 409", async () => {
    const { event, regular, vip, order } = await orderedEvent({ event_date: "2031-01-10 10:00:00", timezone: "Asia/Tokyo" });
    const original = await getTickets(order.id);
    const oldIds = original.tickets.map((t) => t.ticket_id);
    const remainingBefore = await remaining(event.id);

    // While tickets exist, POST is refused and changes nothing.
    await expectError(call("POST", ticketsPath(order.id)), 409, "order_tickets_exist");
    expect((await getTickets(order.id)).tickets.map((t) => t.ticket_id).sort()).toEqual([...oldIds].sort());

    await deleteTickets(order.id);
    const issued = await issueTickets(order.id);
    expectShape(issued, order);
    expect(issued.tickets).toHaveLength(3);
    for (const t of issued.tickets) {
      expect(oldIds).not.toContain(t.ticket_id);
      expect(t).toMatchObject({ event_id: event.id, event_name: event.event_name, event_date: "2031-01-10 10:00:00" });
    }
    expect(issued.tickets.map((t) => t.ticket_type).sort()).toEqual(["Regular", "Regular", "VIP"]);
    expect(await getTickets(order.id)).toEqual(issued);

    const known = await objectTickets(event.id, order.uid);
    expect(known).toEqual(expectedAt(issued, event.id));
    const allKnown = (await snapshot(event.id)).tickets.map((t) => t.id);
    for (const id of oldIds) expect(allKnown).not.toContain(id);

    expect(await remaining(event.id)).toEqual(remainingBefore);
    expect(await eventSold(event.id)).toBe(3);
    expect(await typeSold(event.id, regular.id)).toBe(2);
    expect(await typeSold(event.id, vip.id)).toBe(1);

    await expectError(call("POST", ticketsPath(order.id)), 409, "order_tickets_exist");
    expect(await getTickets(order.id)).toEqual(issued);
  });

  it("concurrent POSTs issue one set of tickets: one 201, the others 409, and D1 and the object agree", async () => {
    const { event, order } = await orderedEvent();
    await deleteTickets(order.id);
    const answers = await Promise.all([1, 2, 3].map(() => call("POST", ticketsPath(order.id))));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) await expectError(res, 409, "order_tickets_exist");
    const view = await getTickets(order.id);
    expect(view.tickets).toHaveLength(3);
    expect(await objectTickets(event.id, order.uid)).toEqual(expectedAt(view, event.id));
  });

  it("a passe-partout order has tickets at each child and none at P (decisions.md 15); delete and re-issue keep the shape", async () => {
    const group = unique("G");
    const c1 = await newEvent({
      event_name: unique("Child one "),
      group_type: 1,
      event_group: group,
      stock: 10,
      event_date: "2031-05-02 18:30:00",
      timezone: "Asia/Tokyo",
    });
    const c2 = await newEvent({ event_name: unique("Child two "), group_type: 1, event_group: group });
    const p = await newEvent({ event_name: unique("Pass "), group_type: 3, event_group: group, event_date: "2031-05-01 20:00:00", timezone: "America/New_York" });
    const pass = await createTicketType(p.id, { name: "Weekend pass", price: 99 });
    const order = await placeOrder(p.id, [pass.id], { [pass.id]: 2 });
    const all = [p.id, c1.id, c2.id];
    await waitUntilTaken(all, order.uid);

    const expectPassShape = (view: OrderTicketsView) => {
      expectShape(view, order);
      expect(view.tickets).toHaveLength(4);
      for (const t of view.tickets) expect(t.ticket_type).toBe("Weekend pass");
      const at = (id: number) => view.tickets.filter((t) => t.event_id === id);
      expect(at(p.id)).toHaveLength(0);
      expect(at(c1.id)).toHaveLength(2);
      expect(at(c2.id)).toHaveLength(2);
      for (const t of at(c1.id)) expect(t).toMatchObject({ event_name: c1.event_name, event_date: "2031-05-02 18:30:00" });
      for (const t of at(c2.id)) expect(t).toMatchObject({ event_name: c2.event_name, event_date: "" });
    };
    const expectObjectsKnow = async (view: OrderTicketsView) => {
      for (const id of all) {
        const known = await objectTickets(id, order.uid);
        expect(known, `object of event ${id}`).toHaveLength(id === p.id ? 0 : 2);
        expect(known).toEqual(expectedAt(view, id));
      }
    };
    const sold = async () => ({ p: await eventSold(p.id), pass: await typeSold(p.id, pass.id), c1: await eventSold(c1.id), c2: await eventSold(c2.id) });

    const first = await getTickets(order.id);
    expectPassShape(first);
    await expectObjectsKnow(first);
    expect(await sold()).toEqual({ p: 2, pass: 2, c1: 2, c2: 2 });
    expect((await remaining(c1.id))?.event).toBe(8);

    await deleteTickets(order.id);
    expect((await getTickets(order.id)).tickets).toEqual([]);
    for (const id of all) expect(await objectTickets(id, order.uid), `object of event ${id}`).toEqual([]);
    expect(await sold()).toEqual({ p: 2, pass: 2, c1: 2, c2: 2 });
    expect((await remaining(c1.id))?.event).toBe(8);

    const again = await issueTickets(order.id);
    expectPassShape(again);
    const oldIds = new Set(first.tickets.map((t) => t.ticket_id));
    for (const t of again.tickets) expect(oldIds.has(t.ticket_id)).toBe(false);
    await expectObjectsKnow(again);
    for (const id of all) {
      const ids = (await snapshot(id)).tickets.map((t) => t.id);
      for (const old of oldIds) expect(ids).not.toContain(old);
    }
    expect(await sold()).toEqual({ p: 2, pass: 2, c1: 2, c2: 2 });
    expect((await remaining(c1.id))?.event).toBe(8);
  });

  it("re-issued tickets keep the type name the order was placed with after a rename", async () => {
    const event = await newEvent();
    const early = await createTicketType(event.id, { name: "Early bird" });
    const order = await placeOrder(event.id, [early.id], { [early.id]: 2 });
    await waitUntilTaken([event.id], order.uid);
    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${early.id}`, { body: { name: "Late bird" } }), 200);

    await deleteTickets(order.id);
    const issued = await issueTickets(order.id);
    expect(issued.tickets.map((t) => t.ticket_type)).toEqual(["Early bird", "Early bird"]);
    expect((await objectTickets(event.id, order.uid)).map((t) => t.typeName)).toEqual(["Early bird", "Early bird"]);
  });

  it("a ticket type deleted since the order makes POST 409 and issues nothing", async () => {
    const event = await newEvent();
    const keep = await createTicketType(event.id, { name: "Seated" });
    const gone = await createTicketType(event.id, { name: "Standing" });
    const order = await placeOrder(event.id, [keep.id, gone.id], { [keep.id]: 1, [gone.id]: 1 });
    await waitUntilTaken([event.id], order.uid);
    await deleteTickets(order.id);
    // The API refuses to delete a type with sold units; the type disappears behind its back.
    await db.delete(ticketTypes).where(and(eq(ticketTypes.eventId, event.id), eq(ticketTypes.id, gone.id)));

    const err = await expectError(call("POST", ticketsPath(order.id)), 409, "order_ticket_type_gone");
    expect(err.message).toContain("Standing");
    expect((await getTickets(order.id)).tickets).toEqual([]);
    expect(await objectTickets(event.id, order.uid)).toEqual([]);
  });

  it("an order whose payment is not final cannot have tickets issued: 409", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 2 });
    await waitUntilTaken([event.id], order.uid);
    await deleteTickets(order.id);
    await db.update(orders).set({ paymentStatus: "open" }).where(eq(orders.id, order.id));

    await expectError(call("POST", ticketsPath(order.id)), 409, "order_not_final");
    expect((await getTickets(order.id)).tickets).toEqual([]);
    expect(await db.select().from(ticketRows).where(eq(ticketRows.orderId, order.id))).toEqual([]);
    expect(await objectTickets(event.id, order.uid)).toEqual([]);
  });
});

describe("POST /admin/tickets/<order_id>: at most 1000 tickets an order (decisions.md 15)", () => {
  it("refuses to re-issue a passe-partout order whose group grew past 1,000 tickets, writing none", async () => {
    const group = unique("pp-grow-");
    await newEvent({ group_type: 1, event_group: group });
    const pass = await newEvent({ group_type: 3, event_group: group });
    const type = await createTicketType(pass.id, { name: "Pass", price: 50, maximum_to_order: 0 });
    const order = await placeOrder(pass.id, [type.id], { [type.id]: 400 });
    await deleteTickets(order.id);
    // Two more days: 400 units now ticket for three children (and more, counted as the order issues them).
    await newEvent({ group_type: 1, event_group: group });
    await newEvent({ group_type: 1, event_group: group });
    const err = await expectError(call("POST", ticketsPath(order.id)), 400, "rest_invalid_param");
    expect(err.message).toBe("An order holds at most 1000 tickets");
    expect(await db.select().from(ticketRows).where(eq(ticketRows.orderId, order.id))).toEqual([]);
  });
});

describe("ids, roles and authentication", () => {
  const methods = ["GET", "POST", "DELETE"] as const;

  it("an unknown order is 404 rest_order_invalid_id; a malformed id too", async () => {
    for (const method of methods) {
      await expectError(call(method, ticketsPath(999_999_999)), 404, "rest_order_invalid_id");
      await expectError(call(method, ticketsPath("abc")), 404, "rest_order_invalid_id");
      await expectError(call(method, ticketsPath("1.5")), 404, "rest_order_invalid_id");
    }
  });

  it("an organizer sees only the tickets of its authorised events (403 otherwise, changing nothing)", async () => {
    const { event, order } = await orderedEvent();
    const other = await newEvent();
    const outsider = await createUser("organizer", { authorised_events: [other.id] });
    const insider = await createUser("organizer", { authorised_events: [event.id] });
    const before = await getTickets(order.id);

    for (const method of methods) {
      await expectError(call(method, ticketsPath(order.id), { auth: outsider.credentials }), 403, "rest_forbidden");
    }
    expect(await getTickets(order.id)).toEqual(before);
    expect(await objectTickets(event.id, order.uid)).toEqual(expectedAt(before, event.id));

    // The organizer of the event may do all three.
    expect(await getTickets(order.id, insider.credentials)).toEqual(before);
    expect(await expectJson(call("DELETE", ticketsPath(order.id), { auth: insider.credentials }), 200)).toEqual({ deleted: true });
    const issued = await expectJson<OrderTicketsView>(call("POST", ticketsPath(order.id), { auth: insider.credentials }), 201);
    expect(issued.tickets).toHaveLength(3);
  });

  it("needs the API key and Basic credentials", async () => {
    const { order } = await orderedEvent();
    const before = await getTickets(order.id);
    for (const method of methods) {
      await expectError(call(method, ticketsPath(order.id), { key: null }), 401, "rest_forbidden_api_key");
      await expectError(call(method, ticketsPath(order.id), { key: "wrong-key" }), 401, "rest_forbidden_api_key");
      const res = await call(method, ticketsPath(order.id), { auth: null });
      expect(res.headers.get("WWW-Authenticate")).toContain("Basic");
      await expectError(res, 401, "rest_not_logged_in");
      await expectError(call(method, ticketsPath(order.id), { auth: { username: "admin", password: "wrong" } }), 401, "incorrect_password");
    }
    expect(await getTickets(order.id)).toEqual(before);
  });
});
