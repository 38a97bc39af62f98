import { lt } from "drizzle-orm";
import { logs } from "../db/schema";
import type { Deps } from "./deps";

export interface NewLogEntry {
  eventId?: number;
  orderId?: number;
  logType: string;
  description: string;
}

/** Failures of payment, delivery and background work are recorded here and listed by `/admin/logs`. */
export async function writeLog({ db, now }: Deps, entry: NewLogEntry): Promise<void> {
  await db.insert(logs).values({
    eventId: entry.eventId ?? 0,
    orderId: entry.orderId ?? 0,
    logType: entry.logType,
    description: entry.description,
    createdAt: now(),
  });
}

/** Retention: entries older than LOG_RETENTION_DAYS go. Returns how many were deleted. */
export async function purgeExpiredLogs({ db, config, now }: Deps): Promise<number> {
  const cutoff = now() - config.logRetentionDays * 86_400;
  const removed = await db.delete(logs).where(lt(logs.createdAt, cutoff)).returning({ id: logs.id });
  return removed.length;
}
