import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { documented } from "../../http/route-docs";
import type { EventRow } from "../../db/rows";
import { shopEvent } from "./customer-orders.service";

/** The shop front's routes (`/events/<event_id>/...`) carry their event once `pathEvent` has read it. */
export type ShopEnv = AppEnv & { Variables: { event: EventRow } };

/** The path's event, before anything else of the request is read: unknown is `404 Event does not exist`. */
export const pathEvent = documented(
  createMiddleware<ShopEnv>(async (c, next) => {
    c.set("event", await shopEvent(depsOf(c), c.req.param("id") ?? ""));
    await next();
  }),
  { errors: { "404": "`rest_event_invalid_id` (`Event does not exist`): no event with this id." } },
);
