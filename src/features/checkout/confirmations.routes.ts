import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { checkoutApi } from "./customer-orders.schema";
import { describeRoute } from "../../http/route-docs";
import { returnAddress } from "../payments/return-address";
import { depsOf } from "../../http/deps";
import { keyParam, pathParams } from "../../http/validate";
import { confirmOrder } from "./confirmations.service";

const params = pathParams({ token: keyParam("order") });

/**
 * `/orders/confirm/<token>` (decisions.md 5.7, 12 and 14): no key, the emailed confirmation token is the capability
 * (an unknown token, or the order uid, is a 404). Confirms, then redirects (302) to the event's confirmation
 * redirect, else where the order returns to (decisions.md 15 "The box office": the shop's order page for an order
 * placed through the shop, else the order's status).
 */
export const confirmationsRoutes = new Hono<AppEnv>().get("/:token", describeRoute(checkoutApi.confirm), params, async (c) => {
  const deps = depsOf(c);
  const { order, event } = await confirmOrder(deps, c.req.valid("param").token);
  return c.redirect(returnAddress(deps.origin, { redirect: event.emailConfirmation.redirect }, order), 302);
});
