import { asc, eq, inArray, sql } from "drizzle-orm";
import { inIds } from "../../db/client";
import { events, scans, tickets, ticketTypes } from "../../db/schema";
import { formatDateTime } from "../../lib/time";
import type { ScanView } from "./order-tickets.schema";
import type { Deps } from "../../platform/deps";
import { log } from "../../lib/log";
import { isFinalOrder } from "../../db/order-status";
import { checkOrderSize, type TicketLine } from "../../domain/order-rules";
import { ticketCountOf, ticketSeeds } from "./order-drafts";
import { purgeOrderPdfs } from "../../platform/pdf-cache";
import { insertTicketRows, revokeTicketRows } from "../tickets/ticket-rows";
import { objectTicket, passePartoutChildren, stockEventIds } from "./stock.service";
import type { ObjectTicket } from "../../event-object/stock-ledger";
import type { EventRow, OrderRow, TicketRow } from "../../db/rows";
import { fail } from "../../domain/errors";

export interface OrderTickets {
  rows: TicketRow[];
  events: Map<number, EventRow>;
  scans: Map<string, ScanView[]>;
}

/**
 * The tickets of the orders, with the events they are valid at and their scans as D1 has them (written shortly
 * after each scan; dates in the event's zone).
 */
export async function ticketsOfOrders({ db }: Deps, orderIds: readonly number[]): Promise<OrderTickets> {
  if (orderIds.length === 0) return { rows: [], events: new Map(), scans: new Map() };
  const [rows, scanRows] = await db.batch([
    db.select().from(tickets).where(inIds(tickets.orderId, orderIds)).orderBy(asc(tickets.createdAt), asc(tickets.id)),
    db.select().from(scans).where(inIds(scans.orderId, orderIds)).orderBy(asc(scans.seq)),
  ]);
  const eventIds = [...new Set(rows.map((t) => t.eventId))];
  const eventRows = eventIds.length > 0 ? await db.select().from(events).where(inIds(events.id, eventIds)) : [];
  const eventsById = new Map(eventRows.map((e) => [e.id, e]));
  const byTicket = new Map<string, ScanView[]>();
  for (const s of scanRows) {
    const timezone = eventsById.get(s.eventId)?.timezone ?? "UTC";
    const list = byTicket.get(s.ticketId) ?? [];
    list.push({ level: s.level, date: formatDateTime(Math.floor(s.scannedAt / 1000), timezone), location: s.location });
    byTicket.set(s.ticketId, list);
  }
  return { rows, events: eventsById, scans: byTicket };
}

/** Every event an order's tickets may be valid at: where it holds stock, and where its tickets are now. */
function ticketEventIds(order: OrderRow, extra: readonly number[]): number[] {
  return [...new Set([...stockEventIds(order.deductions), order.eventId, ...extra])];
}

/** Tells the event objects which of the order's tickets are valid there (none after a delete). */
async function syncObjects(deps: Deps, order: OrderRow, tickets: readonly (ObjectTicket & { eventId: number })[], eventIds: readonly number[]): Promise<void> {
  const info = { orderId: order.id, name: order.name, email: order.email };
  await Promise.all(
    eventIds.map((eventId) =>
      deps.eventObjects
        .get(eventId)
        .replaceTickets(
          order.uid,
          tickets.filter((t) => t.eventId === eventId).map(({ eventId: _, ...t }) => t),
          info,
        )
        .catch((err: unknown) => log("error", "ticket sync with the event object failed", { event_id: eventId, error: String(err) })),
    ),
  );
}

const ticketsExist = (order: OrderRow) => fail.order_tickets_exist(`Order ${order.id} already has tickets; delete them before issuing new ones.`);

/**
 * `POST /admin/tickets/<order_id>`: new ticket ids for a final order that has none (409 when it has some, or is
 * not final). The objects learn them before the answer, so they scan at once.
 */
export async function issueTickets(deps: Deps, order: OrderRow): Promise<void> {
  if (!isFinalOrder(order)) throw fail.order_not_final(`Order ${order.id} is not final (${order.paymentStatus}); it has no tickets to issue.`);
  const existing = await deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id)).limit(1).get();
  if (existing) throw ticketsExist(order);
  const event = await deps.db.select().from(events).where(eq(events.id, order.eventId)).get();
  if (!event) throw fail.order_event_not_found(undefined, { status: 409 });
  const types = await deps.db
    .select()
    .from(ticketTypes)
    .where(
      inArray(
        ticketTypes.id,
        order.lines.map((l) => l.typeId),
      ),
    );
  const byId = new Map(types.filter((t) => t.eventId === event.id).map((t) => [t.id, t]));
  // A type renamed since the order keeps the order's name on its tickets; one deleted since cannot be re-issued.
  const lines: TicketLine[] = order.lines
    .filter((l) => l.count > 0)
    .map((l) => {
      const type = byId.get(l.typeId);
      if (!type) throw fail.order_ticket_type_gone(`Ticket type "${l.name}" no longer exists; its tickets cannot be issued again.`);
      return { type: { ...type, name: l.name }, count: l.count };
    });
  const children = event.groupType === 3 ? await passePartoutChildren(deps, event) : [];
  // A passe-partout's group may have grown since the order: the cap holds for what would be issued now.
  checkOrderSize(ticketCountOf(event, lines, children));
  const seeds = ticketSeeds(event, lines, children, order.seats?.labels);
  // Decided inside the insert: of two re-issues at once, only one writes.
  const none = sql`NOT EXISTS (SELECT 1 FROM tickets WHERE order_id = ${order.id})`;
  const written = await insertTicketRows(deps, order.uid, seeds, none).returning({ id: tickets.id });
  if (written.length === 0) throw ticketsExist(order);
  await syncObjects(
    deps,
    order,
    seeds.map((s) => ({ ...objectTicket(s), eventId: s.eventId })),
    ticketEventIds(
      order,
      children.map((c) => c.id),
    ),
  );
  await purgeOrderPdfs(deps, [order.uid]);
}

/** `DELETE /admin/tickets/<order_id>`: the tickets are gone and no longer scan anywhere. `sold` is unchanged. */
export async function deleteTickets(deps: Deps, order: OrderRow): Promise<void> {
  const [, removed] = await deps.db.batch([
    revokeTicketRows(deps, eq(tickets.orderId, order.id)),
    deps.db.delete(tickets).where(eq(tickets.orderId, order.id)).returning({ eventId: tickets.eventId }),
  ]);
  await syncObjects(
    deps,
    order,
    [],
    ticketEventIds(
      order,
      removed.map((r) => r.eventId),
    ),
  );
  await purgeOrderPdfs(deps, [order.uid]);
}
