import { sql } from "drizzle-orm";
import type { Db } from "../../src/db/client";
import { FINAL_STATUSES } from "../../src/db/order-status";
import { centsToAmount } from "../../src/lib/money";
import type { SalesLine, ScanLine } from "../../src/features/reports/reports.service";

/**
 * The reports and an event's embedded totals counted again from every order, ticket and scan: the aggregate queries
 * the service ran before it kept counters (docs/scanning.md "Reports"). The counter tests hold the counters to these.
 */

/** Tickets `t` valid at the events: theirs, of orders that are final. */
function validTickets(eventIds: readonly number[]) {
  return sql`t.event_id IN (SELECT value FROM json_each(${JSON.stringify(eventIds)}))
    AND EXISTS (SELECT 1 FROM orders AS o WHERE o.id = t.order_id AND o.payment_status IN (SELECT value FROM json_each(${JSON.stringify(FINAL_STATUSES)})))`;
}

export async function recountSales(db: Db, eventIds: readonly number[]): Promise<SalesLine[]> {
  const ids = JSON.stringify(eventIds);
  const totals = await db.all<{ status: string; orders: number; cents: number; tickets: number }>(sql`
    SELECT payment_status AS status, count(*) AS orders, sum(total_cents) AS cents, sum(num_tickets) AS tickets
    FROM orders WHERE event_id IN (SELECT value FROM json_each(${ids}))
    GROUP BY payment_status ORDER BY payment_status`);
  const lines = await db.all<{ status: string; type: string; sold: number; orders: number; cents: number }>(sql`
    SELECT o.payment_status AS status, l.value ->> 'name' AS type, sum(l.value ->> 'count') AS sold,
           count(DISTINCT o.id) AS orders, sum((l.value ->> 'count') * (l.value ->> 'unitCents')) AS cents
    FROM orders AS o, json_each(o.lines) AS l
    WHERE o.event_id IN (SELECT value FROM json_each(${ids})) AND (l.value ->> 'count') > 0
    GROUP BY 1, 2 ORDER BY 1, 2`);
  return totals.map((t) => ({
    payment_status: t.status,
    total_orders: t.orders,
    total_amount: centsToAmount(t.cents),
    total_tickets: t.tickets,
    tickets: lines.filter((l) => l.status === t.status).map((l) => ({ ticket_type: l.type, sold: l.sold, orders: l.orders, amount: centsToAmount(l.cents) })),
  }));
}

export async function recountScans(db: Db, eventIds: readonly number[]): Promise<ScanLine[]> {
  const valid = validTickets(eventIds);
  const scanned = await db.all<{ type: string; location: string; level: number; total: number }>(sql`
    SELECT t.ticket_type_name AS type, s.location AS location, s.level AS level, count(*) AS total
    FROM tickets AS t JOIN scans AS s ON s.ticket_id = t.id AND s.event_id = t.event_id
    WHERE ${valid} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
  const unscanned = await db.all<{ type: string; total: number }>(sql`
    SELECT t.ticket_type_name AS type, count(*) AS total FROM tickets AS t
    WHERE ${valid} AND NOT EXISTS (SELECT 1 FROM scans AS s WHERE s.ticket_id = t.id AND s.event_id = t.event_id)
    GROUP BY 1 ORDER BY 1`);
  const types = [...new Set([...scanned.map((s) => s.type), ...unscanned.map((u) => u.type)])].sort();
  return types.map((type) => ({
    ticket_type: type,
    scans: [
      { scan_location: "", scan_level: 0, scan_total: unscanned.find((u) => u.type === type)?.total ?? 0 },
      ...scanned.filter((s) => s.type === type).map((s) => ({ scan_location: s.location, scan_level: s.level, scan_total: s.total })),
    ],
  }));
}

/** `_embed=sales_totals`, counted again. */
export async function recountSalesTotals(db: Db, eventId: number) {
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

/** `_embed=scan_totals`, counted again. */
export async function recountScanTotals(db: Db, eventId: number) {
  const valid = validTickets([eventId]);
  const hasScans = sql`EXISTS (SELECT 1 FROM scans AS s WHERE s.ticket_id = t.id AND s.event_id = t.event_id)`;
  const tickets = await db.get<{ scanned: number; unscanned: number }>(sql`
    SELECT count(*) FILTER (WHERE ${hasScans}) AS scanned, count(*) FILTER (WHERE NOT ${hasScans}) AS unscanned
    FROM tickets AS t WHERE ${valid}`);
  const levels = await db.all<{ level: number; total: number }>(sql`
    SELECT s.level AS level, count(*) AS total
    FROM tickets AS t JOIN scans AS s ON s.ticket_id = t.id AND s.event_id = t.event_id
    WHERE ${valid} GROUP BY 1 ORDER BY 1`);
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

/**
 * The entrances per five minutes (`scan_admissions`, migration 0031; the console's live chart), counted again from
 * the scans, with the counter's own rows beside them: the five minutes that hold any, oldest first.
 */
export async function admissionsAndRecount(db: Db, eventId: number) {
  const counted = await db.all<{ start: number; admitted: number }>(sql`
    SELECT bucket_start AS start, admitted FROM scan_admissions WHERE event_id = ${eventId} AND admitted <> 0 ORDER BY 1`);
  const recounted = await db.all<{ start: number; admitted: number }>(sql`
    SELECT scanned_at - scanned_at % 300000 AS start, count(*) AS admitted FROM scans WHERE event_id = ${eventId} AND level = 0
    GROUP BY 1 ORDER BY 1`);
  return { counted, recounted };
}
