import { sql, type SQL } from "drizzle-orm";
import { API_BASE } from "../../config";
import { linkBaseOf, withoutLinks } from "../../http/links";
import { presentEvent } from "../catalogue/events.schema";
import { presentOrder } from "./orders.schema";
import type { Deps } from "../../platform/deps";
import { deliveryStatements, fireTopicLater, isListenedTo, type WebhookTopic } from "../messaging/webhook-deliveries.service";
import type { EventRow, OrderRow } from "../../db/rows";

/** Payloads of decisions.md 8: the resource as the REST API shows it, without `_links`; deletes send `{id}`. */

function source(deps: Deps): string {
  return `${deps.origin}${API_BASE}`;
}

/** Events fire on their own after the change (no batch of theirs is at hand); see fireTopic. */
export function eventTopic(deps: Deps, topic: Extract<WebhookTopic, `event.${string}`>, event: EventRow): void {
  const payload = topic === "event.deleted" ? { id: event.id } : withoutLinks(presentEvent(linkBaseOf(deps.origin), event));
  fireTopicLater(deps, topic, { eventId: event.id, payload, source: source(deps) });
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
export async function orderTopicStatements(
  deps: Deps,
  topic: Extract<WebhookTopic, `order.${string}`>,
  order: OrderRow,
  event: EventRow | undefined,
  onlyIf?: SQL,
) {
  if (!(await isListenedTo(deps, topic))) return [];
  const body = topic === "order.deleted" ? JSON.stringify({ id: order.id }) : orderBody(deps, order, event);
  return deliveryStatements(deps, topic, { eventId: order.eventId, body, source: source(deps) }, onlyIf);
}
