import { Hono } from "hono";
import { depsOf } from "../../http/deps";
import { ok } from "../../http/respond";
import { scanRateLimit } from "../../http/rate-limits";
import { requireScanKey, type ScanKeyEnv } from "./scan-key.middleware";
import { createBody, keyParam, pathParams, query } from "../../http/validate";
import { revokedQuery, scanBody, scansApi } from "./scans.schema";
import { describeRoute } from "../../http/route-docs";
import { publicKeys, revokedSince, scanTicket, ticketScansFor, validTicketsFor } from "./ticket-scans.service";

/** Public scans (spec "Public scans"; decisions.md 6, 13): a scan key in `X-EVT-API-KEY`, no service key. */
export const scansRoutes = new Hono<ScanKeyEnv>()
  .use("*", scanRateLimit, requireScanKey)

  .post("/", describeRoute(scansApi.scan), createBody(scanBody), async (c) => ok(c, await scanTicket(depsOf(c), c.var.scanKey, c.req.valid("json").id)))

  .get("/revoked", describeRoute(scansApi.revoked), query(revokedQuery), async (c) => ok(c, await revokedSince(depsOf(c), c.var.scanKey, c.req.valid("query").since)))

  .get("/tickets", describeRoute(scansApi.valid), async (c) => ok(c, await validTicketsFor(depsOf(c), c.var.scanKey)))

  .get("/:ticket_id", describeRoute(scansApi.ticket), pathParams({ ticket_id: keyParam("ticket") }), async (c) =>
    ok(c, await ticketScansFor(depsOf(c), c.var.scanKey, c.req.valid("param").ticket_id)),
  );

/** `GET /scan-keys/public-keys` (any scan key): the Ed25519 keys that verify signed ticket codes. */
export const scanKeyPublicKeysRoutes = new Hono<ScanKeyEnv>()
  .use("*", scanRateLimit, requireScanKey)
  .get("/public-keys", describeRoute(scansApi.publicKeys), (c) => ok(c, publicKeys(depsOf(c))));
