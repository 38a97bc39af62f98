import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { checkoutApi } from "./customer-orders.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { ok } from "../../http/respond";
import { keyParam, numericParam, pathParams } from "../../http/validate";
import { orderByCapability, orderStatus } from "./order-status.service";

const params = pathParams({ id: numericParam("order"), uid: keyParam("order") });

/** `/orders/<order_id>/<uid>/status` (decisions.md 5.1): no key; the uid is the capability. */
export const orderStatusRoutes = new Hono<AppEnv>().get("/:id/:uid/status", describeRoute(checkoutApi.status), params, async (c) => {
  const deps = depsOf(c);
  const { id, uid } = c.req.valid("param");
  return ok(c, await orderStatus(deps, await orderByCapability(deps, id, uid)));
});
