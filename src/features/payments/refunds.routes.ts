import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { idempotent } from "../../http/idempotency";
import { ok } from "../../http/respond";
import { createBody, pathId } from "../../http/validate";
import { centsToAmount } from "../../lib/money";
import { orderCriteriaBody } from "../ordering/bulk.schema";
import { echoCriteria, selectOrders } from "../ordering/bulk-orders.service";
import { getOrderFor } from "../ordering/orders.service";
import { refundOneBody, refundSendBody, refundsApi } from "./refunds.schema";
import { requestRefund, requestRefunds } from "./refunds.service";

/** `/admin/orders/<id>/refund` (spec "Orders"; decisions.md 10). */
export const orderRefundRoutes = new Hono<AppEnv>().post("/:id/refund", describeRoute(refundsApi.one), pathId("order"), createBody(refundOneBody), async (c) => {
  const deps = depsOf(c);
  const order = await getOrderFor(deps, c.var.user, c.req.valid("param").id);
  const amount = await requestRefund(deps, order, c.req.valid("json").amount);
  // The refund itself runs in the queue (decisions.md 10) and the order turns `refunded` when it is done; the answer
  // is 200 all the same, the only success code besides 201 that clients of this interface expect (decisions.md 3).
  return ok(c, { order_id: order.id, amount: centsToAmount(amount), status: "queued" });
});

/** `/admin/bulk/refunds/*` (spec "Bulk refunds"; decisions.md 10). */
export const bulkRefundsRoutes = new Hono<AppEnv>()
  .post("/refunds/list", describeRoute(refundsApi.list), createBody(orderCriteriaBody), async (c) => {
    const deps = depsOf(c);
    const criteria = c.req.valid("json");
    return ok(c, { ...echoCriteria(deps, criteria), order_ids: await selectOrders(deps, c.var.user, criteria, ["paid"]) });
  })

  .post("/refunds/send", describeRoute(refundsApi.send), idempotent, createBody(refundSendBody), async (c) =>
    ok(c, { errors: await requestRefunds(depsOf(c), c.var.user, c.req.valid("json")) }),
  );
