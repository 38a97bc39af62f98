import { API_BASE } from "../http/context";
import { linkBaseOf, withoutLinks } from "../http/links";
import { presentEvent, type EventRow } from "../schemas/events.schema";
import { presentOrder, type OrderRow } from "../schemas/orders.schema";
import type { Deps } from "./deps";
import { fireTopicLater, type WebhookTopic } from "./webhook-deliveries.service";

/** Payloads of decisions.md 8: the resource as the REST API shows it, without `_links`; deletes send `{id}`. */

function source(deps: Deps): string {
  return `${deps.origin}${API_BASE}`;
}

export function eventTopic(deps: Deps, topic: Extract<WebhookTopic, `event.${string}`>, event: EventRow): void {
  const payload = topic === "event.deleted" ? { id: event.id } : withoutLinks(presentEvent(linkBaseOf(deps.origin), event));
  fireTopicLater(deps, topic, { eventId: event.id, payload, source: source(deps) });
}

export function orderTopic(deps: Deps, topic: Extract<WebhookTopic, `order.${string}`>, order: OrderRow, event: EventRow | undefined): void {
  const payload = topic === "order.deleted" ? { id: order.id } : withoutLinks(presentOrder(linkBaseOf(deps.origin), order, event, deps.config.timezone));
  fireTopicLater(deps, topic, { eventId: order.eventId, payload, source: source(deps) });
}

