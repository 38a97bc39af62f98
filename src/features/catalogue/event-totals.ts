import { sql } from "drizzle-orm";
import { FINAL_STATUSES } from "../../db/order-status";
import { validTickets } from "../../db/valid-tickets";
import { centsToAmount } from "../../lib/money";
import type { Deps } from "../../platform/deps";

/**
 * The totals an event embeds on request (`_embed=sales_totals,scan_totals`): the counts of the reports feature's
 * sales and scan reports summed over the event, read here so an event's own route needs nothing above it.
 */

/**
 * `_embed=sales_totals`: the event's orders over all statuses, and over the final ones (what counts as sold; an
 * order still awaiting its customer's confirmation is not final yet).
 */
export async function salesTotals({ db }: Deps, eventId: number) {
  const isFinal = sql`payment_status IN (SELECT value FROM json_each(${JSON.stringify(FINAL_STATUSES)})) AND awaits_confirmation = 0`;
  const row = await db.get<{ orders: number; cents: number; tickets: number; f_orders: number; f_cents: number; f_tickets: number }>(sql`
    SELECT count(*) AS orders, coalesce(sum(total_cents), 0) AS cents, coalesce(sum(num_tickets), 0) AS tickets,
           count(*) FILTER (WHERE ${isFinal}) AS f_orders,
           coalesce(sum(total_cents) FILTER (WHERE ${isFinal}), 0) AS f_cents,
           coalesce(sum(num_tickets) FILTER (WHERE ${isFinal}), 0) AS f_tickets
    FROM orders WHERE event_id = ${eventId}`);
  return {
    total_orders: row?.orders ?? 0,
    total_amount: centsToAmount(row?.cents ?? 0),
    total_tickets: row?.tickets ?? 0,
    final: { total_orders: row?.f_orders ?? 0, total_amount: centsToAmount(row?.f_cents ?? 0), total_tickets: row?.f_tickets ?? 0 },
  };
}

/** `_embed=scan_totals`: the event's valid tickets, how many were scanned at least once, and all scans by level. */
export async function scanTotals({ db }: Deps, eventId: number) {
  const valid = validTickets([eventId]);
  // `+s.event_id`: looked up by scans_ticket, not by every scan of the event per ticket (see scansReport).
  const hasScans = sql`EXISTS (SELECT 1 FROM scans AS s WHERE s.ticket_id = t.id AND +s.event_id = t.event_id)`;
  const [tickets, levels] = await Promise.all([
    db.get<{ scanned: number; unscanned: number }>(sql`
      SELECT count(*) FILTER (WHERE ${hasScans}) AS scanned, count(*) FILTER (WHERE NOT ${hasScans}) AS unscanned
      FROM tickets AS t WHERE ${valid}`),
    db.all<{ level: number; total: number }>(sql`
      SELECT s.level AS level, count(*) AS total
      FROM tickets AS t JOIN scans AS s ON s.ticket_id = t.id AND s.event_id = t.event_id
      WHERE ${valid} GROUP BY 1 ORDER BY 1`),
  ]);
  const scanned = tickets?.scanned ?? 0;
  const unscanned = tickets?.unscanned ?? 0;
  const byLevel: Record<string, number> = {};
  for (const l of levels) byLevel[String(l.level)] = l.total;
  return {
    tickets: scanned + unscanned,
    scanned_tickets: scanned,
    unscanned_tickets: unscanned,
    total_scans: levels.reduce((n, l) => n + l.total, 0),
    scans_by_level: byLevel,
  };
}
