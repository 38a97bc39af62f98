import type { ScanResult } from "../domain/scan-rules";
import { buildJob, type QueuedJob } from "../platform/messages";
import type { PendingScan } from "./scan-ledger";

/**
 * The event object's scans on their way to D1, at least once. The alarm sends what is due as `scans.record`
 * messages; a scan counts as synced only when the consumer, its D1 batch committed, says so (`markRecorded`).
 * Until then it is sent again, so a lost message, or a consumer that died before writing, only delays it. D1's key
 * (event id, seq) makes a second copy harmless.
 */

/** Scans wait this long for others to join them on their way to D1: a busy door sends few, large messages. */
export const SCAN_FLUSH_MS = 1_000;
/** A queue message carries up to this many scans. */
const SCANS_PER_MESSAGE = 100;
/**
 * A sent scan not acknowledged after this is sent again. Well above the queue's usual delivery and write (about a
 * second), so a healthy pipeline sends each scan once. The delay doubles with each send, up to 16 times this, so a
 * consumer that cannot write (D1 down) or a queue that refuses is not flooded with copies while the outage lasts.
 */
export const SCAN_RESEND_MS = 30_000;
const RESEND_DOUBLINGS = 4;

/** Where the alarm sends `scans.record` messages: the jobs queue. */
export interface ScanQueue {
  send(job: QueuedJob): Promise<unknown>;
}

/** When an unacknowledged scan sent at `sent_at` for the `sends`th time is due again (SQL). */
const RESEND_AT = `sent_at + (${SCAN_RESEND_MS} << min(sends - 1, ${RESEND_DOUBLINGS}))`;

/** The unacknowledged scans due at `now`: never sent, or waiting past their resend delay; oldest first. */
function dueScans(sql: SqlStorage, now: number, limit: number): PendingScan[] {
  return sql
    .exec<{ seq: number; ticket_id: string; type_id: string; level: number; at: number; location: string; reloaded: number; result: string }>(
      `SELECT seq, ticket_id, type_id, level, at, location, reloaded, result FROM scans
       WHERE synced = 0 AND (sent_at IS NULL OR ${RESEND_AT} <= ?) ORDER BY seq LIMIT ?`,
      now,
      limit,
    )
    .toArray()
    .map((r) => {
      const result = JSON.parse(r.result) as ScanResult;
      return {
        seq: r.seq,
        ticketId: r.ticket_id,
        orderId: result.order_id,
        typeId: r.type_id,
        typeName: result.type,
        level: r.level,
        at: r.at,
        location: r.location,
        reloaded: r.reloaded === 1,
        result,
      };
    });
}

function markSent(sql: SqlStorage, seqs: readonly number[], now: number): void {
  sql.exec(`UPDATE scans SET sent_at = ?, sends = sends + 1 WHERE synced = 0 AND seq IN (SELECT value FROM json_each(?))`, now, JSON.stringify(seqs));
}

/**
 * Sends every scan due at `now` to `queue`, 100 a message. Each send is noted before it is made, so one that throws
 * (queue unavailable) counts as made: its scans go again after their resend delay, which backs off as the outage
 * lasts, rather than at every alarm.
 */
export async function sendDueScans(storage: DurableObjectStorage, queue: ScanQueue, eventId: number, now: number): Promise<void> {
  for (;;) {
    const due = dueScans(storage.sql, now, SCANS_PER_MESSAGE);
    if (due.length === 0) return;
    storage.transactionSync(() =>
      markSent(
        storage.sql,
        due.map((s) => s.seq),
        now,
      ),
    );
    // The job's schema reads a scan's result as any object; a copy of each gives it that type.
    await queue.send(buildJob("scans.record", { eventId, scans: due.map(({ result, ...scan }) => ({ ...scan, result: { ...result } })) }));
  }
}

/** D1 holds these scans (or a later reset superseded them): never sent again. Unknown or synced seqs are ignored. */
export function markRecorded(sql: SqlStorage, seqs: readonly number[]): number {
  return sql.exec(`UPDATE scans SET synced = 1 WHERE synced = 0 AND seq IN (SELECT value FROM json_each(?))`, JSON.stringify(seqs)).rowsWritten;
}

/** When the alarm must next send (a scan not yet sent: a flush from `now`), or null when D1 has every scan. */
export function nextSendAt(sql: SqlStorage, now: number): number | null {
  return sql.exec<{ at: number | null }>(`SELECT min(coalesce(${RESEND_AT}, ?)) AS at FROM scans WHERE synced = 0`, now + SCAN_FLUSH_MS).one().at;
}
