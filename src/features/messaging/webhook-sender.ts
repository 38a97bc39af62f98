import pkg from "../../../package.json";
import type { RecordedExchange } from "../../db/schema";
import { hmacSha256, toBase64 } from "../../lib/crypto";
import { exchange } from "../../lib/outbound";
import type { Deps } from "../../platform/deps";

/** A delivery succeeds with any 2xx within this time (decisions.md 8). */
const WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookTarget {
  id: number;
  url: string;
  secret: string;
}

export interface OutgoingDelivery {
  deliveryId: string;
  topic: string;
  body: string;
  source: string;
}

/** base64(HMAC-SHA256(secret, body)) over the exact bytes sent; the ping's empty body signs the empty string. */
async function webhookSignature(secret: string, body: string): Promise<string> {
  return toBase64(await hmacSha256(secret, body));
}

async function webhookHeaders(target: WebhookTarget, d: OutgoingDelivery): Promise<Record<string, string>> {
  const [resource = "", event = ""] = d.topic.split(".");
  return {
    "User-Agent": `${pkg.name}/${pkg.version} (webhooks; +${d.source})`,
    "Content-Type": "application/json",
    "X-EVT-Webhook-Source": d.source,
    "X-EVT-Webhook-Topic": d.topic,
    "X-EVT-Webhook-Resource": resource,
    "X-EVT-Webhook-Event": event,
    "X-EVT-Webhook-ID": String(target.id),
    "X-EVT-Webhook-Delivery-ID": d.deliveryId,
    "X-EVT-Webhook-Signature": await webhookSignature(target.secret, d.body),
  };
}

/** POSTs one delivery and records what went over the wire; never throws. */
export async function sendWebhook(deps: Deps, target: WebhookTarget, d: OutgoingDelivery): Promise<RecordedExchange> {
  return exchange(
    target.url,
    { method: "POST", headers: await webhookHeaders(target, d), body: d.body },
    { allowHttp: deps.config.allowHttpOutbound, timeoutMs: WEBHOOK_TIMEOUT_MS, resolverUrl: deps.config.outboundDnsUrl },
  );
}
