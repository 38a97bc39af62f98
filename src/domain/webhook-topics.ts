/**
 * The webhook topics of decisions.md section 8; any other is a 400. Here, not in the messaging feature, because the
 * organiser console offers the same list (src/console-app/screens/messaging/webhooks.tsx).
 */
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
  "waiting_list.joined",
  "waiting_list.offered",
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
