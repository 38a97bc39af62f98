import { Hono, type Context } from "hono";
import type { AppContext } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { idempotentWith } from "../../http/idempotency";
import { clientAddress, orderRateLimit } from "../../http/rate-limits";
import { requireOrderingKey } from "../../http/ordering-key";
import { created, ok } from "../../http/respond";
import { createBody } from "../../http/validate";
import { checkoutApi, createCustomerOrderBody } from "./customer-orders.schema";
import { presentOrder } from "../ordering/orders.schema";
import { committedCustomerOrder, createCustomerOrder, type CustomerOrderResult } from "./customer-orders.service";
import { orderForm } from "./order-form.service";
import { pathEvent, type ShopEnv } from "./path-event";

/** `/events/<event_id>/...` (decisions.md 5.1, 14): the shop front's routes, with the API key or the ordering key. */
export const customerOrdersRoutes = new Hono<ShopEnv>()
  .use(requireOrderingKey)

  .get("/:id/order-form", describeRoute(checkoutApi.orderForm), pathEvent, async (c) => ok(c, await orderForm(depsOf(c), c.var.event)))

  .post("/:id/orders", describeRoute(checkoutApi.order), orderRateLimit, pathEvent, idempotentWith(recoverOrder), createBody(createCustomerOrderBody), async (c) => {
    const deps = depsOf(c);
    const ref = c.var.idempotencyRef ?? null;
    return answer(c, await createCustomerOrder(deps, c.var.event, c.req.valid("json"), clientAddress(c), ref, c.var.shopKey));
  });

/** `201` with the order, its group, and what comes next (the payment, or the confirmation it waits for). */
function answer(c: Context<ShopEnv> | AppContext, result: CustomerOrderResult): Response {
  return created(
    c,
    {
      ...presentOrder(c, result.order, result.event, depsOf(c).config.timezone),
      group_orders: result.groupOrders,
      payment: result.payment,
      confirmation: result.confirmation,
    },
    `/orders/${result.order.id}/${result.order.uid}/status`,
  );
}

/** A retried key whose first request died after committing: the committed order, answered as it was. */
async function recoverOrder(c: AppContext, ref: string): Promise<Response | null> {
  const committed = await committedCustomerOrder(depsOf(c), ref);
  return committed && answer(c, committed);
}
