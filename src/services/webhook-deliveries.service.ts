import { and, eq, inArray, sql } from "drizzle-orm";
import { events, webhookDeliveries, webhooks } from "../db/schema";
import { log } from "../lib/log";
import { succeeded } from "../lib/outbound";
import { randomHex } from "../lib/random";
import type { WebhookDeliveryJob } from "../queues/messages";
import type { Deps } from "./deps";
import { writeLogStatement } from "./logs.service";
import { sendWebhook } from "./webhook-sender";

/** The topics of decisions.md section 8; any other is a 400. */
export const WEBHOOK_TOPICS = [
  "event.created",
  "event.updated",
  "event.deleted",
  "order.created",
  "order.updated",
  "order.deleted",
  "order.refunded",
  "scan.created",
  "tickets.downloaded",
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export const newDeliveryId = () => randomHex(32);

export interface TopicOccurrence {
  /** The event it concerns (0: none). `event.*` topics ignore the event's `webhooks_needed`. */
  eventId: number;
  /** The resource as the REST API shows it, without `_links` (deletes: `{id}`). */
  payload: unknown;
  /** The service's own address, for `X-EVT-Webhook-Source`. */
  source: string;
}

/**
 * The topics some enabled webhook listens to, kept per isolate for a few seconds so that busy paths (scans,
 * downloads) pay no D1 read when nobody listens. Changes made in this isolate clear it at once; a webhook enabled
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
 * The one function every module calls when a topic occurs: a delivery row per enabled webhook of the topic
 * (while the event has `webhooks_needed`, for topics about an event's orders, scans and downloads), then a queue
 * message each. Rows are written before the messages, so the sweep can re-send what a crash left unsent.
 */
export async function fireTopic(deps: Deps, topic: WebhookTopic, occurrence: TopicOccurrence): Promise<number> {
  const { db } = deps;
  if (!(await isListenedTo(deps, topic))) return 0;
  const hooks = await db.select({ id: webhooks.id }).from(webhooks).where(and(eq(webhooks.topic, topic), eq(webhooks.enabled, true)));
  if (hooks.length === 0) return 0;
  if (!topic.startsWith("event.") && occurrence.eventId !== 0) {
    const event = await db.select({ on: events.webhooksNeeded }).from(events).where(eq(events.id, occurrence.eventId)).get();
    if (!event?.on) return 0;
  }
  const now = deps.now();
  const body = JSON.stringify(occurrence.payload);
  const rows = hooks.map((h) => ({
    id: newDeliveryId(),
    webhookId: h.id,
    topic,
    eventId: occurrence.eventId,
    body,
    source: occurrence.source,
    createdAt: now,
    dueAt: now,
  }));
  await db.batch([
    db.insert(webhookDeliveries).values(rows),
    db.update(webhooks).set({ pending: sql`${webhooks.pending} + 1` }).where(inArray(webhooks.id, hooks.map((h) => h.id))),
  ]);
  await deps.jobs.sendAll(rows.map((r) => ({ v: 1, kind: "webhook.deliver", deliveryId: r.id, attempt: 1 })));
  return rows.length;
}

/** Fires without holding up the answer; a failure to fire is logged, never raised to the caller. */
export function fireTopicLater(deps: Deps, topic: WebhookTopic, occurrence: TopicOccurrence): void {
  deps.defer(() => fireTopic(deps, topic, occurrence));
}

/**
 * One attempt of one delivery (the queue consumer's work). The attempt is claimed in D1 first, so a message the
 * queue delivers twice is sent once. 2xx: delivered. Otherwise the next attempt is queued after the scheme's
 * minutes; after the last retry the delivery has failed, is logged, and past `failure_threshold` failures the
 * webhook is disabled.
 */
export async function attemptDelivery(deps: Deps, job: WebhookDeliveryJob): Promise<void> {
  const { db } = deps;
  const claimed = await db
    .update(webhookDeliveries)
    .set({ attempts: job.attempt })
    .where(and(eq(webhookDeliveries.id, job.deliveryId), eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.attempts, job.attempt - 1)))
    .returning()
    .get();
  if (!claimed) return; // already attempted (a duplicate message), finished, or dropped with its webhook
  const hook = await db.select().from(webhooks).where(eq(webhooks.id, claimed.webhookId)).get();
  if (!hook) return;
  const now = deps.now();
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
    const recorded = db.update(webhookDeliveries).set({ lastExchange: exchange, dueAt: now + minutes * 60 }).where(eq(webhookDeliveries.id, claimed.id));
    if (isRetry) await db.batch([recorded, db.update(webhooks).set(retryCounters).where(eq(webhooks.id, hook.id))]);
    else await recorded;
    await deps.jobs.send({ v: 1, kind: "webhook.deliver", deliveryId: claimed.id, attempt: job.attempt + 1 }, minutes * 60);
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

/** The sweep: deliveries left pending long past their due time (their queue message was lost) go again. */
export async function resendStalledDeliveries(deps: Deps, graceSeconds = 15 * 60): Promise<number> {
  const { db } = deps;
  const now = deps.now();
  const stalled = await db
    .select({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "pending"), sql`${webhookDeliveries.dueAt} < ${now - graceSeconds}`))
    .limit(500);
  if (stalled.length === 0) return 0;
  await db.update(webhookDeliveries).set({ dueAt: now }).where(inArray(webhookDeliveries.id, stalled.map((s) => s.id)));
  await deps.jobs.sendAll(stalled.map((s) => ({ v: 1, kind: "webhook.deliver", deliveryId: s.id, attempt: s.attempts + 1 })));
  return stalled.length;
}

/** The delivery log keeps the newest 100 finished deliveries per webhook. */
export async function pruneDeliveryLog({ db }: Deps): Promise<void> {
  await db.run(sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND id NOT IN (
    SELECT d.id FROM webhook_deliveries AS d WHERE d.webhook_id = webhook_deliveries.webhook_id ORDER BY d.created_at DESC, d.id DESC LIMIT 100)`);
}
