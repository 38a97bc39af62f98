import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { collection, created, deleted, ok } from "../../http/respond";
import { formBody, pathId } from "../../http/validate";
import { presentEmailList, uploadEmailListForm, emailListsApi } from "./email-lists.schema";
import { deleteEmailList, getEmailList, listEmailLists, uploadEmailList } from "./email-lists.service";
import { getEventFor } from "../catalogue/events.service";

/** `/admin/emaillists` (spec: Email lists): a list is addressed by its event's id. */
export const emailListsRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(emailListsApi.list), async (c) => {
    const lists = await listEmailLists(depsOf(c), c.var.user);
    return collection(
      c,
      lists.map((l) => presentEmailList(c, l)),
    );
  })

  .get("/:id", describeRoute(emailListsApi.get), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, presentEmailList(c, await getEmailList(deps, event.id)));
  })

  /** `201` when the list is new, `200` when the upload merged into an existing one. */
  .post("/:id", describeRoute(emailListsApi.upload), pathId("event"), formBody(uploadEmailListForm), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const result = await uploadEmailList(deps, event.id, c.req.valid("form").file);
    const body = presentEmailList(c, { eventId: event.id, total: result.total });
    return result.created ? created(c, body, `/admin/emaillists/${event.id}`) : c.json(body, 200);
  })

  .delete("/:id", describeRoute(emailListsApi.delete), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    await deleteEmailList(deps, event.id);
    return deleted(c);
  });
