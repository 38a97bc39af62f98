import { Hono } from "hono";
import type { AppContext, AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { apiUrl } from "../../http/links";
import { deleted, ok } from "../../http/respond";
import { pathId } from "../../http/validate";
import { presentOrderTickets, orderTicketsApi } from "./order-tickets.schema";
import { deleteTickets, issueTickets, ticketsOfOrders } from "./order-tickets.service";
import { getOrderFor } from "./orders.service";
import type { OrderRow } from "../../db/rows";

async function present(c: AppContext, order: OrderRow) {
  const deps = depsOf(c);
  const found = await ticketsOfOrders(deps, [order.id]);
  return presentOrderTickets(c, order, found.rows, found.events, found.scans, deps.config.timezone);
}

/** `/admin/tickets/<order_id>` (spec: Tickets of an order). */
export const orderTicketsRoutes = new Hono<AppEnv>()
  .get("/:id", describeRoute(orderTicketsApi.get), pathId("order"), async (c) => {
    const order = await getOrderFor(depsOf(c), c.var.user, c.req.valid("param").id);
    return ok(c, await present(c, order));
  })

  .post("/:id", describeRoute(orderTicketsApi.issue), pathId("order"), async (c) => {
    const deps = depsOf(c);
    const order = await getOrderFor(deps, c.var.user, c.req.valid("param").id);
    await issueTickets(deps, order);
    c.header("Location", apiUrl(c, `/admin/tickets/${order.id}`));
    return c.json(await present(c, order), 201);
  })

  .delete("/:id", describeRoute(orderTicketsApi.delete), pathId("order"), async (c) => {
    const deps = depsOf(c);
    const order = await getOrderFor(deps, c.var.user, c.req.valid("param").id);
    await deleteTickets(deps, order);
    return deleted(c);
  });
