import { Hono } from "hono";
import { requireAdministrator } from "../../http/require-administrator";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { API_BASE } from "../../config";
import { depsOf } from "../../http/deps";
import { withoutLinks } from "../../http/links";
import { collection, created, deleted, ok } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, keyParam, numericParam, pathId, pathParams, updateBody } from "../../http/validate";
import { createWebhookBody, presentDelivery, presentPing, presentWebhook, updateWebhookBody, WEBHOOK_READ_ONLY, webhooksApi } from "./webhooks.schema";
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  pingWebhook,
  redeliver,
  resetWebhookCounters,
  updateWebhook,
} from "./webhooks.service";

const deliveryParams = pathParams({ id: numericParam("webhook"), deliveryId: keyParam("webhook_delivery") });

/** `/admin/webhooks` (spec: Webhooks; decisions.md 8): administrators only. */
export const webhooksRoutes = new Hono<AppEnv>()
  .use(requireAdministrator)

  .get("/", describeRoute(webhooksApi.list), async (c) => {
    const deps = depsOf(c);
    return collection(
      c,
      (await listWebhooks(deps)).map((w) => presentWebhook(c, w, deps.config.timezone)),
    );
  })

  .post("/", describeRoute(webhooksApi.create), createBody(createWebhookBody, WEBHOOK_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const hook = await createWebhook(deps, c.req.valid("json"));
    return created(c, presentWebhook(c, hook, deps.config.timezone), `/admin/webhooks/${hook.id}`);
  })

  .get("/:id", describeRoute(webhooksApi.get), pathId("webhook"), async (c) => {
    const deps = depsOf(c);
    return ok(c, presentWebhook(c, await getWebhook(deps, c.req.valid("param").id), deps.config.timezone));
  })

  .put("/:id", describeRoute(webhooksApi.update), pathId("webhook"), updateBody(updateWebhookBody, WEBHOOK_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const current = await getWebhook(deps, c.req.valid("param").id);
    const { patch, readOnlySent } = c.req.valid("json");
    assertReadOnlyUnchanged(readOnlySent, presentWebhook(c, current, deps.config.timezone));
    return ok(c, presentWebhook(c, await updateWebhook(deps, current, patch), deps.config.timezone));
  })

  .delete("/:id", describeRoute(webhooksApi.delete), pathId("webhook"), async (c) => {
    const deps = depsOf(c);
    const current = await getWebhook(deps, c.req.valid("param").id);
    await deleteWebhook(deps, current);
    return deleted(c, withoutLinks(presentWebhook(c, current, deps.config.timezone)));
  })

  .get("/:id/reset-counters", describeRoute(webhooksApi.resetCounters), pathId("webhook"), async (c) => {
    const deps = depsOf(c);
    const reset = await resetWebhookCounters(deps, await getWebhook(deps, c.req.valid("param").id));
    return ok(c, presentWebhook(c, reset, deps.config.timezone));
  })

  .get("/:id/ping", describeRoute(webhooksApi.ping), pathId("webhook"), async (c) => {
    const deps = depsOf(c);
    const hook = await getWebhook(deps, c.req.valid("param").id);
    const { deliveryId, exchange, at } = await pingWebhook(deps, hook, `${deps.origin}${API_BASE}`);
    return c.json(presentPing(deliveryId, exchange, deps.config.timezone, at), 200);
  })

  /** Beyond the spec: the newest 100 deliveries, and sending one again. */
  .get("/:id/deliveries", describeRoute(webhooksApi.deliveries), pathId("webhook"), async (c) => {
    const deps = depsOf(c);
    const hook = await getWebhook(deps, c.req.valid("param").id);
    return collection(
      c,
      (await listDeliveries(deps, hook.id)).map((d) => presentDelivery(c, d, deps.config.timezone)),
    );
  })

  .get("/:id/deliveries/:deliveryId", describeRoute(webhooksApi.delivery), deliveryParams, async (c) => {
    const deps = depsOf(c);
    const { id, deliveryId } = c.req.valid("param");
    const hook = await getWebhook(deps, id);
    return ok(c, presentDelivery(c, await getDelivery(deps, hook.id, deliveryId), deps.config.timezone));
  })

  .post("/:id/deliveries/:deliveryId/redeliver", describeRoute(webhooksApi.redeliver), deliveryParams, async (c) => {
    const deps = depsOf(c);
    const { id, deliveryId } = c.req.valid("param");
    const hook = await getWebhook(deps, id);
    const copy = await redeliver(deps, hook, await getDelivery(deps, hook.id, deliveryId));
    return created(c, presentDelivery(c, copy, deps.config.timezone), `/admin/webhooks/${hook.id}/deliveries/${copy.id}`);
  });
