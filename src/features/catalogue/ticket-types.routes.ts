import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { collection, created, deleted, ok } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, keyParam, numericParam, pathParams, updateBody } from "../../http/validate";
import {
  createTicketTypeBody,
  presentTicketType,
  TICKET_TYPE_CREATE_READ_ONLY,
  TICKET_TYPE_UPDATE_READ_ONLY,
  updateTicketTypeBody,
  ticketTypesApi,
} from "./ticket-types.schema";
import { getEventFor } from "./events.service";
import { createTicketType, deleteTicketType, getTicketType, listTicketTypes, updateTicketType } from "./ticket-types.service";

const typeParams = pathParams({ id: numericParam("event"), typeId: keyParam("ticket_type") });

/** `/admin/events/<event_id>/ticket-types` (spec: Ticket types). */
export const ticketTypesRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(ticketTypesApi.list), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return collection(
      c,
      (await listTicketTypes(deps, event.id)).map((t) => presentTicketType(c, t)),
    );
  })

  .post("/", describeRoute(ticketTypesApi.create), pathId("event"), createBody(createTicketTypeBody, TICKET_TYPE_CREATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const type = await createTicketType(deps, c.var.user, event.id, c.req.valid("json"));
    const { sold: _sold, ...answer } = presentTicketType(c, type); // the spec leaves `sold` out of the create answer
    return created(c, answer, `/admin/events/${event.id}/ticket-types/${type.id}`);
  })

  .get("/:typeId", describeRoute(ticketTypesApi.get), typeParams, async (c) => {
    const deps = depsOf(c);
    const { id, typeId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    return ok(c, presentTicketType(c, await getTicketType(deps, event.id, typeId)));
  })

  .put("/:typeId", describeRoute(ticketTypesApi.update), typeParams, updateBody(updateTicketTypeBody, TICKET_TYPE_UPDATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const { id, typeId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const current = await getTicketType(deps, event.id, typeId);
    const { patch, readOnlySent } = c.req.valid("json");
    assertReadOnlyUnchanged(readOnlySent, presentTicketType(c, current));
    return ok(c, presentTicketType(c, await updateTicketType(deps, c.var.user, current, patch)));
  })

  .delete("/:typeId", describeRoute(ticketTypesApi.delete), typeParams, async (c) => {
    const deps = depsOf(c);
    const { id, typeId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const current = await getTicketType(deps, event.id, typeId);
    await deleteTicketType(deps, current);
    const { id: _id, _links, ...previous } = presentTicketType(c, current);
    return deleted(c, previous);
  });
