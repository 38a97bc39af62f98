import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { setPagingHeaders } from "../../http/paging";
import { requireOrderingKey } from "../../http/ordering-key";
import { orderRateLimit } from "../../http/rate-limits";
import { created, deleted, ok, page } from "../../http/respond";
import { describeRoute } from "../../http/route-docs";
import { createBody, numericParam, pathId, pathParams, query } from "../../http/validate";
import { pathEvent, type ShopEnv } from "../checkout/path-event";
import { getEventFor } from "../catalogue/events.service";
import { joinWaitingListBody, listWaitingListQuery, presentEntry, presentJoined, waitingListApi } from "./waiting-list.schema";
import { deleteWaitingEntry, getWaitingEntry, joinWaitingList, listWaitingList } from "./waiting-list.service";

/** `POST /events/<event_id>/waiting-list` (decisions.md 15 "Selling like the peers"): the API key or the ordering key. */
export const waitingListJoinRoutes = new Hono<ShopEnv>()
  .use(requireOrderingKey)
  .post("/:id/waiting-list", describeRoute(waitingListApi.join), orderRateLimit, pathEvent, createBody(joinWaitingListBody), async (c) => {
    const deps = depsOf(c);
    const entry = await joinWaitingList(deps, c.var.event, c.req.valid("json"));
    return created(c, presentJoined(entry, deps.config.timezone), `/admin/events/${entry.eventId}/waiting-list/${entry.id}`);
  });

const entryParams = pathParams({ id: numericParam("event"), entryId: numericParam("waiting_list_entry") });

/** `/admin/events/<event_id>/waiting-list`: the organiser's view of the line. */
export const waitingListAdminRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(waitingListApi.list), pathId("event"), query(listWaitingListQuery), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const q = c.req.valid("query");
    const { rows, total } = await listWaitingList(deps, event.id, q);
    setPagingHeaders(c, total, q);
    return page(
      c,
      rows.map((e) => presentEntry(c, e, deps.config.timezone)),
    );
  })

  .get("/:entryId", describeRoute(waitingListApi.get), entryParams, async (c) => {
    const deps = depsOf(c);
    const { id, entryId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    return ok(c, presentEntry(c, await getWaitingEntry(deps, event.id, entryId), deps.config.timezone));
  })

  .delete("/:entryId", describeRoute(waitingListApi.delete), entryParams, async (c) => {
    const deps = depsOf(c);
    const { id, entryId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    return deleted(c, presentEntry(c, await deleteWaitingEntry(deps, event.id, entryId), deps.config.timezone));
  });
