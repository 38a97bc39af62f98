import { and, asc, count as countRows, desc, eq, sql, type SQL } from "drizzle-orm";
import { inIds, inScope } from "../db/client";
import { events, inputFields, orders, tickets, ticketTypes, type OrderLine } from "../db/schema";
import { invalidId, invalidParams } from "../http/errors";
import { pageWindow } from "../http/paging";
import { centsToDecimal } from "../lib/money";
import { randomString } from "../lib/random";
import type { EventRow } from "../schemas/events.schema";
import type { DashboardOrderInput, ListOrdersQuery, OrderRow } from "../schemas/orders.schema";
import type { TicketTypeRow } from "../schemas/ticket-types.schema";
import { assertEventAccess, eventScope, type AuthUser } from "./authority";
import type { Deps } from "./deps";
import { writeLogStatement } from "./logs.service";
import { isFinal } from "../db/order-status";
import { enqueueEmails, orderEmail, outboxStatement } from "./emails.service";
import { orderTopic } from "./topics";
import { checkFieldAnswers, checkOrderer, checkSaleWindow, checkTicketLines, orderError, readTicketCounts, type TicketLine } from "./order-rules";
import { orderTotals, unitPriceCents } from "./pricing";
import {
  confirmStock,
  holdStock,
  passePartoutChildren,
  planStock,
  releaseStock,
  soldUpdates,
  stockEventIds,
  type TicketSeed,
} from "./stock.service";

/** The order `uid`: 40 characters of [A-Za-z0-9], a capability for the public download. */
export const newOrderUid = () => randomString(40);
export const newTicketId = () => randomString(16);

/** A hold must reach D1 well inside the object's deadline (HOLD_MS, 5 minutes); past this the order is abandoned. */
const MAX_HOLD_TO_WRITE_MS = 60_000;

/** The event named in an order body: unknown is a 400 (an id inside a body), outside the user's events a 403. */
async function eventForOrder({ db }: Deps, user: AuthUser, eventId: number): Promise<EventRow> {
  const event = await db.select().from(events).where(eq(events.id, eventId)).get();
  if (!event) throw orderError("order_event_not_found", "Event does not exist");
  assertEventAccess(user, [eventId]);
  return event;
}

/** One ticket per unit of each line at the event; a passe-partout adds one per unit at each child event. */
export function ticketSeeds(event: EventRow, lines: readonly TicketLine[], children: readonly EventRow[]): TicketSeed[] {
  const seeds: TicketSeed[] = [];
  for (const { type, count } of lines) {
    for (let i = 0; i < count; i++) {
      seeds.push({ id: newTicketId(), eventId: event.id, typeId: type.id, typeName: type.name });
      for (const child of children) seeds.push({ id: newTicketId(), eventId: child.id, typeId: type.id, typeName: type.name });
    }
  }
  return seeds;
}

function orderLines(lines: readonly TicketLine[]): OrderLine[] {
  return lines.map(({ type, count }) => ({
    typeId: type.id,
    name: type.name,
    unitCents: unitPriceCents(type.priceCents, type.volumePrice, count),
    vatHundredths: type.vatHundredths,
    isCounted: type.isCounted,
    count,
  }));
}

/**
 * Ticket rows in one statement (one JSON parameter), pointing at their order by its uid. With `onlyIfNone` nothing
 * is written when the order already has tickets, decided inside the statement (two re-issues at once cannot both
 * write).
 */
export function insertTickets(deps: Deps, uid: string, seeds: readonly TicketSeed[], onlyIfNone = false) {
  const json = JSON.stringify(seeds.map((s) => [s.id, s.eventId, s.typeId, s.typeName]));
  const now = deps.now();
  return deps.db.insert(tickets).select(
    deps.db
      .select({
        id: sql`value ->> 0`.as("id"),
        orderId: sql`(SELECT id FROM orders WHERE uid = ${uid})`.as("order_id"),
        eventId: sql`value ->> 1`.as("event_id"),
        ticketTypeId: sql`value ->> 2`.as("ticket_type_id"),
        ticketTypeName: sql`value ->> 3`.as("ticket_type_name"),
        createdAt: sql`${now}`.as("created_at"),
      })
      .from(sql`json_each(${json})`)
      .where(onlyIfNone ? sql`NOT EXISTS (SELECT 1 FROM tickets WHERE order_id = (SELECT id FROM orders WHERE uid = ${uid}))` : undefined),
  );
}

export interface CreatedOrder {
  order: OrderRow;
  event: EventRow;
}

/**
 * `POST /admin/orders` (decisions.md 5.2): every order rule but terms and captcha, in the decided sequence; then
 * stock is held in the event objects, and the order, its tickets and `sold` are written in one D1 batch. A failed
 * write releases the holds. The objects learn the order's id after the answer (or from their alarm).
 */
export async function createDashboardOrder(deps: Deps, user: AuthUser, input: DashboardOrderInput, ipAddress: string): Promise<CreatedOrder> {
  const event = await eventForOrder(deps, user, input.event_id);
  if (!event.addDashboardOrdersNeeded) {
    throw orderError("order_dashboard_disabled", `Dashboard orders are not enabled for event ${event.id}`);
  }
  const { name, email } = checkOrderer(input.name, input.email);
  checkSaleWindow(event, deps.now());
  const [types, fields] = await deps.db.batch([
    deps.db.select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id)).orderBy(asc(ticketTypes.position)),
    deps.db.select().from(inputFields).where(eq(inputFields.eventId, event.id)).orderBy(asc(inputFields.position)),
  ]);
  const lines = checkTicketLines(types as TicketTypeRow[], readTicketCounts(input.tickets));
  const answers = checkFieldAnswers(fields, input.fields ?? new Map());
  const children = event.groupType === 3 ? await passePartoutChildren(deps, event) : [];
  if (event.groupType === 3 && children.length === 0) throw orderError("order_no_child_events", "No child events found for passe-partout");

  const priced = orderLines(lines);
  const totals = orderTotals(priced.map((l) => ({ count: l.count, unitCents: l.unitCents, vatHundredths: l.vatHundredths })), input.amount);
  if (input.amount !== undefined && input.amount > totals.listCents) {
    throw invalidParams({ amount: `must not be above the list price (${centsToDecimal(totals.listCents)})` });
  }
  const ordered = lines.filter((l) => l.count > 0);
  const seeds = ticketSeeds(event, ordered, children);
  const plan = await planStock(deps, event, lines, seeds, children);
  const uid = newOrderUid();

  const heldAt = Date.now();
  await holdStock(deps, uid, plan);
  const stockEvents = plan.steps.map((s) => s.eventId);
  const now = deps.now();
  const draft: OrderRow = {
    id: 0,
    eventId: event.id,
    uid,
    paymentId: "",
    paymentStatus: "dashboard",
    customStatus: "",
    name,
    email,
    emailKey: email.toLowerCase(),
    ipAddress,
    // Password answers are checked but never stored.
    fields: answers.filter((a) => a.field.type !== "password").map((a) => ({ id: a.field.id, name: a.field.name, value: a.value })),
    lines: priced,
    numTickets: ordered.reduce((n, l) => n + l.count, 0),
    totalCents: totals.totalCents,
    discountCents: totals.discountCents,
    currency: deps.config.currency,
    deductions: plan.deductions,
    expiresAt: null,
    createdAt: now,
    modifiedAt: now,
  };
  const { id: _unassigned, ...values } = draft;
  const orderIdOf = sql`(SELECT id FROM orders WHERE uid = ${uid})`;
  // The new-order email goes into the outbox in the same batch as the order: never an order without its email.
  const mail = event.emailsNeeded ? [outboxStatement(deps, orderEmail(deps, draft, event, "new-order"), orderIdOf)] : [];
  let order: OrderRow;
  let emailIds: number[];
  try {
    if (Date.now() - heldAt > MAX_HOLD_TO_WRITE_MS) throw new Error("the hold is too old to be written safely");
    const [inserted, , ...rest] = await deps.db.batch([
      deps.db.insert(orders).values(values).returning(),
      insertTickets(deps, uid, seeds),
      ...mail,
      ...soldUpdates(deps, plan.deductions, 1),
    ]);
    order = inserted[0]!;
    emailIds = mail.length > 0 ? (rest[0] as { id: number }[]).map((r) => r.id) : [];
  } catch (err) {
    await releaseStock(deps, uid, stockEvents);
    throw err;
  }
  deps.defer(enqueueEmails(deps, emailIds));
  deps.defer(confirmStock(deps, uid, stockEvents, { orderId: order.id, name, email }));
  orderTopic(deps, "order.created", order, event);
  return { order, event };
}

export async function listOrders(deps: Deps, user: AuthUser, q: ListOrdersQuery): Promise<{ rows: OrderRow[]; total: number }> {
  assertEventAccess(user, q.event_id ?? []);
  const conditions = [inScope(orders.eventId, eventScope(user))];
  if (q.event_id) conditions.push(inIds(orders.eventId, q.event_id));
  if (q.search) conditions.push(sql`instr(${orders.emailKey}, ${q.search.toLowerCase()}) > 0`);
  if (q.include) conditions.push(inIds(orders.id, q.include));
  if (q.exclude) conditions.push(sql`NOT ${inIds(orders.id, q.exclude)}`);
  const where = and(...conditions.filter((c): c is SQL => c !== undefined));
  const column = { id: orders.id, event_id: orders.eventId, email: orders.emailKey }[q.orderby];
  const direction = q.order === "desc" ? desc : asc;
  const { limit, offset } = pageWindow(q);
  const [rows, totals] = await deps.db.batch([
    deps.db.select().from(orders).where(where).orderBy(direction(column), direction(orders.id)).limit(limit).offset(offset),
    deps.db.select({ n: countRows() }).from(orders).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** The order when the user may see it: 404 when it does not exist, 403 when its event is not the user's. */
export async function getOrderFor({ db }: Deps, user: AuthUser, id: number): Promise<OrderRow> {
  const order = await db.select().from(orders).where(eq(orders.id, id)).get();
  if (!order) throw invalidId("order");
  assertEventAccess(user, [order.eventId]);
  return order;
}

/** The events of the orders, by id (an order shows its event's date and zone). */
export async function eventsOf({ db }: Deps, rows: readonly { eventId: number }[]): Promise<Map<number, EventRow>> {
  const ids = [...new Set(rows.map((r) => r.eventId))];
  if (ids.length === 0) return new Map();
  const found = await db.select().from(events).where(inIds(events.id, ids));
  return new Map(found.map((e) => [e.id, e]));
}

export interface OrderContactChanges {
  customStatus?: string;
  name?: string;
  email?: string;
}

/** Only `custom_status`, `name` and `email` change; the event objects' tickets learn the new name and email. */
export async function updateOrder(deps: Deps, current: OrderRow, changes: OrderContactChanges): Promise<OrderRow> {
  const updated = await deps.db
    .update(orders)
    .set({
      customStatus: changes.customStatus ?? current.customStatus,
      name: changes.name ?? current.name,
      email: changes.email ?? current.email,
      emailKey: (changes.email ?? current.email).toLowerCase(),
      modifiedAt: deps.now(),
    })
    .where(eq(orders.id, current.id))
    .returning()
    .get();
  if (!updated) throw invalidId("order");
  const event = await deps.db.select().from(events).where(eq(events.id, updated.eventId)).get();
  orderTopic(deps, "order.updated", updated, event);
  if (changes.name !== undefined || changes.email !== undefined) {
    deps.defer(confirmStock(deps, updated.uid, stockEventIds(updated.deductions), { orderId: updated.id, name: updated.name, email: updated.email }));
  }
  return updated;
}

/**
 * Deletes the order and its tickets; a final order gives its `sold` back; the event objects release its units
 * (and forget its tickets). Deleting a paid order is logged: no money was refunded.
 */
export async function deleteOrder(deps: Deps, current: OrderRow): Promise<void> {
  const { db } = deps;
  const final = isFinal(current.paymentStatus);
  // Everything in the batch is conditional on the order still existing, and the delete comes last: of two deletes
  // at once, the second finds nothing, changes nothing and answers 404.
  const stillThere = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${current.id})`;
  const unrefunded =
    current.paymentStatus === "paid"
      ? [
          writeLogStatement(
            deps,
            {
              eventId: current.eventId,
              orderId: current.id,
              logType: "REST API",
              description: `Paid order ${current.id} was deleted; its payment of ${centsToDecimal(current.totalCents)} ${current.currency} was not refunded.`,
            },
            stillThere,
          ),
        ]
      : [];
  const results = await db.batch([
    db.delete(tickets).where(and(eq(tickets.orderId, current.id), stillThere)),
    ...unrefunded,
    ...(final ? soldUpdates(deps, current.deductions, -1, stillThere) : []),
    db.delete(orders).where(eq(orders.id, current.id)).returning({ id: orders.id }),
  ]);
  const removed = results[results.length - 1] as { id: number }[];
  if (removed.length === 0) throw invalidId("order");
  await releaseStock(deps, current.uid, stockEventIds(current.deductions));
  orderTopic(deps, "order.deleted", current, undefined);
}

