import { eq, sql, type AnyColumn } from "drizzle-orm";
import { FINAL_STATUSES } from "../../db/order-status";
import { salesCounts, scanCounts, ticketCounts } from "../../db/schema";
import { centsToAmount } from "../../lib/money";
import type { Deps } from "../../platform/deps";

/**
 * The totals an event embeds on request (`_embed=sales_totals,scan_totals`): the counts of the reports feature's
 * sales and scan reports summed over the event, read here (from the same counters) so an event's own route needs
 * nothing above it.
 */

/**
 * `_embed=sales_totals`: the event's orders over all statuses, and over the final ones (what counts as sold; an
 * order still awaiting its customer's confirmation is not final yet).
 */
export async function salesTotals({ db }: Deps, eventId: number) {
  const isFinal = sql`${salesCounts.paymentStatus} IN (SELECT value FROM json_each(${JSON.stringify(FINAL_STATUSES)})) AND ${salesCounts.awaitsConfirmation} = 0`;
  const sum = (column: AnyColumn, onlyFinal = false) => sql<number>`coalesce(sum(${column})${onlyFinal ? sql` FILTER (WHERE ${isFinal})` : sql``}, 0)`.mapWith(Number);
  const row = await db
    .select({
      orders: sum(salesCounts.orders),
      cents: sum(salesCounts.cents),
      tickets: sum(salesCounts.tickets),
      fOrders: sum(salesCounts.orders, true),
      fCents: sum(salesCounts.cents, true),
      fTickets: sum(salesCounts.tickets, true),
    })
    .from(salesCounts)
    .where(eq(salesCounts.eventId, eventId))
    .get();
  return {
    total_orders: row?.orders ?? 0,
    total_amount: centsToAmount(row?.cents ?? 0),
    total_tickets: row?.tickets ?? 0,
    final: { total_orders: row?.fOrders ?? 0, total_amount: centsToAmount(row?.fCents ?? 0), total_tickets: row?.fTickets ?? 0 },
  };
}

/** `_embed=scan_totals`: the event's valid tickets, how many were scanned at least once, and all scans by level. */
export async function scanTotals({ db }: Deps, eventId: number) {
  const [tickets, levels] = await Promise.all([
    db
      .select({
        valid: sql<number>`coalesce(sum(${ticketCounts.valid}), 0)`.mapWith(Number),
        scanned: sql<number>`coalesce(sum(${ticketCounts.scanned}), 0)`.mapWith(Number),
      })
      .from(ticketCounts)
      .where(eq(ticketCounts.eventId, eventId))
      .get(),
    db
      .select({ level: scanCounts.level, total: sql<number>`sum(${scanCounts.scans})`.mapWith(Number) })
      .from(scanCounts)
      .where(eq(scanCounts.eventId, eventId))
      .groupBy(scanCounts.level)
      .having(sql`sum(${scanCounts.scans}) > 0`)
      .orderBy(scanCounts.level),
  ]);
  const valid = tickets?.valid ?? 0;
  const scanned = tickets?.scanned ?? 0;
  const byLevel: Record<string, number> = {};
  for (const l of levels) byLevel[String(l.level)] = l.total;
  return {
    tickets: valid,
    scanned_tickets: scanned,
    unscanned_tickets: valid - scanned,
    total_scans: levels.reduce((n, l) => n + l.total, 0),
    scans_by_level: byLevel,
  };
}
