import { Hono } from "hono";
import { depsOf } from "../../http/deps";
import { ok } from "../../http/respond";
import { scanRateLimit } from "../../http/rate-limits";
import { requireScanKey, type ScanKeyEnv } from "./scan-key.middleware";
import { createBody, keyParam, pathParams, query } from "../../http/validate";
import { revokedQuery, scanBody, scansApi, validTicketsQuery } from "./scans.schema";
import { describeRoute } from "../../http/route-docs";
import { publicKeys, revokedSince, scanKeySelf, scanTicket, ticketScansFor } from "./ticket-scans.service";
import { offlineListFor } from "./offline-list.service";

/** Public scans (spec "Public scans"; decisions.md 6, 13): a scan key in `X-EVT-API-KEY`, no service key. */
export const scansRoutes = new Hono<ScanKeyEnv>()
  .use("*", scanRateLimit, requireScanKey)

  .post("/", describeRoute(scansApi.scan), createBody(scanBody), async (c) => ok(c, await scanTicket(depsOf(c), c.var.scanKey, c.req.valid("json").id)))

  .get("/revoked", describeRoute(scansApi.revoked), query(revokedQuery), async (c) => ok(c, await revokedSince(depsOf(c), c.var.scanKey, c.req.valid("query").since)))

  .get("/tickets", describeRoute(scansApi.valid), query(validTicketsQuery), async (c) => {
    const list = await offlineListFor(depsOf(c), c.var.scanKey, c.req.valid("query"), c.req.url, c.req.header("If-None-Match"));
    // Revalidate every time (the ETag makes that cheap); private: the list is the key holder's. No `no-transform`:
    // Cloudflare's edge compresses the JSON for clients that accept it (docs/scanning.md).
    c.header("ETag", list.etag);
    c.header("Cache-Control", "private, no-cache");
    if (list.kind === "not_modified") return c.body(null, 304);
    if (list.next !== null) c.header("Link", `<${list.next}>; rel="next"`);
    return ok(c, list.body);
  })

  .get("/:ticket_id", describeRoute(scansApi.ticket), pathParams({ ticket_id: keyParam("ticket") }), async (c) =>
    ok(c, await ticketScansFor(depsOf(c), c.var.scanKey, c.req.valid("param").ticket_id)),
  );

/**
 * `/scan-keys/...` (any scan key): what a door phone keeps to scan offline, the keys that verify signed ticket codes
 * and its own key's settings (docs/scanning.md "The key's own settings").
 */
export const scanKeySyncRoutes = new Hono<ScanKeyEnv>()
  .use("*", scanRateLimit, requireScanKey)
  .get("/public-keys", describeRoute(scansApi.publicKeys), (c) => ok(c, publicKeys(depsOf(c))))
  .get("/self", describeRoute(scansApi.self), async (c) => ok(c, await scanKeySelf(depsOf(c), c.var.scanKey)));
