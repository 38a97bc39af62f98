import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppContext, AppEnv } from "../../http/context";
import { describeRoute, documented } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { idempotentWith } from "../../http/idempotency";
import { clientAddress, orderRateLimit } from "../../http/rate-limits";
import { requireOrderingKey } from "../../http/ordering-key";
import { created, ok } from "../../http/respond";
import { createBody } from "../../http/validate";
import { checkoutApi, createCustomerOrderBody } from "./customer-orders.schema";
import { presentOrder } from "../ordering/orders.schema";
import { committedCustomerOrder, createCustomerOrder, shopEvent, type CustomerOrderResult } from "./customer-orders.service";
import { orderForm } from "./order-form.service";
import type { EventRow } from "../../db/rows";

type ShopEnv = AppEnv & { Variables: { event: EventRow } };

/** The path's event, before anything else of the request is read: unknown is `404 Event does not exist`. */
const pathEvent = documented(
  createMiddleware<ShopEnv>(async (c, next) => {
    c.set("event", await shopEvent(depsOf(c), c.req.param("id") ?? ""));
    await next();
  }),
  { errors: { "404": "`rest_event_invalid_id` (`Event does not exist`): no event with this id." } },
);

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
