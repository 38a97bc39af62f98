import { Hono } from "hono";
import { depsOf } from "../http/deps";
import { ok } from "../http/respond";
import { requireScanKey, type ScanKeyEnv } from "../http/scan-key";
import { createBody, keyParam, pathParams } from "../http/validate";
import { scanBody } from "../schemas/scans.schema";
import { scanTicket, ticketScansFor } from "../services/ticket-scans.service";

/** Public scans (spec "Public scans"; decisions.md 6, 13): a scan key in `X-EVT-API-KEY`, no service key. */
export const scansRoutes = new Hono<ScanKeyEnv>()
  .use("*", requireScanKey)

  .post("/", createBody(scanBody), async (c) => ok(c, await scanTicket(depsOf(c), c.var.scanKey, c.req.valid("json").id)))

  .get("/:ticket_id", pathParams({ ticket_id: keyParam("ticket") }), async (c) =>
    ok(c, await ticketScansFor(depsOf(c), c.var.scanKey, c.req.valid("param").ticket_id)),
  );
