import type { Route } from "../../router";

// Webhooks and their deliveries, the email outbox, logs; users and application passwords. (Being built.)
export const messagingRoutes: Route[] = [];
