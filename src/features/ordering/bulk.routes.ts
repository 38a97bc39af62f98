import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { idempotent } from "../../http/idempotency";
import { ok } from "../../http/respond";
import { createBody } from "../../http/validate";
import { orderCriteriaBody, orderEmailsSendBody, bulkOrderEmailsApi } from "./bulk.schema";
import { echoCriteria, selectOrders } from "./bulk-orders.service";
import { ORDER_EMAIL_STATUSES, resendOrderEmails } from "./order-emails.service";

/** Bulk order emails (spec "Bulk order emails"; decisions.md 10); bulk refunds are in features/payments. */
export const bulkRoutes = new Hono<AppEnv>()
  .post("/order-emails/list", describeRoute(bulkOrderEmailsApi.list), createBody(orderCriteriaBody), async (c) => {
    const deps = depsOf(c);
    const criteria = c.req.valid("json");
    return ok(c, { ...echoCriteria(deps, criteria), order_ids: await selectOrders(deps, c.var.user, criteria, ORDER_EMAIL_STATUSES) });
  })

  .post("/order-emails/send", describeRoute(bulkOrderEmailsApi.send), idempotent, createBody(orderEmailsSendBody), async (c) =>
    ok(c, { errors: await resendOrderEmails(depsOf(c), c.var.user, c.req.valid("json")) }),
  );
