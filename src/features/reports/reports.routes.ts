import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/context";
import { reportsApi } from "./reports.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { apiUrl, type LinkBase } from "../../http/links";
import { ok } from "../../http/respond";
import { pathId } from "../../http/validate";
import { getEventFor } from "../catalogue/events.service";
import { groupEvents, salesReport, scansReport } from "./reports.service";
import { exportStream, type ExportKind } from "./exports.service";
import { liveNumbers } from "./live.service";

/** A report links to itself like every resource (decisions.md 14). */
const self = (c: LinkBase, path: string) => ({ self: [{ href: apiUrl(c, path) }] });

/** Reports (spec "Reports", "Sales and scan reports"): of one event, or of every event of its group (`_fields` applies). */
export const reportsRoutes = new Hono<AppEnv>()
  .get("/:id/sales", describeRoute(reportsApi.sales), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { id: event.id, orders: await salesReport(deps, [event.id]), _links: self(c, `/admin/events/${event.id}/sales`) });
  })

  .get("/:id/sales/group", describeRoute(reportsApi.groupSales), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const events = await groupEvents(deps, c.var.user, event);
    return ok(c, { event_group: event.eventGroup, orders: await salesReport(deps, events), _links: self(c, `/admin/events/${event.id}/sales/group`) });
  })

  .get("/:id/scans", describeRoute(reportsApi.scans), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { id: event.id, tickets: await scansReport(deps, [event.id]), _links: self(c, `/admin/events/${event.id}/scans`) });
  })

  .get("/:id/scans/group", describeRoute(reportsApi.groupScans), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const events = await groupEvents(deps, c.var.user, event);
    return ok(c, { event_group: event.eventGroup, tickets: await scansReport(deps, events), _links: self(c, `/admin/events/${event.id}/scans/group`) });
  })
  // The console's live section (decisions.md 15 "The organiser console"), polled every few seconds.
  .get("/:id/live", describeRoute(reportsApi.live), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, { id: event.id, ...(await liveNumbers(deps, event.id)), _links: self(c, `/admin/events/${event.id}/live`) });
  })
  .get("/:id/exports/orders.csv", describeRoute(reportsApi.exportOrders), pathId("event"), (c) => exportCsv(c, c.req.valid("param").id, "orders"))
  .get("/:id/exports/tickets.csv", describeRoute(reportsApi.exportTickets), pathId("event"), (c) => exportCsv(c, c.req.valid("param").id, "tickets"))
  .get("/:id/exports/scans.csv", describeRoute(reportsApi.exportScans), pathId("event"), (c) => exportCsv(c, c.req.valid("param").id, "scans"));

/** An export of an event the user may manage (decisions.md 15 "The organiser console"): a CSV download, streamed. */
async function exportCsv(c: Context<AppEnv>, id: number, kind: ExportKind): Promise<Response> {
  const deps = depsOf(c);
  const event = await getEventFor(deps, c.var.user, id);
  return c.body(await exportStream(deps, event.id, kind), 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="event-${event.id}-${kind}.csv"`,
  });
}
