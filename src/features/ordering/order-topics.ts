import { eq, sql, type SQL } from "drizzle-orm";
import { API_BASE } from "../../config";
import { events, orders, tickets } from "../../db/schema";
import { linkBaseOf, withoutLinks } from "../../http/links";
import { formatDateTime } from "../../lib/time";
import { presentOrder } from "./orders.schema";
import type { Deps } from "../../platform/deps";
import type { WebhookTopic } from "../../domain/webhook-topics";
import { deliveryStatements, fireTopic, isListenedTo } from "../messaging/webhook-deliveries.service";
import type { EventRow, OrderRow } from "../../db/rows";

/** Payloads of decisions.md 8: the order as the REST API shows it, without `_links`; deletes send `{id}`. */

function source(deps: Deps): string {
  return `${deps.origin}${API_BASE}`;
}

/**
 * The order as the API shows it. Its id is read from the row inside the batch, since a new order's id is assigned
 * by the very batch that writes its deliveries.
 */
function orderBody(deps: Deps, order: OrderRow, event: EventRow | undefined): SQL {
  const shown = JSON.stringify(withoutLinks(presentOrder(linkBaseOf(deps.origin), order, event, deps.config.timezone)));
  return sql`json_set(${shown}, '$.id', (SELECT id FROM orders WHERE uid = ${order.uid}))`;
}

/**
 * An order topic's deliveries as statements for the batch that makes the change (`order` as it is after it), so
 * the notification commits with the change; none when no webhook listens. Put them after the order's own write
 * and before its delete; after the batch, queue writtenDeliveries(results) with enqueueDeliveries.
 */
export async function orderTopicStatements(deps: Deps, topic: Extract<WebhookTopic, `order.${string}`>, order: OrderRow, event: EventRow | undefined, onlyIf?: SQL) {
  if (!(await isListenedTo(deps, topic))) return [];
  const body = topic === "order.deleted" ? JSON.stringify({ id: order.id }) : orderBody(deps, order, event);
  return deliveryStatements(deps, topic, { eventId: order.eventId, body, source: source(deps) }, onlyIf);
}

/** The `tickets.downloaded` job: the order and its tickets read, the topic fired (decisions.md 8, 13). */
export async function announceDownload(deps: Deps, uid: string, at: number): Promise<void> {
  const order = await deps.db.select().from(orders).where(eq(orders.uid, uid)).get();
  if (!order) return;
  const event = await deps.db.select().from(events).where(eq(events.id, order.eventId)).get();
  const qrcodes = (await deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id))).map((t) => t.id);
  const payload = {
    ...withoutLinks(presentOrder(linkBaseOf(deps.origin), order, event, deps.config.timezone)),
    downloaded_at: formatDateTime(at, deps.config.timezone),
    qrcodes,
  };
  await fireTopic(deps, "tickets.downloaded", { eventId: order.eventId, payload, source: source(deps) });
}
