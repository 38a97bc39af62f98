import { Hono } from "hono";
import type { AppContext, AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { idempotent } from "../../http/idempotency";
import { clientAddress } from "../../http/rate-limits";
import { embedRequest, wantsEmbed } from "../../http/links";
import { setPagingHeaders } from "../../http/paging";
import { created, deleted, ok, page } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, query, updateBody } from "../../http/validate";
import { presentOrderTickets } from "./order-tickets.schema";
import { createDashboardOrderBody, listOrdersQuery, ORDER_READ_ONLY, orderLinks, presentOrder, presentOrderContact, updateOrderBody, ordersApi } from "./orders.schema";
import { ticketsOfOrders } from "./order-tickets.service";
import { createDashboardOrder, deleteOrder, eventsOf, getOrderFor, listOrders, updateOrder } from "./orders.service";
import type { OrderRow } from "../../db/rows";

/** Orders as the API shows them, with `_embedded.tickets` (tickets and their scans) when `_embed` asks. */
async function presentOrders(c: AppContext, rows: readonly OrderRow[]) {
  const deps = depsOf(c);
  const eventsById = await eventsOf(deps, rows);
  const views = rows.map((o) => presentOrder(c, o, eventsById.get(o.eventId), deps.config.timezone));
  if (!wantsEmbed(embedRequest(c), "tickets")) return views;
  const all = await ticketsOfOrders(
    deps,
    rows.map((o) => o.id),
  );
  return rows.map((o, i) => ({
    ...views[i]!,
    _embedded: {
      tickets: [
        presentOrderTickets(
          c,
          o,
          all.rows.filter((t) => t.orderId === o.id),
          all.events,
          all.scans,
          deps.config.timezone,
        ),
      ],
    },
  }));
}

/** `/admin/orders` (spec: Orders; decisions.md 5.2). */
export const ordersRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(ordersApi.list), query(listOrdersQuery), async (c) => {
    const q = c.req.valid("query");
    const { rows, total } = await listOrders(depsOf(c), c.var.user, q);
    setPagingHeaders(c, total, q);
    return page(c, await presentOrders(c, rows));
  })

  .post("/", describeRoute(ordersApi.create), idempotent, createBody(createDashboardOrderBody), async (c) => {
    const deps = depsOf(c);
    const { order, event } = await createDashboardOrder(deps, c.var.user, c.req.valid("json"), clientAddress(c));
    return created(c, presentOrder(c, order, event, deps.config.timezone), `/admin/orders/${order.id}`);
  })

  .get("/:id", describeRoute(ordersApi.get), pathId("order"), async (c) => {
    const order = await getOrderFor(depsOf(c), c.var.user, c.req.valid("param").id);
    const [view] = await presentOrders(c, [order]);
    return ok(c, view);
  })

  .put("/:id", describeRoute(ordersApi.update), pathId("order"), updateBody(updateOrderBody, ORDER_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const current = await getOrderFor(deps, c.var.user, c.req.valid("param").id);
    const { patch, readOnlySent } = c.req.valid("json");
    const eventsById = await eventsOf(deps, [current]);
    assertReadOnlyUnchanged(readOnlySent, presentOrder(c, current, eventsById.get(current.eventId), deps.config.timezone));
    const updated = await updateOrder(deps, current, { customStatus: patch.custom_status, name: patch.name, email: patch.email });
    return ok(c, { ...presentOrderContact(updated), _links: orderLinks(c, updated) });
  })

  .delete("/:id", describeRoute(ordersApi.delete), pathId("order"), async (c) => {
    const deps = depsOf(c);
    const current = await getOrderFor(deps, c.var.user, c.req.valid("param").id);
    await deleteOrder(deps, current);
    return deleted(c, presentOrderContact(current));
  });
