import { and, asc, eq } from "drizzle-orm";
import { expect } from "vitest";
import { emails, events, orders, ticketTypes } from "../../src/db/schema";
import { call, expectJson, unique } from "./api";
import { createEvent, createTicketType, db } from "./catalogue";

/** Set-up of events that take dashboard orders (`POST /admin/orders`), and small readers of what orders left in D1. */

export interface OrderEvent {
  id: number;
  name: string;
  body: any;
}

/** An event with `add_dashboard_orders_needed` on (and a unique name unless one is given). */
export async function createOrderEvent(body: Record<string, unknown> = {}): Promise<OrderEvent> {
  const name = (body.event_name as string | undefined) ?? unique("Event ");
  const created = await createEvent({ add_dashboard_orders_needed: true, ...body, event_name: name });
  return { id: created.id as number, name, body: created };
}

/** A ticket type with no stock control, no maximum and a price of 10, unless `body` says otherwise. */
export async function createOrderType(eventId: number, name: string, body: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const created = await createTicketType(eventId, { name, maximum_to_order: 0, ...body });
  return { id: created.id as string, name };
}

/**
 * The body of a dashboard order: every type of the event must be named, so `typeIds` lists them all and `counts`
 * gives the units of those ordered (the others are sent as 0).
 */
export function orderBody(eventId: number, typeIds: readonly string[], counts: Record<string, number>, extra: Record<string, unknown> = {}) {
  return {
    event_id: eventId,
    name: "Stock Tester",
    email: "stock.tester@example.com",
    tickets: typeIds.map((id) => ({ [id]: counts[id] ?? 0 })),
    ...extra,
  };
}

export function postOrder(body: unknown): Promise<Response> {
  return call("POST", "/admin/orders", { body });
}

/** Places one order that must succeed and answers its body. */
export async function placeOrder(body: unknown): Promise<any> {
  return expectJson(postOrder(body), 201);
}

export interface RaceOutcome {
  won: any[];
  lost: { status: number; body: any }[];
}

/** Fires every body at once through the HTTP surface and sorts the answers into 201s and the rest. */
export async function race(bodies: readonly unknown[]): Promise<RaceOutcome> {
  const responses = await Promise.all(bodies.map((b) => postOrder(b)));
  const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: JSON.parse(await r.text()) })));
  return {
    won: answers.filter((a) => a.status === 201).map((a) => a.body),
    lost: answers.filter((a) => a.status !== 201),
  };
}

export async function eventSold(eventId: number): Promise<number> {
  const row = await db.select({ sold: events.sold }).from(events).where(eq(events.id, eventId)).get();
  expect(row, `event ${eventId} in D1`).toBeDefined();
  return row!.sold;
}

export async function typeSold(eventId: number, typeId: string): Promise<number> {
  const row = await db
    .select({ sold: ticketTypes.sold })
    .from(ticketTypes)
    .where(and(eq(ticketTypes.eventId, eventId), eq(ticketTypes.id, typeId)))
    .get();
  expect(row, `ticket type ${typeId} of event ${eventId} in D1`).toBeDefined();
  return row!.sold;
}

export async function ordersOf(eventId: number) {
  return db.select().from(orders).where(eq(orders.eventId, eventId));
}

/**
 * The confirmation link of an order awaiting confirmation, as its customer reads it in the email that asks for it
 * (the outbox row; it is written in the order's own batch). The link carries a token no API answer shows.
 */
export async function emailedConfirmLink(orderId: number): Promise<string> {
  const rows = await db.select({ body: emails.body }).from(emails).where(eq(emails.orderId, orderId)).orderBy(asc(emails.id));
  const link = rows.map((r) => /https?:\/\/[^"'\s<>]*\/orders\/confirm\/[A-Za-z0-9]+/.exec(r.body)?.[0]).find((l) => l !== undefined);
  expect(link, `a confirmation link emailed for order ${orderId}`).toBeDefined();
  return link!;
}
