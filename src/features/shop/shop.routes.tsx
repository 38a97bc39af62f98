import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { pickLanguage } from "../../domain/messages";
import { shopEvent } from "../checkout/customer-orders.service";
import { API_BASE } from "../../config";
import { setShopHeaders, ShopLayout } from "./page-layout";
import { describeRoute } from "../../http/route-docs";
import { shopApi } from "./shop.schema";

/**
 * `/shop/<event_id>` (decisions.md 15 "The box office"): the event's shop page, no key.
 * Skeleton: the page shows the event's name; the form, its post and their tests come next.
 */
export const shopRoutes = new Hono<AppEnv>().get("/:id", describeRoute(shopApi.page), async (c) => {
  const deps = depsOf(c);
  const event = await shopEvent(deps, c.req.param("id"));
  const lang = pickLanguage(c.req.query("lang"), c.req.header("Accept-Language"));
  setShopHeaders(c);
  return c.html(
    <ShopLayout lang={lang} page="shop" title={event.eventName} path={`${API_BASE}/shop/${event.id}`}>
      <h1>{event.eventName}</h1>
    </ShopLayout>,
  );
});
