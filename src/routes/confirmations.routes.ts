import { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { API_BASE } from "../http/context";
import { depsOf } from "../http/deps";
import { keyParam, pathParams } from "../http/validate";
import { confirmOrder } from "../services/confirmations.service";

const params = pathParams({ uid: keyParam("order") });

/**
 * `/orders/confirm/<uid>` (decisions.md 5.7 and 12): no key, the uid is the capability. Confirms, then redirects
 * (302) to the event's confirmation redirect, or to the order's status.
 */
export const confirmationsRoutes = new Hono<AppEnv>().get("/:uid", params, async (c) => {
  const { order, event } = await confirmOrder(depsOf(c), c.req.valid("param").uid);
  const target = event.emailConfirmation.redirect || `${new URL(c.req.url).origin}${API_BASE}/orders/${order.id}/${order.uid}/status`;
  return c.redirect(target, 302);
});
