import { sql } from "drizzle-orm";
import { insertIf } from "../../db/client";
import { events, orders, scanReloads, scans } from "../../db/schema";
import { API_BASE } from "../../config";
import type { ScansRecordJob } from "../../platform/messages";
import type { Deps } from "../../platform/deps";
import { fireTopic } from "../messaging/webhook-deliveries.service";

/** The index of the order's first deduction at the event that still counts a unit. */
function firstCounted(eventId: number) {
  return sql`(SELECT min(key) FROM json_each(${orders.deductions}) WHERE value ->> 'eventId' = ${eventId} AND (value ->> 'eventUnits') > 0)`;
}

/**
 * The `scans.record` job: scans an event object decided, written to D1 in one batch and announced as
 * `scan.created`. At least once (the object sends a scan again until told it is here): a scan already written
 * (same event and seq) is skipped, and so is its announcement. A reset removes the ticket's earlier rows; a scan
 * older than a reset already written is not written (messages may arrive out of order). An exit that gave a unit
 * back lowers the event's `sold` and the order's counted units there once, as `scan_reloads` records: its row may
 * be gone by then, removed by a reset.
 */
export async function recordScans(deps: Deps, job: ScansRecordJob): Promise<number> {
  const { db } = deps;
  const { eventId } = job;
  const ordered = [...job.scans].sort((a, b) => a.seq - b.seq);
  const statements = ordered.flatMap((s) => {
    const notWritten = sql`NOT EXISTS (SELECT 1 FROM scans WHERE event_id = ${eventId} AND seq = ${s.seq})`;
    const notReset = sql`NOT EXISTS (SELECT 1 FROM scans WHERE event_id = ${eventId} AND ticket_id = ${s.ticketId} AND level = 6 AND seq > ${s.seq})`;
    const notReloaded = sql`NOT EXISTS (SELECT 1 FROM scan_reloads WHERE event_id = ${eventId} AND seq = ${s.seq})`;
    return [
      ...(s.level === 6 ? [db.delete(scans).where(sql`${scans.eventId} = ${eventId} AND ${scans.ticketId} = ${s.ticketId} AND ${scans.seq} < ${s.seq}`)] : []),
      ...(s.reloaded
        ? [
            db
              .update(events)
              .set({ sold: sql`max(0, ${events.sold} - 1)` })
              .where(sql`${events.id} = ${eventId} AND ${notReloaded}`),
            // The order holds one counted unit less here, as its hold in the object does: deleting the order or
            // rebuilding the object later counts what is left.
            db
              .update(orders)
              .set({
                deductions: sql`(SELECT json_group_array(json(CASE WHEN key = ${firstCounted(eventId)} THEN json_set(value, '$.eventUnits', (value ->> 'eventUnits') - 1) ELSE value END) ORDER BY key) FROM json_each(${orders.deductions}))`,
              })
              .where(sql`${orders.id} = ${s.orderId} AND ${notReloaded}`),
            db.insert(scanReloads).values({ eventId, seq: s.seq }).onConflictDoNothing(),
          ]
        : []),
      insertIf(
        db,
        scans,
        {
          eventId,
          seq: s.seq,
          ticketId: s.ticketId,
          orderId: s.orderId,
          ticketTypeId: s.typeId,
          ticketType: s.typeName,
          level: s.level,
          location: s.location,
          scannedAt: s.at,
          reloaded: s.reloaded,
        },
        sql`${notWritten} AND ${notReset}`,
      ).returning({ seq: scans.seq }),
    ];
  });
  const results = (await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]])) as unknown[];
  const written = new Set(results.flatMap((r) => (Array.isArray(r) ? (r as { seq?: number }[]).flatMap((x) => (x.seq === undefined ? [] : [x.seq])) : [])));
  const source = `${deps.origin}${API_BASE}`;
  for (const s of ordered) {
    if (written.has(s.seq)) await fireTopic(deps, "scan.created", { eventId, payload: { ...s.result, event_id: eventId }, source });
  }
  return written.size;
}
