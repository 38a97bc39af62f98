import { z } from "zod";
import type { RecordedExchange } from "../../db/schema";
import { apiUrl, selfAndCollection, type LinkBase } from "../../http/links";
import { formatDateTime, formatOptionalDateTime, NEVER } from "../../lib/time";
import { WEBHOOK_TOPICS } from "../../domain/webhook-topics";
import type { DeliveryRow, WebhookRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { counterDateTimeView, dateTimeView, deletedView, linksView } from "../../http/view-types";

export const DEFAULT_RETRY_SCHEME = [1, 1, 2, 4, 8];
export const DEFAULT_FAILURE_THRESHOLD = 60;

/** `"1,1,2,4,8"`: 1-20 whole numbers of minutes, each 0-720 (a queue delay of at most 12 hours). */
const retryScheme = z
  .string()
  .regex(/^\s*\d{1,3}\s*(,\s*\d{1,3}\s*){0,19}$/, "must be 1 to 20 comma-separated whole numbers of minutes")
  .transform((s) => s.split(",").map((p) => Number(p.trim())))
  .refine((minutes) => minutes.every((m) => m <= 720), "each retry waits at most 720 minutes");

const webhookFields = {
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
  url: z.string().trim().min(1, "must not be empty").max(2000, "must be at most 2000 characters"),
  secret: z.string().min(1, "must not be empty").max(500, "must be at most 500 characters"),
  topic: z.enum(WEBHOOK_TOPICS, `must be one of ${WEBHOOK_TOPICS.join(", ")}`),
  enabled: z.boolean(),
  retry_scheme: retryScheme,
  failure_threshold: z.number().int().min(0).max(100_000),
};

export const WEBHOOK_READ_ONLY = ["id", "pending", "delivered", "retries", "failed", "last_success", "last_retry", "last_failure", "date_created"] as const;

export const createWebhookBody = z
  .strictObject(webhookFields)
  .partial()
  .required({ name: true, url: true, secret: true, topic: true })
  .refine((b) => b.enabled !== true, { path: ["enabled"], message: "webhooks are created disabled; enable one with PUT" });
export const updateWebhookBody = z.strictObject(webhookFields).partial();
export type WebhookInput = z.output<typeof updateWebhookBody>;

const int = z.number().int();
const headers = z.record(z.string(), z.string());

/** A webhook as the API shows it (spec: Webhook). */
const webhookView = named(
  "Webhook",
  z.object({
    id: int,
    name: z.string(),
    url: z.string(),
    secret: z.string().describe("Signs each delivery (`X-EVT-Webhook-Signature`)."),
    topic: z.enum(WEBHOOK_TOPICS),
    enabled: z.boolean(),
    retry_scheme: z.string().describe("Minutes to wait before each retry, comma-separated."),
    failure_threshold: int,
    pending: int,
    delivered: int,
    retries: int,
    failed: int,
    last_success: counterDateTimeView,
    last_retry: counterDateTimeView,
    last_failure: counterDateTimeView,
    date_created: dateTimeView,
    _links: linksView,
  }),
);

/** One entry of a webhook's delivery log (beyond the spec). */
const deliveryView = named(
  "WebhookDelivery",
  z.object({
    delivery_id: z.string(),
    webhook_id: int,
    topic: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: int,
    created: dateTimeView,
    finished: counterDateTimeView,
    body: z.string().describe("The exact bytes sent (and signed)."),
    request: z.object({ method: z.string(), url: z.string(), headers, body: z.string() }).nullable().describe("The last attempt's request; null before the first."),
    response: z
      .object({ code: int, message: z.string(), headers, body: z.string() })
      .nullable()
      .describe("The receiver's answer to the last attempt; null when none came."),
    duration: z.string().describe('Seconds the last attempt took ("0.123"); "" before the first.'),
    error: z.string(),
    _links: linksView,
  }),
);

/** The ping's answer: the documented Fast Events shape (decisions.md 14). */
const pingView = z.object({
  "Webhook Delivery": z.object({
    "Delivery ID": z.string(),
    Date: dateTimeView,
    URL: z.string(),
    Duration: z.string(),
    Request: z.object({ Method: z.string(), Headers: headers, Body: z.string() }),
    Response: z.object({ Code: int.describe("0: no answer came."), Message: z.string(), Headers: headers, Body: z.string() }),
  }),
});

/** The routes of `/admin/webhooks` (spec: Webhooks; decisions.md 8). Administrators only. */
export const webhooksApi = {
  list: { operationId: "listWebhooks", summary: "List webhooks", description: "Every webhook, on one page.", success: answers.collection(webhookView) },
  create: {
    operationId: "createWebhook",
    summary: "Create a webhook",
    description: "`name`, `url`, `secret` and `topic` are required. Webhooks are created disabled; enable one with `PUT`.",
    success: answers.created(webhookView),
  },
  get: { operationId: "getWebhook", summary: "Get a webhook", description: "`_fields` narrows the answer.", success: answers.ok(webhookView) },
  update: {
    operationId: "updateWebhook",
    summary: "Change a webhook",
    description: "Changes the fields sent; the counters and dates may be sent back unchanged.",
    success: answers.ok(webhookView),
  },
  delete: {
    operationId: "deleteWebhook",
    summary: "Delete a webhook",
    description: "Pending deliveries are dropped.",
    success: answers.ok(deletedView(webhookView.omit({ _links: true })), "`deleted` and the webhook as it was, without `_links`."),
  },
  resetCounters: {
    operationId: "resetWebhookCounters",
    summary: "Reset a webhook's counters",
    description: "`pending`, `delivered`, `retries`, `failed` and their dates start again.",
    success: answers.ok(webhookView),
  },
  ping: {
    operationId: "pingWebhook",
    summary: "Ping a webhook",
    description: "Sends a signed empty body to the webhook's `url` now (not through the queue) and answers what went over the wire; no counter changes.",
    success: answers.whole(pingView, "The delivery as it went over the wire."),
  },
  deliveries: {
    operationId: "listWebhookDeliveries",
    summary: "List a webhook's deliveries",
    description: "The newest 100 deliveries, on one page.",
    success: answers.collection(deliveryView),
  },
  delivery: { operationId: "getWebhookDelivery", summary: "Get a delivery", description: "One entry of the delivery log.", success: answers.ok(deliveryView) },
  redeliver: {
    operationId: "redeliverWebhookDelivery",
    summary: "Send a delivery again",
    description: "The same body under a new delivery id, through the queue.",
    success: answers.created(deliveryView, "Created: the new delivery, its address in `Location`."),
  },
} satisfies Record<string, RouteDoc>;

export function presentWebhook(c: LinkBase, w: WebhookRow, timezone: string) {
  const when = (t: number | null) => formatOptionalDateTime(t, timezone, NEVER);
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    secret: w.secret,
    // Stored only after createWebhookBody or updateWebhookBody checked it against WEBHOOK_TOPICS.
    topic: w.topic as (typeof WEBHOOK_TOPICS)[number],
    enabled: w.enabled,
    retry_scheme: w.retryScheme.join(","),
    failure_threshold: w.failureThreshold,
    pending: w.pending,
    delivered: w.delivered,
    retries: w.retries,
    failed: w.failed,
    last_success: when(w.lastSuccess),
    last_retry: when(w.lastRetry),
    last_failure: when(w.lastFailure),
    date_created: formatDateTime(w.createdAt, timezone),
    _links: selfAndCollection(c, `/admin/webhooks/${w.id}`, "/admin/webhooks"),
  } satisfies z.infer<typeof webhookView>;
}

function presentExchange(x: RecordedExchange | null) {
  if (!x) return { request: null, response: null, duration: "", error: "" };
  return {
    request: x.request,
    response: x.response,
    duration: (x.durationMs / 1000).toFixed(3),
    error: x.error ?? "",
  };
}

/** One entry of the delivery log (beyond the spec). */
export function presentDelivery(c: LinkBase, d: DeliveryRow, timezone: string) {
  return {
    delivery_id: d.id,
    webhook_id: d.webhookId,
    topic: d.topic,
    status: d.status,
    attempts: d.attempts,
    created: formatDateTime(d.createdAt, timezone),
    finished: formatOptionalDateTime(d.finishedAt, timezone, NEVER),
    body: d.body,
    ...presentExchange(d.lastExchange),
    _links: {
      self: [{ href: apiUrl(c, `/admin/webhooks/${d.webhookId}/deliveries/${d.id}`) }],
      collection: [{ href: apiUrl(c, `/admin/webhooks/${d.webhookId}/deliveries`) }],
    },
  } satisfies z.infer<typeof deliveryView>;
}

/** The ping's answer: the documented Fast Events shape, the delivery under "Webhook Delivery" (decisions.md 14). */
export function presentPing(deliveryId: string, x: RecordedExchange, timezone: string, at: number) {
  return { "Webhook Delivery": presentPingDelivery(deliveryId, x, timezone, at) } satisfies z.infer<typeof pingView>;
}

function presentPingDelivery(deliveryId: string, x: RecordedExchange, timezone: string, at: number) {
  return {
    "Delivery ID": deliveryId,
    Date: formatDateTime(at, timezone),
    URL: x.request.url,
    Duration: (x.durationMs / 1000).toFixed(3),
    Request: { Method: x.request.method, Headers: x.request.headers, Body: x.request.body },
    Response: x.response
      ? { Code: x.response.code, Message: x.response.message, Headers: x.response.headers, Body: x.response.body }
      : { Code: 0, Message: x.error ?? "no answer", Headers: {}, Body: "" },
  };
}
