import { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { depsOf } from "../http/deps";
import { ok } from "../http/respond";
import { pathId } from "../http/validate";
import { getEventFor } from "../services/events.service";
import { groupEvents, salesReport, scansReport } from "../services/reports.service";

/** Reports (spec "Reports", "Sales and scan reports"): of one event, or of every event of its group (`_fields` applies). */
export const reportsRoutes = new Hono<AppEnv>()
  .get("/:id/sales", pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { id: event.id, orders: await salesReport(deps, [event.id]) });
  })

  .get("/:id/sales/group", pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { event_group: event.eventGroup, orders: await salesReport(deps, await groupEvents(deps, c.var.user, event)) });
  })

  .get("/:id/scans", pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { id: event.id, tickets: await scansReport(deps, [event.id]) });
  })

  .get("/:id/scans/group", pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { event_group: event.eventGroup, tickets: await scansReport(deps, await groupEvents(deps, c.var.user, event)) });
  });
