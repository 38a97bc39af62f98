import { count as countRows, eq, sql } from "drizzle-orm";
import { inScope, insertFrom } from "../../db/client";
import { emailListEntries } from "../../db/schema";
import { invalidId, invalidParams } from "../../domain/errors";
import { eventScope, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";
import { EmailListError, parseEmailList, type EmailListEntry } from "../../domain/email-list-csv";

export interface EmailListSummary {
  eventId: number;
  total: number;
}

/** Rows per statement: each chunk travels as one JSON parameter, well inside D1's limits on a bound value. */
const CHUNK = 5000;

export async function listEmailLists({ db }: Deps, user: AuthUser): Promise<EmailListSummary[]> {
  const scope = eventScope(user);
  const rows = await db
    .select({ eventId: emailListEntries.eventId, total: countRows() })
    .from(emailListEntries)
    .where(inScope(emailListEntries.eventId, scope))
    .groupBy(emailListEntries.eventId)
    .orderBy(emailListEntries.eventId);
  return rows;
}

async function totalOf({ db }: Deps, eventId: number): Promise<number> {
  const row = await db.select({ n: countRows() }).from(emailListEntries).where(eq(emailListEntries.eventId, eventId)).get();
  return row?.n ?? 0;
}

/** The event's list; an event without one answers `404 rest_emaillist_invalid_id`. */
export async function getEmailList(deps: Deps, eventId: number): Promise<EmailListSummary> {
  const total = await totalOf(deps, eventId);
  if (total === 0) throw invalidId("emaillist");
  return { eventId, total };
}

function upsertChunk(deps: Deps, eventId: number, entries: EmailListEntry[]) {
  const { db } = deps;
  const json = JSON.stringify(entries.map((e) => [e.emailKey, e.email, e.name, e.maxTickets]));
  const rows = insertFrom(
    db,
    emailListEntries,
    { eventId, emailKey: sql`value ->> 0`, email: sql`value ->> 1`, name: sql`value ->> 2`, maxTickets: sql`value ->> 3` },
    sql`json_each(${json})`,
    sql`true`, // SQLite needs a WHERE before an upsert's ON CONFLICT when rows come from a SELECT
  );
  // A repeated address keeps its entry (and id) and takes the new row's name and cap.
  return rows.onConflictDoUpdate({
    target: [emailListEntries.eventId, emailListEntries.emailKey],
    set: { email: sql`excluded.email`, name: sql`excluded.name`, maxTickets: sql`excluded.max_tickets` },
  });
}

/**
 * Reads a CSV upload into the event's list, merging into an existing one, in one atomic batch. The upload itself
 * is kept in R2 beside the list. Answers whether the list is new and its size.
 */
export async function uploadEmailList(deps: Deps, eventId: number, file: File): Promise<{ created: boolean; total: number }> {
  const bytes = await file.arrayBuffer();
  const text = new TextDecoder().decode(bytes);
  let entries: EmailListEntry[];
  try {
    entries = parseEmailList(text);
  } catch (err) {
    if (err instanceof EmailListError) throw invalidParams({ file: err.message });
    throw err;
  }
  const upserts = [];
  for (let i = 0; i < entries.length; i += CHUNK) upserts.push(upsertChunk(deps, eventId, entries.slice(i, i + CHUNK)));
  // Whether the list is new is read inside the same transaction, so of two first uploads only one is "new".
  const [before] = await deps.db.batch([deps.db.select({ n: countRows() }).from(emailListEntries).where(eq(emailListEntries.eventId, eventId)), ...upserts]);
  const existed = (before[0]?.n ?? 0) > 0;
  await deps.files.put(`emaillists/${eventId}/${deps.now()}-${crypto.randomUUID()}.csv`, bytes, "text/csv");
  return { created: !existed, total: await totalOf(deps, eventId) };
}

export async function deleteEmailList(deps: Deps, eventId: number): Promise<void> {
  await getEmailList(deps, eventId);
  await deps.db.delete(emailListEntries).where(eq(emailListEntries.eventId, eventId));
  await deps.files.delete(await deps.files.list(`emaillists/${eventId}/`));
}
