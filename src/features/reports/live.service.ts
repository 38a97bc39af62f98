import { and, asc, eq, gte, lte, sql, type AnyColumn } from "drizzle-orm";
import { FINAL_STATUSES } from "../../db/order-status";
import { salesCounts, salesTypeCounts, scanAdmissions, scanCounts } from "../../db/schema";
import { centsToAmount } from "../../lib/money";
import { formatDateTime } from "../../lib/time";
import type { Deps } from "../../platform/deps";

/**
 * An event's live numbers for the console (decisions.md 15 "The organiser console": sales and check-ins as they
 * happen, per ticket type, per location, admitted per five minutes), read ONLY from the counters D1 keeps as rows
 * change (migrations 0023 and 0031), so a call every few seconds costs a few rows however large the event is.
 * Scans reach D1 a second or two after their answer (docs/scanning.md "Persistence").
 */

/** Five minutes, the chart's step, in the milliseconds of `scans.scanned_at`. */
const BUCKET_MS = 5 * 60 * 1000;
/** The chart shows the last three hours: 36 buckets, the current one last. */
const BUCKETS = 36;

const LEVEL = { entrance: 0, leave: 7, reenter: 8, exit: 9 } as const;

const sum = (column: AnyColumn) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number);
/** Sold means an order in a final status (src/db/order-status.ts), the statuses the sales report lists as such. */
const finalStatus = (column: AnyColumn) => sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(FINAL_STATUSES)}))`;

export async function liveNumbers(deps: Deps, eventId: number, now = Date.now()) {
  const { db, config } = deps;
  const current = now - (now % BUCKET_MS);
  const first = current - (BUCKETS - 1) * BUCKET_MS;
  const [types, totals, scans, buckets] = await Promise.all([
    db
      .select({ type: salesTypeCounts.ticketType, sold: sum(salesTypeCounts.sold), cents: sum(salesTypeCounts.cents) })
      .from(salesTypeCounts)
      .where(and(eq(salesTypeCounts.eventId, eventId), finalStatus(salesTypeCounts.paymentStatus)))
      .groupBy(salesTypeCounts.ticketType)
      .having(sql`sum(${salesTypeCounts.orders}) > 0`)
      .orderBy(asc(salesTypeCounts.ticketType)),
    db
      .select({
        orders: sum(salesCounts.orders),
        tickets: sum(salesCounts.tickets),
        cents: sum(salesCounts.cents),
        awaiting: sql<number>`coalesce(sum(${salesCounts.orders}) FILTER (WHERE ${salesCounts.awaitsConfirmation} = 1), 0)`.mapWith(Number),
      })
      .from(salesCounts)
      .where(and(eq(salesCounts.eventId, eventId), finalStatus(salesCounts.paymentStatus)))
      .get(),
    db
      .select({ location: scanCounts.location, level: scanCounts.level, scans: sum(scanCounts.scans) })
      .from(scanCounts)
      .where(and(eq(scanCounts.eventId, eventId), sql`${scanCounts.level} IN (0, 7, 8, 9)`))
      .groupBy(scanCounts.location, scanCounts.level)
      .having(sql`sum(${scanCounts.scans}) > 0`)
      .orderBy(asc(scanCounts.location)),
    db
      .select({ start: scanAdmissions.bucketStart, admitted: scanAdmissions.admitted })
      .from(scanAdmissions)
      .where(and(eq(scanAdmissions.eventId, eventId), gte(scanAdmissions.bucketStart, first), lte(scanAdmissions.bucketStart, current))),
  ]);
  const atLevel = (level: number) => scans.filter((s) => s.level === level).reduce((n, s) => n + s.scans, 0);
  const entered = atLevel(LEVEL.entrance);
  const left = atLevel(LEVEL.leave);
  const exited = atLevel(LEVEL.exit);
  // Inside now only means something where people are scanned out (docs/scanning.md "Levels"): entered, minus those
  // away for a while (7) and back (8), minus those who left (9). A ticket scanned out at an exit while away counts
  // out twice, so the number is kept at 0 or more.
  const inside = left + exited > 0 ? Math.max(0, entered - left + atLevel(LEVEL.reenter) - exited) : null;
  const perBucket = new Map(buckets.map((b) => [b.start, b.admitted]));
  return {
    currency: config.currency,
    sales: {
      ticket_types: types.map((t) => ({ ticket_type: t.type, sold: t.sold, amount: centsToAmount(t.cents) })),
      total_orders: totals?.orders ?? 0,
      total_tickets: totals?.tickets ?? 0,
      total_amount: centsToAmount(totals?.cents ?? 0),
      awaiting_confirmation: totals?.awaiting ?? 0,
    },
    check_ins: {
      locations: scans.filter((s) => s.level === LEVEL.entrance).map((s) => ({ location: s.location, admitted: s.scans })),
      admitted: entered,
      inside,
    },
    admissions: Array.from({ length: BUCKETS }, (_, i) => {
      const start = first + i * BUCKET_MS;
      return { start: formatDateTime(Math.floor(start / 1000), config.timezone), admitted: perBucket.get(start) ?? 0 };
    }),
  };
}
