import { and, asc, count as countRows, desc, eq, sql } from "drizzle-orm";
import { webhookDeliveries, webhooks } from "../../db/schema";
import { invalidId, invalidParams } from "../../domain/errors";
import { outboundUrlProblem } from "../../lib/outbound-url";
import { DEFAULT_FAILURE_THRESHOLD, DEFAULT_RETRY_SCHEME, type WebhookInput } from "./webhooks.schema";
import type { Deps } from "../../platform/deps";
import { buildJob } from "../../platform/messages";
import { writeLogStatement } from "../logs/logs.service";
import { forgetListenedTopics, newDeliveryId } from "./webhook-deliveries.service";
import { sendWebhook } from "./webhook-sender";
import type { RecordedExchange } from "../../db/schema";
import type { DeliveryRow, WebhookRow } from "../../db/rows";

export function listWebhooks({ db }: Deps): Promise<WebhookRow[]> {
  return db.select().from(webhooks).orderBy(asc(webhooks.id));
}

export async function getWebhook({ db }: Deps, id: number): Promise<WebhookRow> {
  const row = await db.select().from(webhooks).where(eq(webhooks.id, id)).get();
  if (!row) throw invalidId("webhook");
  return row;
}

function checkUrl(deps: Deps, url: string | undefined): void {
  if (url === undefined) return;
  const problem = outboundUrlProblem(url, deps.config.allowHttpOutbound);
  if (problem) throw invalidParams({ url: problem });
}

/** Created disabled, with counters at 0 and the default retry scheme and threshold unless given. */
export async function createWebhook(deps: Deps, input: WebhookInput & Pick<WebhookRow, "name" | "url" | "secret" | "topic">): Promise<WebhookRow> {
  checkUrl(deps, input.url);
  const [row] = await deps.db
    .insert(webhooks)
    .values({
      name: input.name,
      url: input.url,
      secret: input.secret,
      topic: input.topic,
      enabled: false,
      retryScheme: input.retry_scheme ?? DEFAULT_RETRY_SCHEME,
      failureThreshold: input.failure_threshold ?? DEFAULT_FAILURE_THRESHOLD,
      createdAt: deps.now(),
    })
    .returning();
  return row!;
}

export async function updateWebhook(deps: Deps, current: WebhookRow, input: WebhookInput): Promise<WebhookRow> {
  checkUrl(deps, input.url);
  if (Object.values(input).every((v) => v === undefined)) return current; // a PUT of only what was read changes nothing
  const updated = await deps.db
    .update(webhooks)
    .set({
      name: input.name,
      url: input.url,
      secret: input.secret,
      topic: input.topic,
      enabled: input.enabled,
      retryScheme: input.retry_scheme,
      failureThreshold: input.failure_threshold,
    })
    .where(eq(webhooks.id, current.id))
    .returning()
    .get();
  if (!updated) throw invalidId("webhook");
  forgetListenedTopics();
  return updated;
}

/** Counters back to 0 and dates to never. */
export async function resetWebhookCounters(deps: Deps, current: WebhookRow): Promise<WebhookRow> {
  const row = await deps.db
    .update(webhooks)
    .set({ pending: 0, delivered: 0, retries: 0, failed: 0, lastSuccess: null, lastRetry: null, lastFailure: null })
    .where(eq(webhooks.id, current.id))
    .returning()
    .get();
  if (!row) throw invalidId("webhook");
  return row;
}

/** Deletes the webhook with its delivery log; pending deliveries are dropped, and how many is logged. */
export async function deleteWebhook(deps: Deps, current: WebhookRow): Promise<void> {
  const { db } = deps;
  const pending = await db
    .select({ n: countRows() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, current.id), eq(webhookDeliveries.status, "pending")))
    .get();
  await db.batch([
    db.delete(webhookDeliveries).where(eq(webhookDeliveries.webhookId, current.id)),
    db.delete(webhooks).where(eq(webhooks.id, current.id)),
    writeLogStatement(deps, {
      logType: "Webhook",
      description: `Webhook ${current.id} (${current.topic}) was deleted; ${pending?.n ?? 0} pending deliveries were dropped.`,
    }),
  ]);
  forgetListenedTopics();
}

/** Sends the signed empty body now and answers what went over the wire; counters stay as they are. */
export async function pingWebhook(deps: Deps, hook: WebhookRow, source: string): Promise<{ deliveryId: string; exchange: RecordedExchange; at: number }> {
  const deliveryId = newDeliveryId();
  const at = deps.now();
  const exchange = await sendWebhook(deps, hook, { deliveryId, topic: hook.topic, body: "", source });
  return { deliveryId, exchange, at };
}

/** The newest 100 deliveries of the webhook. */
export function listDeliveries({ db }: Deps, webhookId: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(100);
}

export async function getDelivery({ db }: Deps, webhookId: number, deliveryId: string): Promise<DeliveryRow> {
  const row = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, deliveryId)))
    .get();
  if (!row) throw invalidId("webhook_delivery");
  return row;
}

/** The same body again, as a new delivery (its own id and attempts) to the same webhook. */
export async function redeliver(deps: Deps, hook: WebhookRow, original: DeliveryRow): Promise<DeliveryRow> {
  const { db } = deps;
  const now = deps.now();
  const [rows] = await db.batch([
    db
      .insert(webhookDeliveries)
      .values({
        id: newDeliveryId(),
        webhookId: hook.id,
        topic: original.topic,
        eventId: original.eventId,
        body: original.body,
        source: original.source,
        createdAt: now,
        dueAt: now,
      })
      .returning(),
    db
      .update(webhooks)
      .set({ pending: sql`${webhooks.pending} + 1` })
      .where(eq(webhooks.id, hook.id)),
  ]);
  const copy = rows[0]!;
  await deps.jobs.send(buildJob("webhook.deliver", { deliveryId: copy.id, attempt: 1 }));
  return copy;
}
