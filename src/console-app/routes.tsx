import type { commonText } from "./messages/common";
import type { Route } from "./router";
import { EventPage } from "./screens/event-page";
import { eventsRoutes } from "./screens/events";
import { filesRoutes } from "./screens/files";
import { keysRoutes } from "./screens/keys";
import { messagingRoutes } from "./screens/messaging";
import { ordersRoutes } from "./screens/orders";

/** Every screen of the console by its address (router.ts); each area lists its own. */
export const routes: readonly Route[] = [
  ...eventsRoutes,
  { pattern: "/events/:id", screen: ({ id = "" }) => <EventPage id={id} tab="live" /> },
  { pattern: "/events/:id/:tab", screen: ({ id = "", tab = "" }) => <EventPage id={id} tab={tab} /> },
  ...ordersRoutes,
  ...filesRoutes,
  ...keysRoutes,
  ...messagingRoutes,
];

type Label = keyof (typeof commonText)["en"];

/** The main menu, in this order; `adminOnly` items are not shown to organisers (the API refuses them anyway). */
export const menu: readonly { path: string; label: Label; adminOnly?: boolean }[] = [
  { path: "/events", label: "events" },
  { path: "/orders", label: "orders" },
  { path: "/coupons", label: "coupons" },
  { path: "/pdf-templates", label: "pdfTemplates" },
  { path: "/email-lists", label: "emailLists" },
  { path: "/webhooks", label: "webhooks", adminOnly: true },
  { path: "/outbox", label: "outbox", adminOnly: true },
  { path: "/logs", label: "logs" },
  { path: "/users", label: "users", adminOnly: true },
];
