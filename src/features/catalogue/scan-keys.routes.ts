import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { withoutLinks } from "../../http/links";
import { collection, created, deleted, ok } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, keyParam, numericParam, pathParams, query, updateBody } from "../../http/validate";
import {
  createScanKeyBody,
  presentScanKey,
  SCAN_KEY_CREATE_READ_ONLY,
  SCAN_KEY_UPDATE_READ_ONLY,
  scanKeyQrQuery,
  updateScanKeyBody,
  scanKeysApi,
} from "./scan-keys.schema";
import { getEventFor } from "./events.service";
import { createScanKey, deleteScanKey, getScanKey, listScanKeys, updateScanKey } from "./scan-keys.service";
import { scanKeyQr } from "./scan-key-qr";

const keyParams = pathParams({ id: numericParam("event"), key: keyParam("scan_key") });

/** `/admin/events/<event_id>/scan-keys` (decisions.md section 6; the QR code for the door app: docs/scanning.md "A scan key's QR code for the door app"). */
export const scanKeysRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(scanKeysApi.list), pathId("event"), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    return collection(
      c,
      (await listScanKeys(deps, event.id)).map((k) => presentScanKey(c, k)),
    );
  })

  .post("/", describeRoute(scanKeysApi.create), pathId("event"), createBody(createScanKeyBody, SCAN_KEY_CREATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const event = await getEventFor(deps, c.var.user, c.req.valid("param").id);
    const key = await createScanKey(deps, event.id, c.req.valid("json"));
    return created(c, presentScanKey(c, key), `/admin/events/${event.id}/scan-keys/${key.key}`);
  })

  .get("/:key", describeRoute(scanKeysApi.get), keyParams, async (c) => {
    const deps = depsOf(c);
    const { id, key } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    return ok(c, presentScanKey(c, await getScanKey(deps, event.id, key)));
  })

  .get("/:key/qr", describeRoute(scanKeysApi.qr), keyParams, query(scanKeyQrQuery), async (c) => {
    const deps = depsOf(c);
    const { id, key } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const qr = await scanKeyQr(c, await getScanKey(deps, event.id, key), c.req.valid("query").format);
    // The image carries the key: kept by no cache, the browser's included.
    return c.body(qr.body, 200, { "Content-Type": qr.contentType, "Content-Disposition": qr.contentDisposition, "Cache-Control": "no-store" });
  })

  .put("/:key", describeRoute(scanKeysApi.update), keyParams, updateBody(updateScanKeyBody, SCAN_KEY_UPDATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const { id, key } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const current = await getScanKey(deps, event.id, key);
    const { patch, readOnlySent } = c.req.valid("json");
    assertReadOnlyUnchanged(readOnlySent, presentScanKey(c, current));
    return ok(c, presentScanKey(c, await updateScanKey(deps, current, patch)));
  })

  .delete("/:key", describeRoute(scanKeysApi.delete), keyParams, async (c) => {
    const deps = depsOf(c);
    const { id, key } = c.req.valid("param");
    const event = await getEventFor(deps, c.var.user, id);
    const current = await getScanKey(deps, event.id, key);
    await deleteScanKey(deps, current);
    return deleted(c, withoutLinks(presentScanKey(c, current)));
  });
