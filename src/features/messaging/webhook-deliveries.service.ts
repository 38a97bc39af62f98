import { and, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import { insertFrom } from "../../db/client";
import { events, webhookDeliveries, webhooks } from "../../db/schema";
import { log } from "../../lib/log";
import { succeeded } from "../../lib/outbound";
import { randomHex } from "../../lib/random";
import { LOST_MESSAGE_S } from "../../platform/job-queue";
import { buildJob, type WebhookDeliveryJob } from "../../platform/messages";
import type { Deps } from "../../platform/deps";
import { writeLogStatement } from "../logs/logs.service";
import { sendWebhook } from "./webhook-sender";
import type { WebhookTopic } from "../../domain/webhook-topics";

export const newDeliveryId = () => randomHex(32);

export interface TopicOccurrence {
  /** The event it concerns (0: none). `event.*` topics ignore the event's `webhooks_needed`. */
  eventId: number;
  /** The resource as the REST API shows it, without `_links` (deletes: `{id}`). */
  payload: unknown;
  /** The service's own address, for `X-EVT-Webhook-Source`. */
  source: string;
}

/** A topic's occurrence as it is written: the body as JSON text, or as SQL giving it inside the caller's batch. */
export interface TopicRecord {
  eventId: number;
  body: string | SQL;
  source: string;
}

/**
 * The topics some enabled webhook listens to, kept per isolate for a few seconds so that busy paths (orders, scans,
 * downloads) pay nothing when nobody listens. Changes made in this isolate clear it at once; a webhook enabled
 * through another isolate is noticed within TOPICS_TTL_MS.
 */
const TOPICS_TTL_MS = 10_000;
let listened: { topics: ReadonlySet<string>; until: number } | null = null;

export function forgetListenedTopics(): void {
  listened = null;
}

export async function isListenedTo({ db }: Deps, topic: WebhookTopic): Promise<boolean> {
  if (!listened || listened.until <= Date.now()) {
    const rows = await db.selectDistinct({ topic: webhooks.topic }).from(webhooks).where(eq(webhooks.enabled, true));
    listened = { topics: new Set(rows.map((r) => r.topic)), until: Date.now() + TOPICS_TTL_MS };
  }
  return listened.topics.has(topic);
}

/**
 * A topic's deliveries as statements for the caller's batch, so they commit with the change they report or not at
 * all: one pending row per enabled webhook of the topic (while the event has `webhooks_needed`, for topics about
 * an event's orders, scans and downloads), and `pending` raised on those webhooks. Both pick the same webhooks, the
 * batch being atomic; `onlyIf` guards both. The delivery id is made in SQL (32 hex, as newDeliveryId), since which
 * webhooks listen is known only there; the insert returns it as `deliveryId` (see writtenDeliveries).
 */
export function deliveryStatements(deps: Deps, topic: WebhookTopic, record: TopicRecord, onlyIf?: SQL) {
  const { db } = deps;
  const now = deps.now();
  const wanted =
    topic.startsWith("event.") || record.eventId === 0
      ? undefined
      : sql`EXISTS (SELECT 1 FROM ${events} WHERE ${events.id} = ${record.eventId} AND ${events.webhooksNeeded} = 1)`;
  const listening = and(eq(webhooks.topic, topic), eq(webhooks.enabled, true), wanted, onlyIf);
  const row = {
    id: sql`lower(hex(randomblob(16)))`,
    webhookId: webhooks.id,
    topic,
    eventId: record.eventId,
    body: record.body,
    source: record.source,
    createdAt: now,
    dueAt: now,
  };
  return [
    insertFrom(db, webhookDeliveries, row, sql`${webhooks}`, listening).returning({ deliveryId: webhookDeliveries.id }),
    db
      .update(webhooks)
      .set({ pending: sql`${webhooks.pending} + 1` })
      .where(listening),
  ] as const;
}

/**
 * The ids of the deliveries a batch wrote, read from its results: only the insert of deliveryStatements returns
 * rows with a `deliveryId`, so callers need not track where in their batch it stands.
 */
export function writtenDeliveries(results: readonly unknown[]): string[] {
  return results.flatMap((r) => (Array.isArray(r) ? r : [])).flatMap((row: { deliveryId?: unknown }) => (typeof row?.deliveryId === "string" ? [row.deliveryId] : []));
}

/**
 * After the batch: attempt 1 of each delivery. Only speeds things up: a message lost here (a crash, a failed send)
 * leaves a pending row the sweep re-sends.
 */
export async function enqueueDeliveries(deps: Deps, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length > 0) await deps.jobs.sendAll(deliveryIds.map((deliveryId) => buildJob("webhook.deliver", { deliveryId, attempt: 1 })));
}

/**
 * Fires a topic on its own, where no batch of the change is at hand (events, scans, downloads): the delivery rows in
 * one batch, then the queue messages. A crash before the rows are written loses the notification.
 */
export async function fireTopic(deps: Deps, topic: WebhookTopic, occurrence: TopicOccurrence): Promise<number> {
  if (!(await isListenedTo(deps, topic))) return 0;
  const [insert, bump] = deliveryStatements(deps, topic, { eventId: occurrence.eventId, body: JSON.stringify(occurrence.payload), source: occurrence.source });
  const [written] = await deps.db.batch([insert, bump]);
  await enqueueDeliveries(
    deps,
    written.map((w) => w.deliveryId),
  );
  return written.length;
}

/** Fires without holding up the answer; a failure to fire is logged, never raised to the caller. */
export function fireTopicLater(deps: Deps, topic: WebhookTopic, occurrence: TopicOccurrence): void {
  deps.defer(() => fireTopic(deps, topic, occurrence));
}

/**
 * One attempt of one delivery (the queue consumer's work). The attempt is claimed in D1 first, so a message the
 * queue delivers twice (or the sweep sent again) is sent once; the claim also moves `due_at` to now, so the sweep
 * leaves an attempt in flight alone (it ends within the 10 s timeout, well inside LOST_MESSAGE_S). 2xx: delivered.
 * Otherwise the next attempt is queued after the scheme's minutes; after the last retry the delivery has failed,
 * is logged, and past `failure_threshold` failures the webhook is disabled.
 */
export async function attemptDelivery(deps: Deps, job: WebhookDeliveryJob): Promise<void> {
  const { db } = deps;
  const now = deps.now();
  const claimed = await db
    .update(webhookDeliveries)
    .set({ attempts: job.attempt, dueAt: now })
    .where(and(eq(webhookDeliveries.id, job.deliveryId), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, job.attempt - 1)))
    .returning()
    .get();
  if (!claimed) return; // already attempted (a duplicate message), finished, or dropped with its webhook
  const hook = await db.select().from(webhooks).where(eq(webhooks.id, claimed.webhookId)).get();
  if (!hook) return;
  const isRetry = job.attempt > 1;
  const exchange = await sendWebhook(deps, hook, { deliveryId: claimed.id, topic: claimed.topic, body: claimed.body, source: claimed.source });
  const retryCounters = isRetry ? { retries: sql`${webhooks.retries} + 1`, lastRetry: now } : {};

  if (succeeded(exchange)) {
    await db.batch([
      db.update(webhookDeliveries).set({ status: "delivered", lastExchange: exchange, finishedAt: now }).where(eq(webhookDeliveries.id, claimed.id)),
      db
        .update(webhooks)
        .set({ delivered: sql`${webhooks.delivered} + 1`, pending: sql`max(${webhooks.pending} - 1, 0)`, lastSuccess: now, ...retryCounters })
        .where(eq(webhooks.id, hook.id)),
    ]);
    return;
  }
  const minutes = hook.retryScheme[job.attempt - 1];
  if (minutes !== undefined) {
    const recorded = db
      .update(webhookDeliveries)
      .set({ lastExchange: exchange, dueAt: now + minutes * 60 })
      .where(eq(webhookDeliveries.id, claimed.id));
    if (isRetry) await db.batch([recorded, db.update(webhooks).set(retryCounters).where(eq(webhooks.id, hook.id))]);
    else await recorded;
    await deps.jobs.send(buildJob("webhook.deliver", { deliveryId: claimed.id, attempt: job.attempt + 1 }), minutes * 60);
    return;
  }
  const outcome = exchange.response ? `HTTP ${exchange.response.code}` : (exchange.error ?? "no answer");
  await db.batch([
    db.update(webhookDeliveries).set({ status: "failed", lastExchange: exchange, finishedAt: now }).where(eq(webhookDeliveries.id, claimed.id)),
    db
      .update(webhooks)
      .set({
        failed: sql`${webhooks.failed} + 1`,
        pending: sql`max(${webhooks.pending} - 1, 0)`,
        lastFailure: now,
        ...retryCounters,
        // Past the threshold the webhook is switched off (0 never switches it off).
        enabled: sql`CASE WHEN ${webhooks.failureThreshold} > 0 AND ${webhooks.failed} + 1 >= ${webhooks.failureThreshold} THEN 0 ELSE ${webhooks.enabled} END`,
      })
      .where(eq(webhooks.id, hook.id)),
    writeLogStatement(deps, {
      eventId: claimed.eventId,
      logType: "Webhook",
      description: `Webhook ${hook.id} delivery ${claimed.id} (${claimed.topic}) failed after ${job.attempt} attempt(s): ${outcome}`,
    }),
  ]);
  log("warn", "webhook delivery failed", { webhook_id: hook.id, delivery_id: claimed.id, attempts: job.attempt });
}

/**
 * The sweep: pending deliveries whose next attempt was due more than LOST_MESSAGE_S ago lost their queue message
 * (or it is late): that attempt is sent again, with the same delivery id. Choosing the rows and moving their
 * `due_at` is one statement, so overlapping sweeps do not both pick a row; and since the consumer claims by attempt
 * number, a late original and its re-send make one attempt between them.
 */
export async function resendStalledDeliveries(deps: Deps): Promise<number> {
  const { db } = deps;
  const now = deps.now();
  const stalled = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "pending"), lt(webhookDeliveries.dueAt, now - LOST_MESSAGE_S)))
    .limit(500);
  const resent = await db
    .update(webhookDeliveries)
    .set({ dueAt: now })
    .where(inArray(webhookDeliveries.id, stalled))
    .returning({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts });
  if (resent.length > 0) await deps.jobs.sendAll(resent.map((s) => buildJob("webhook.deliver", { deliveryId: s.id, attempt: s.attempts + 1 })));
  return resent.length;
}

/** The delivery log keeps the newest 100 finished deliveries per webhook. */
export async function pruneDeliveryLog({ db }: Deps): Promise<void> {
  await db.run(sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND id NOT IN (
    SELECT d.id FROM webhook_deliveries AS d WHERE d.webhook_id = webhook_deliveries.webhook_id ORDER BY d.created_at DESC, d.id DESC LIMIT 100)`);
}
