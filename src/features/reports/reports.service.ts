import { and, asc, sql } from "drizzle-orm";
import { inIds } from "../../db/client";
import { validTickets } from "../../db/valid-tickets";
import { events } from "../../db/schema";
import { centsToAmount } from "../../lib/money";
import { eventScope, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";
import { inGroup } from "../catalogue/event-groups";
import type { EventRow } from "../../db/rows";

/**
 * Sales and scan reports (spec "Sales and scan reports"), aggregated in D1 (the objects are never asked). Sales
 * count orders by the event they were placed for, per payment status, with `amount` per type at list price and
 * `total_amount` what was charged; scans count the tickets valid at the event (a passe-partout's child tickets
 * count at the child), per type name as the ticket shows it (without seat), location and level, with a row of
 * location "" for the tickets of live orders not scanned yet.
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
  const ids = JSON.stringify(eventIds);
  const [totals, lines] = await Promise.all([
    db.all<{ status: string; orders: number; cents: number; tickets: number }>(sql`
      SELECT payment_status AS status, count(*) AS orders, sum(total_cents) AS cents, sum(num_tickets) AS tickets
      FROM orders WHERE event_id IN (SELECT value FROM json_each(${ids}))
      GROUP BY payment_status ORDER BY payment_status`),
    db.all<{ status: string; type: string; sold: number; orders: number; cents: number }>(sql`
      SELECT o.payment_status AS status, l.value ->> 'name' AS type, sum(l.value ->> 'count') AS sold,
             count(DISTINCT o.id) AS orders, sum((l.value ->> 'count') * (l.value ->> 'unitCents')) AS cents
      FROM orders AS o, json_each(o.lines) AS l
      WHERE o.event_id IN (SELECT value FROM json_each(${ids})) AND (l.value ->> 'count') > 0
      GROUP BY 1, 2 ORDER BY 1, 2`),
  ]);
  return totals.map((t) => ({
    payment_status: t.status,
    total_orders: t.orders,
    total_amount: centsToAmount(t.cents),
    total_tickets: t.tickets,
    tickets: lines.filter((l) => l.status === t.status).map((l) => ({ ticket_type: l.type, sold: l.sold, orders: l.orders, amount: centsToAmount(l.cents) })),
  }));
}

/**
 * In the per-ticket NOT EXISTS, `+s.event_id` keeps SQLite from looking scans up by the primary key's event_id (every
 * scan of the event, for each ticket: tickets x scans) instead of by `scans_ticket` (bench/growth.mjs: 13.5 s for 50k
 * tickets with 4k scans, then milliseconds).
 */
export async function scansReport({ db }: Deps, eventIds: readonly number[]): Promise<ScanLine[]> {
  const valid = validTickets(eventIds);
  const [scanned, unscanned] = await Promise.all([
    db.all<{ type: string; location: string; level: number; total: number }>(sql`
      SELECT t.ticket_type_name AS type, s.location AS location, s.level AS level, count(*) AS total
      FROM tickets AS t JOIN scans AS s ON s.ticket_id = t.id AND s.event_id = t.event_id
      WHERE ${valid} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    db.all<{ type: string; total: number }>(sql`
      SELECT t.ticket_type_name AS type, count(*) AS total FROM tickets AS t
      WHERE ${valid} AND NOT EXISTS (SELECT 1 FROM scans AS s WHERE s.ticket_id = t.id AND +s.event_id = t.event_id)
      GROUP BY 1 ORDER BY 1`),
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
