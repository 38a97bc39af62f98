import type { Route } from "../../router";
import { DeliveryPage } from "./deliveries";
import { LogList, LogPage } from "./logs";
import { EmailPage, Outbox } from "./outbox";
import { UserList, UserPage } from "./users";
import { WebhookList, WebhookPage } from "./webhooks";

/**
 * Webhooks and their deliveries, the email outbox, logs; users and application passwords (docs/console.md).
 * Webhooks, the outbox and users are the administrators' (decisions.md 13): an organiser's console has no route to
 * them, and the API refuses them anyway. Logs are everyone's: the API answers an organiser those of its events.
 */
export const messagingRoutes: Route[] = [
  { pattern: "/webhooks", adminOnly: true, screen: () => <WebhookList /> },
  { pattern: "/webhooks/:id", adminOnly: true, screen: ({ id = "" }) => <WebhookPage id={id} /> },
  { pattern: "/webhooks/:id/deliveries/:deliveryId", adminOnly: true, screen: ({ id = "", deliveryId = "" }) => <DeliveryPage id={id} deliveryId={deliveryId} /> },
  { pattern: "/outbox", adminOnly: true, screen: () => <Outbox /> },
  { pattern: "/outbox/:id", adminOnly: true, screen: ({ id = "" }) => <EmailPage id={id} /> },
  { pattern: "/logs", screen: () => <LogList /> },
  { pattern: "/logs/:id", screen: ({ id = "" }) => <LogPage id={id} /> },
  { pattern: "/users", adminOnly: true, screen: () => <UserList /> },
  { pattern: "/users/:id", adminOnly: true, screen: ({ id = "" }) => <UserPage id={id} /> },
];
