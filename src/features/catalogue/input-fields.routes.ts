import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { collection, created, deleted, ok } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, keyParam, numericParam, pathParams, updateBody } from "../../http/validate";
import {
  createInputFieldBody,
  INPUT_FIELD_CREATE_READ_ONLY,
  INPUT_FIELD_UPDATE_READ_ONLY,
  presentInputField,
  updateInputFieldBody,
  inputFieldsApi,
} from "./input-fields.schema";
import { getEventFor } from "./events.service";
import { createInputField, deleteInputField, getInputField, listInputFields, updateInputField } from "./input-fields.service";

const fieldParams = pathParams({ id: numericParam("event"), fieldId: keyParam("input_field") });

/** `/admin/events/<event_id>/input-fields` (spec: Input fields). */
export const inputFieldsRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(inputFieldsApi.list), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return collection(
      c,
      (await listInputFields(deps, event.id)).map((f) => presentInputField(c, f)),
    );
  })

  .post("/", describeRoute(inputFieldsApi.create), pathId("event"), createBody(createInputFieldBody, INPUT_FIELD_CREATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const field = await createInputField(deps, event.id, c.req.valid("json"));
    return created(c, presentInputField(c, field), `/admin/events/${event.id}/input-fields/${field.id}`);
  })

  .get("/:fieldId", describeRoute(inputFieldsApi.get), fieldParams, async (c) => {
    const deps = depsOf(c);
    const { id, fieldId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    return ok(c, presentInputField(c, await getInputField(deps, event.id, fieldId)));
  })

  .put("/:fieldId", describeRoute(inputFieldsApi.update), fieldParams, updateBody(updateInputFieldBody, INPUT_FIELD_UPDATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const { id, fieldId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const current = await getInputField(deps, event.id, fieldId);
    const { patch, readOnlySent } = c.req.valid("json");
    assertReadOnlyUnchanged(readOnlySent, presentInputField(c, current));
    return ok(c, presentInputField(c, await updateInputField(deps, current, patch)));
  })

  .delete("/:fieldId", describeRoute(inputFieldsApi.delete), fieldParams, async (c) => {
    const deps = depsOf(c);
    const { id, fieldId } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const current = await getInputField(deps, event.id, fieldId);
    await deleteInputField(deps, current);
    const { id: _id, _links, ...previous } = presentInputField(c, current);
    return deleted(c, previous);
  });
