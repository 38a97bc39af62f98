import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { withoutLinks } from "../../http/links";
import { setPagingHeaders } from "../../http/paging";
import { created, deleted, ok, page } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, query, updateBody } from "../../http/validate";
import { COUPON_READ_ONLY, createCouponBody, listCouponsQuery, presentCoupon, updateCouponBody, couponsApi } from "./coupons.schema";
import { createCoupon, deleteCoupon, getCouponFor, listCoupons, resetCouponCounters, updateCoupon } from "./coupons.service";

/** `/admin/coupons` (spec: Coupon, Coupons; decisions.md 12, 13, 15): organizers see their own coupons of their events only. */
export const couponsRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(couponsApi.list), query(listCouponsQuery), async (c) => {
    const deps = depsOf(c);
    const q = c.req.valid("query");
    const { rows, total } = await listCoupons(deps, c.var.user, q);
    setPagingHeaders(c, total, q);
    return page(
      c,
      rows.map((k) => presentCoupon(c, k, deps.config.timezone)),
    );
  })

  .post("/", describeRoute(couponsApi.create), createBody(createCouponBody, COUPON_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const coupon = await createCoupon(deps, c.var.user, c.req.valid("json"));
    return created(c, presentCoupon(c, coupon, deps.config.timezone), `/admin/coupons/${coupon.id}`);
  })

  .get("/:id", describeRoute(couponsApi.get), pathId("coupon"), async (c) => {
    const deps = depsOf(c);
    return ok(c, presentCoupon(c, await getCouponFor(deps, c.var.user, c.req.valid("param").id), deps.config.timezone));
  })

  .put("/:id", describeRoute(couponsApi.update), pathId("coupon"), updateBody(updateCouponBody, COUPON_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const current = await getCouponFor(deps, c.var.user, c.req.valid("param").id);
    const { patch, readOnlySent } = c.req.valid("json");
    assertReadOnlyUnchanged(readOnlySent, presentCoupon(c, current, deps.config.timezone));
    return ok(c, presentCoupon(c, await updateCoupon(deps, c.var.user, current, patch), deps.config.timezone));
  })

  .delete("/:id", describeRoute(couponsApi.delete), pathId("coupon"), async (c) => {
    const deps = depsOf(c);
    const current = await getCouponFor(deps, c.var.user, c.req.valid("param").id);
    await deleteCoupon(deps, current);
    return deleted(c, withoutLinks(presentCoupon(c, current, deps.config.timezone)));
  })

  .get("/:id/reset-counters", describeRoute(couponsApi.resetCounters), pathId("coupon"), async (c) => {
    const deps = depsOf(c);
    const current = await getCouponFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, presentCoupon(c, await resetCouponCounters(deps, current), deps.config.timezone));
  });
