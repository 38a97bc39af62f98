import { Hono } from "hono";
import type { AppContext, AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { describeRoute } from "../../http/route-docs";
import { embedRequest, wantsEmbed, withoutLinks } from "../../http/links";
import { setPagingHeaders } from "../../http/paging";
import { created, deleted, ok, page } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, query, updateBody } from "../../http/validate";
import {
  createEventBody,
  deleteEventQuery,
  EVENT_CREATE_READ_ONLY,
  EVENT_UPDATE_READ_ONLY,
  listEventsQuery,
  presentEvent,
  updateEventBody,
  eventsApi,
} from "./events.schema";
import { presentInputField } from "./input-fields.schema";
import { presentScanKey } from "./scan-keys.schema";
import { presentTicketType } from "./ticket-types.schema";
import { createEvent, deleteEvent, getEventFor, listEvents, updateEvent } from "./events.service";
import { listInputFields } from "./input-fields.service";
import { salesTotals, scanTotals } from "./event-totals";
import { listScanKeys } from "./scan-keys.service";
import { listTicketTypes } from "./ticket-types.service";
import type { EventRow } from "../../db/rows";

/** An event, with `_embedded` ticket types, input fields, scan keys and report totals when `_embed` asks for them. */
async function presentWithEmbeds(c: AppContext, event: EventRow) {
  const view = presentEvent(c, event);
  const embed = embedRequest(c);
  if (embed === null) return view;
  const deps = depsOf(c);
  const embedded: Record<string, unknown[]> = {};
  if (wantsEmbed(embed, "sales_totals")) embedded.sales_totals = [await salesTotals(deps, event.id)];
  if (wantsEmbed(embed, "scan_totals")) embedded.scan_totals = [await scanTotals(deps, event.id)];
  if (wantsEmbed(embed, "ticket_types")) embedded.ticket_types = (await listTicketTypes(deps, event.id)).map((t) => presentTicketType(c, t));
  if (wantsEmbed(embed, "input_fields")) embedded.input_fields = (await listInputFields(deps, event.id)).map((f) => presentInputField(c, f));
  if (wantsEmbed(embed, "scan_keys")) embedded.scan_keys = (await listScanKeys(deps, event.id)).map((k) => presentScanKey(c, k));
  return Object.keys(embedded).length > 0 ? { ...view, _embedded: embedded } : view;
}

/** `/admin/events` (decisions.md section 4): organizers see and change their authorised events. */
export const eventsRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(eventsApi.list), query(listEventsQuery), async (c) => {
    const q = c.req.valid("query");
    const { rows, total } = await listEvents(depsOf(c), c.var.user, q);
    setPagingHeaders(c, total, q);
    return page(c, await Promise.all(rows.map((e) => presentWithEmbeds(c, e))));
  })

  .post("/", describeRoute(eventsApi.create), createBody(createEventBody, EVENT_CREATE_READ_ONLY), async (c) => {
    const event = await createEvent(depsOf(c), c.var.user, c.req.valid("json"));
    return created(c, presentEvent(c, event), `/admin/events/${event.id}`);
  })

  .get("/:id", describeRoute(eventsApi.get), pathId("event"), async (c) => {
    const event = await getEventFor(depsOf(c), c.var.user, c.req.valid("param").id);
    return ok(c, await presentWithEmbeds(c, event));
  })

  .put("/:id", describeRoute(eventsApi.update), pathId("event"), updateBody(updateEventBody, EVENT_UPDATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const current = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const { patch, readOnlySent } = c.req.valid("json");
    assertReadOnlyUnchanged(readOnlySent, presentEvent(c, current));
    return ok(c, presentEvent(c, await updateEvent(deps, c.var.user, current, patch)));
  })

  .delete("/:id", describeRoute(eventsApi.delete), pathId("event"), query(deleteEventQuery), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    await deleteEvent(deps, event, c.req.valid("query").force);
    return deleted(c, withoutLinks(presentEvent(c, event)));
  });
