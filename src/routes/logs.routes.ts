import { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { depsOf } from "../http/deps";
import { withoutLinks } from "../http/links";
import { deleted, page } from "../http/respond";
import { pathId } from "../http/validate";
import { presentLog } from "../schemas/logs.schema";
import { assertOrderVisible, deleteLog, getLogFor, listLogs } from "../services/logs.service";

/** `/admin/logs` (spec: Error logs): the newest 1000 entries, `X-WP-Total` counting them all. */
export const logsRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const deps = depsOf(c);
    const { rows, total } = await listLogs(deps, c.var.user);
    c.header("X-WP-Total", String(total));
    c.header("X-WP-TotalPages", "1");
    return page(c, rows.map((r) => presentLog(c, r, deps.config.timezone)));
  })

  .get("/order/:id", pathId("order"), async (c) => {
    const deps = depsOf(c);
    const orderId = c.req.valid("param").id;
    await assertOrderVisible(deps, c.var.user, orderId);
    const { rows, total } = await listLogs(deps, c.var.user, orderId);
    c.header("X-WP-Total", String(total));
    c.header("X-WP-TotalPages", "1");
    return page(c, rows.map((r) => presentLog(c, r, deps.config.timezone)));
  })

  .delete("/:id", pathId("log"), async (c) => {
    const deps = depsOf(c);
    const entry = await getLogFor(deps, c.var.user, c.req.valid("param").id);
    await deleteLog(deps, entry);
    return deleted(c, withoutLinks(presentLog(c, entry, deps.config.timezone)));
  });
