import { API_BASE } from "../../config";
import { linkBaseOf, withoutLinks } from "../../http/links";
import type { Deps } from "../../platform/deps";
import type { WebhookTopic } from "../../domain/webhook-topics";
import { fireTopicLater } from "../messaging/webhook-deliveries.service";
import { presentEvent } from "./events.schema";
import type { EventRow } from "../../db/rows";

/**
 * Events fire on their own after the change (no batch of theirs is at hand); see fireTopic. Payloads of
 * decisions.md 8: the event as the REST API shows it, without `_links`; a delete sends `{id}`.
 */
export function eventTopic(deps: Deps, topic: Extract<WebhookTopic, `event.${string}`>, event: EventRow): void {
  const payload = topic === "event.deleted" ? { id: event.id } : withoutLinks(presentEvent(linkBaseOf(deps.origin), event));
  fireTopicLater(deps, topic, { eventId: event.id, payload, source: `${deps.origin}${API_BASE}` });
}
