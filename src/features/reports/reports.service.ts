import { and, asc, sql, type AnyColumn } from "drizzle-orm";
import { inIds } from "../../db/client";
import { events, salesCounts, salesTypeCounts, scanCounts, ticketCounts } from "../../db/schema";
import { centsToAmount } from "../../lib/money";
import { eventScope, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";
import { inGroup } from "../catalogue/event-groups";
import type { EventRow } from "../../db/rows";

/**
 * Sales and scan reports (spec "Sales and scan reports"), read from the counters D1 keeps as orders, tickets and
 * scans change (db/schema.ts, migration 0023; the objects are never asked), so a report costs the same however
 * many orders and scans its events have. Sales count orders by the event they were placed for, per payment status,
 * with `amount` per type at list price and `total_amount` what was charged; scans count the tickets valid at the
 * event (a passe-partout's child tickets count at the child), per type name as the ticket shows it (without seat),
 * location and level, with a row of location "" for the tickets of live orders not scanned yet.
 */

export interface SalesLine {
  payment_status: string;
  total_orders: number;
  total_amount: number;
  total_tickets: number;
  tickets: { ticket_type: string; sold: number; orders: number; amount: number }[];
}

export interface ScanLine {
  ticket_type: string;
  scans: { scan_location: string; scan_level: number; scan_total: number }[];
}

/** The sum of a counter over the events asked about (counters at 0 are rows like any other). */
const total = (column: AnyColumn) => sql<number>`sum(${column})`.mapWith(Number);

/** The events of `event`'s group the user may see (the event alone when it is in no group). */
export async function groupEvents({ db }: Deps, user: AuthUser, event: EventRow): Promise<number[]> {
  if (event.eventGroup === "" || event.groupType === 0) return [event.id];
  const scope = eventScope(user);
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(and(inGroup(event.eventGroup), scope === "all" ? undefined : inIds(events.id, scope)))
    .orderBy(asc(events.id));
  return rows.map((r) => r.id);
}

export async function salesReport({ db }: Deps, eventIds: readonly number[]): Promise<SalesLine[]> {
  const [totals, lines] = await Promise.all([
    db
      .select({ status: salesCounts.paymentStatus, orders: total(salesCounts.orders), cents: total(salesCounts.cents), tickets: total(salesCounts.tickets) })
      .from(salesCounts)
      .where(inIds(salesCounts.eventId, eventIds))
      .groupBy(salesCounts.paymentStatus)
      .having(sql`sum(${salesCounts.orders}) > 0`)
      .orderBy(salesCounts.paymentStatus),
    db
      .select({
        status: salesTypeCounts.paymentStatus,
        type: salesTypeCounts.ticketType,
        sold: total(salesTypeCounts.sold),
        orders: total(salesTypeCounts.orders),
        cents: total(salesTypeCounts.cents),
      })
      .from(salesTypeCounts)
      .where(inIds(salesTypeCounts.eventId, eventIds))
      .groupBy(salesTypeCounts.paymentStatus, salesTypeCounts.ticketType)
      .having(sql`sum(${salesTypeCounts.orders}) > 0`)
      .orderBy(salesTypeCounts.paymentStatus, salesTypeCounts.ticketType),
  ]);
  return totals.map((t) => ({
    payment_status: t.status,
    total_orders: t.orders,
    total_amount: centsToAmount(t.cents),
    total_tickets: t.tickets,
    tickets: lines.filter((l) => l.status === t.status).map((l) => ({ ticket_type: l.type, sold: l.sold, orders: l.orders, amount: centsToAmount(l.cents) })),
  }));
}

export async function scansReport({ db }: Deps, eventIds: readonly number[]): Promise<ScanLine[]> {
  const [scanned, unscanned] = await Promise.all([
    db
      .select({ type: scanCounts.ticketType, location: scanCounts.location, level: scanCounts.level, total: total(scanCounts.scans) })
      .from(scanCounts)
      .where(inIds(scanCounts.eventId, eventIds))
      .groupBy(scanCounts.ticketType, scanCounts.location, scanCounts.level)
      .having(sql`sum(${scanCounts.scans}) > 0`)
      .orderBy(scanCounts.ticketType, scanCounts.location, scanCounts.level),
    db
      .select({ type: ticketCounts.ticketType, total: sql<number>`sum(${ticketCounts.valid} - ${ticketCounts.scanned})`.mapWith(Number) })
      .from(ticketCounts)
      .where(inIds(ticketCounts.eventId, eventIds))
      .groupBy(ticketCounts.ticketType)
      .having(sql`sum(${ticketCounts.valid} - ${ticketCounts.scanned}) > 0`)
      .orderBy(ticketCounts.ticketType),
  ]);
  const types = [...new Set([...scanned.map((s) => s.type), ...unscanned.map((u) => u.type)])].sort();
  return types.map((type) => {
    const waiting = unscanned.find((u) => u.type === type)?.total ?? 0;
    return {
      ticket_type: type,
      scans: [
        { scan_location: "", scan_level: 0, scan_total: waiting },
        ...scanned.filter((s) => s.type === type).map((s) => ({ scan_location: s.location, scan_level: s.level, scan_total: s.total })),
      ],
    };
  });
}
