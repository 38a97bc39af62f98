import { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { depsOf } from "../http/deps";
import { idempotent } from "../http/idempotency";
import { clientAddress, orderRateLimit } from "../http/rate-limits";
import { requireOrderingKey } from "../http/ordering-key";
import { created, ok } from "../http/respond";
import { createBody, pathId } from "../http/validate";
import { createCustomerOrderBody } from "../schemas/customer-orders.schema";
import { presentOrder } from "../schemas/orders.schema";
import { createCustomerOrder } from "../services/customer-orders.service";
import { getEvent } from "../services/events.service";
import { orderForm } from "../services/order-form.service";

/** `/events/<event_id>/...` (decisions.md 5.1): the shop front's routes, with the API key or the ordering key. */
export const customerOrdersRoutes = new Hono<AppEnv>()
  .use(requireOrderingKey)

  .get("/:id/order-form", pathId("event"), async (c) => {
    const deps = depsOf(c);
    return ok(c, await orderForm(deps, await getEvent(deps, c.req.valid("param").id)));
  })

  .post("/:id/orders", orderRateLimit, pathId("event"), idempotent, createBody(createCustomerOrderBody), async (c) => {
    const deps = depsOf(c);
    const result = await createCustomerOrder(deps, c.req.valid("param").id, c.req.valid("json"), clientAddress(c));
    return created(
      c,
      {
        ...presentOrder(c, result.order, result.event),
        group_orders: result.groupOrders,
        payment: result.payment,
      },
      `/orders/${result.order.id}/${result.order.uid}/status`,
    );
  });

