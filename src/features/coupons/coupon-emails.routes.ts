import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { idempotent } from "../../http/idempotency";
import { ok } from "../../http/respond";
import { createBody } from "../../http/validate";
import { couponEmailExampleBody, couponEmailsListBody, couponEmailsSendBody, couponEmailsApi } from "./coupon-emails.schema";
import { echoCouponCriteria, listCouponEmailTargets, sendCouponEmailExample, sendCouponEmails } from "./coupon-emails.service";

/** Bulk coupon emails (spec "Bulk coupon emails"; decisions.md 9, 10, 12). */
export const couponEmailsRoutes = new Hono<AppEnv>()
  .post("/list", describeRoute(couponEmailsApi.list), createBody(couponEmailsListBody), async (c) => {
    const deps = depsOf(c);
    const criteria = c.req.valid("json");
    return ok(c, { ...echoCouponCriteria(deps, criteria), ids: await listCouponEmailTargets(deps, c.var.user, criteria) });
  })

  .post("/send", describeRoute(couponEmailsApi.send), idempotent, createBody(couponEmailsSendBody), async (c) =>
    ok(c, { errors: await sendCouponEmails(depsOf(c), c.var.user, c.req.valid("json")) }),
  )

  .post("/send-example", describeRoute(couponEmailsApi.sendExample), createBody(couponEmailExampleBody), async (c) =>
    ok(c, { errors: await sendCouponEmailExample(depsOf(c), c.var.user, c.req.valid("json")) }),
  );
