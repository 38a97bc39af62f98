import { and, asc, count as countRows, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import { inIds, insertIf } from "../../db/client";
import { emails } from "../../db/schema";
import { pageWindow } from "../../domain/paging";
import { LOST_MESSAGE_S } from "../../platform/job-queue";
import { buildJob, type EmailJob } from "../../platform/messages";
import type { Deps } from "../../platform/deps";
import { emailProvider } from "./email-providers";
import { writeLogStatement } from "../logs/logs.service";
import type { EmailRow } from "../../db/rows";

/** Minutes before each retry of a failed send; after the last, the email has failed and is logged. */
export const EMAIL_RETRY_MINUTES = [1, 5, 15, 60];

/** An outbox row before it is written: who gets what, from whom, for which event, and when it is due. */
export interface OutboxEmail {
  to: string;
  bcc: string;
  fromName: string;
  fromEmail: string;
  subject: string;
  body: string;
  eventId: number;
  createdAt: number;
  dueAt: number;
}

/**
 * An outbox row as a statement for the caller's batch (written with the change it reports, or not at all), and
 * only while `onlyIf` holds when given.
 */
export function outboxStatement(deps: Deps, row: OutboxEmail, orderId: number | SQL, onlyIf?: SQL) {
  const { db } = deps;
  if (!onlyIf)
    return db
      .insert(emails)
      .values({ ...row, orderId })
      .returning({ id: emails.id });
  return insertIf(db, emails, { ...row, orderId: orderId as number }, onlyIf).returning({ id: emails.id });
}

/** After the batch: one queue message per new outbox row. */
export async function enqueueEmails(deps: Deps, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await deps.jobs.sendAll(ids.map((emailId) => buildJob("email.send", { emailId, attempt: 1 })));
}

/**
 * The provider's idempotency key of an outbox row: every attempt of the row sends the same key, so a send the
 * provider took but we never recorded (a crash, a timeout) is not sent again. The creation time keeps the key
 * apart from a row of the same id in a database recreated within the provider's window (24 h at Resend).
 */
function emailIdempotencyKey(row: Pick<EmailRow, "id" | "createdAt">): string {
  return `outbox-email/${row.id}-${row.createdAt}`;
}

/**
 * One attempt to send one outbox row (the queue consumer's work), claimed in D1 first so a message delivered twice
 * (or sent again by the sweep) sends once; the claim moves `due_at` to now, so the sweep leaves an attempt in flight
 * alone. A retryable failure is tried again after the next delay; the last failure is logged.
 */
export async function sendQueuedEmail(deps: Deps, job: EmailJob): Promise<void> {
  const { db } = deps;
  const claimed = await db
    .update(emails)
    .set({ attempts: job.attempt, dueAt: deps.now() })
    .where(and(eq(emails.id, job.emailId), eq(emails.status, "queued"), eq(emails.attempts, job.attempt - 1)))
    .returning()
    .get();
  if (!claimed) return;
  const result = await emailProvider(deps.config).send({ ...claimed, html: claimed.body, idempotencyKey: emailIdempotencyKey(claimed) });
  const now = deps.now();
  if (result.ok) {
    await db.update(emails).set({ status: "sent", sentAt: now, lastError: "" }).where(eq(emails.id, claimed.id));
    return;
  }
  const minutes = EMAIL_RETRY_MINUTES[job.attempt - 1];
  if (result.retryable && minutes !== undefined) {
    await db
      .update(emails)
      .set({ lastError: result.error, dueAt: now + minutes * 60 })
      .where(eq(emails.id, claimed.id));
    await deps.jobs.send(buildJob("email.send", { emailId: claimed.id, attempt: job.attempt + 1 }), minutes * 60);
    return;
  }
  await db.batch([
    db.update(emails).set({ status: "failed", lastError: result.error }).where(eq(emails.id, claimed.id)),
    writeLogStatement(deps, {
      eventId: claimed.eventId,
      orderId: claimed.orderId,
      logType: "Email",
      description: `Email ${claimed.id} to ${claimed.to} failed after ${job.attempt} attempt(s): ${result.error}`,
    }),
  ]);
}

/**
 * The sweep: queued emails whose next attempt was due more than LOST_MESSAGE_S ago lost their queue message (or it
 * is late): that attempt is sent again. As for webhook deliveries, picking the rows is one statement, and the claim
 * by attempt number lets a late original and its re-send make one attempt between them.
 */
export async function resendStalledEmails(deps: Deps): Promise<number> {
  const now = deps.now();
  const stalled = deps.db
    .select({ id: emails.id })
    .from(emails)
    .where(and(eq(emails.status, "queued"), lt(emails.dueAt, now - LOST_MESSAGE_S)))
    .limit(500);
  const resent = await deps.db.update(emails).set({ dueAt: now }).where(inArray(emails.id, stalled)).returning({ id: emails.id, attempts: emails.attempts });
  if (resent.length > 0) await deps.jobs.sendAll(resent.map((s) => buildJob("email.send", { emailId: s.id, attempt: s.attempts + 1 })));
  return resent.length;
}

export interface ListEmailsQuery {
  per_page: number;
  page: number;
  offset?: number | undefined;
  search?: string | undefined;
  include?: number[] | undefined;
  exclude?: number[] | undefined;
  event_id?: number[] | undefined;
  order_id?: number[] | undefined;
  orderby: "id" | "event_id" | "order_id" | "to";
  order: "asc" | "desc";
}

/** `GET /admin/emails`: the outbox, paged like orders. */
export async function listEmails({ db }: Deps, q: ListEmailsQuery): Promise<{ rows: EmailRow[]; total: number }> {
  const conditions: SQL[] = [];
  if (q.event_id) conditions.push(inIds(emails.eventId, q.event_id));
  if (q.order_id) conditions.push(inIds(emails.orderId, q.order_id));
  if (q.search) conditions.push(sql`instr(lower(${emails.to}), ${q.search.toLowerCase()}) > 0`);
  if (q.include) conditions.push(inIds(emails.id, q.include));
  if (q.exclude) conditions.push(sql`NOT ${inIds(emails.id, q.exclude)}`);
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const column = { id: emails.id, event_id: emails.eventId, order_id: emails.orderId, to: emails.to }[q.orderby];
  const direction = q.order === "desc" ? desc : asc;
  const { limit, offset } = pageWindow(q);
  const [rows, totals] = await db.batch([
    db.select().from(emails).where(where).orderBy(direction(column), direction(emails.id)).limit(limit).offset(offset),
    db.select({ n: countRows() }).from(emails).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}
