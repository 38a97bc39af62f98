import { count as countRows, desc, eq, lt, type SQL } from "drizzle-orm";
import { inScope, insertIf } from "../../db/client";
import { logs, orders } from "../../db/schema";
import { forbidden, invalidId } from "../../domain/errors";
import { assertEventAccess, eventScope, isAdministrator, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";

type LogRow = typeof logs.$inferSelect;

export interface NewLogEntry {
  eventId?: number;
  orderId?: number;
  logType: string;
  description: string;
}

/** Failures of payment, delivery and background work are recorded here and listed by `/admin/logs`. */
export async function writeLog(deps: Deps, entry: NewLogEntry): Promise<void> {
  await writeLogStatement(deps, entry);
}

/**
 * The same entry as a statement, for a caller's batch (so it is written with the change it reports, or not at
 * all), and only while `onlyIf` holds when given.
 */
export function writeLogStatement({ db, now }: Deps, entry: NewLogEntry, onlyIf?: SQL) {
  const values = {
    eventId: entry.eventId ?? 0,
    orderId: entry.orderId ?? 0,
    logType: entry.logType,
    description: entry.description,
    createdAt: now(),
  };
  return onlyIf ? insertIf(db, logs, values, onlyIf) : db.insert(logs).values(values);
}

/** Retention: entries older than LOG_RETENTION_DAYS go. Returns how many were deleted. */
export async function purgeExpiredLogs({ db, config, now }: Deps): Promise<number> {
  const cutoff = now() - config.logRetentionDays * 86_400;
  const removed = await db.delete(logs).where(lt(logs.createdAt, cutoff)).returning({ id: logs.id });
  return removed.length;
}

/** `GET /admin/logs` answers at most this many rows, the newest first. */
const LOG_LIST_LIMIT = 1000;

/** Organizers see the entries of their authorised events; entries of no event are for administrators. */
function scopeOf(user: AuthUser): SQL | undefined {
  return inScope(logs.eventId, eventScope(user));
}

export function listLogs(deps: Deps, user: AuthUser): Promise<{ rows: LogRow[]; total: number }> {
  return newestLogs(deps, scopeOf(user));
}

/** Every entry of an order the user may see (even one written without its event id). */
export async function listOrderLogs(deps: Deps, user: AuthUser, orderId: number): Promise<{ rows: LogRow[]; total: number }> {
  await assertOrderVisible(deps, user, orderId);
  return newestLogs(deps, eq(logs.orderId, orderId));
}

async function newestLogs({ db }: Deps, where: SQL | undefined): Promise<{ rows: LogRow[]; total: number }> {
  const [rows, totals] = await db.batch([
    db.select().from(logs).where(where).orderBy(desc(logs.createdAt), desc(logs.id)).limit(LOG_LIST_LIMIT),
    db.select({ n: countRows() }).from(logs).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** The order the log entries belong to must exist and be the user's to see. */
async function assertOrderVisible({ db }: Deps, user: AuthUser, orderId: number): Promise<void> {
  const order = await db.select({ eventId: orders.eventId }).from(orders).where(eq(orders.id, orderId)).get();
  if (!order) throw invalidId("order");
  assertEventAccess(user, [order.eventId]);
}

export async function getLogFor({ db }: Deps, user: AuthUser, id: number): Promise<LogRow> {
  const entry = await db.select().from(logs).where(eq(logs.id, id)).get();
  if (!entry) throw invalidId("log");
  if (entry.eventId === 0 && !isAdministrator(user)) throw forbidden();
  if (entry.eventId !== 0) assertEventAccess(user, [entry.eventId]);
  return entry;
}

export async function deleteLog({ db }: Deps, entry: LogRow): Promise<void> {
  await db.delete(logs).where(eq(logs.id, entry.id));
}
