import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { withoutLinks } from "../../http/links";
import { deleted, ok, page } from "../../http/respond";
import { pathId } from "../../http/validate";
import { presentLog, logsApi } from "./logs.schema";
import { deleteLog, getLogFor, listLogs, listOrderLogs } from "./logs.service";

/** `/admin/logs` (spec: Error logs): the newest 1000 entries, `X-WP-Total` counting them all. */
export const logsRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(logsApi.list), async (c) => {
    const deps = depsOf(c);
    const { rows, total } = await listLogs(deps, c.var.user);
    c.header("X-WP-Total", String(total));
    c.header("X-WP-TotalPages", "1");
    return page(
      c,
      rows.map((r) => presentLog(c, r, deps.config.timezone)),
    );
  })

  .get("/order/:id", describeRoute(logsApi.ofOrder), pathId("order"), async (c) => {
    const deps = depsOf(c);
    const { rows, total } = await listOrderLogs(deps, c.var.user, c.req.valid("param").id);
    c.header("X-WP-Total", String(total));
    c.header("X-WP-TotalPages", "1");
    return page(
      c,
      rows.map((r) => presentLog(c, r, deps.config.timezone)),
    );
  })

  /** Not in the spec's table; it makes the entries' `self` links answer. */
  .get("/:id", describeRoute(logsApi.get), pathId("log"), async (c) => {
    const deps = depsOf(c);
    return ok(c, presentLog(c, await getLogFor(deps, c.var.user, c.req.valid("param").id), deps.config.timezone));
  })

  .delete("/:id", describeRoute(logsApi.delete), pathId("log"), async (c) => {
    const deps = depsOf(c);
    const entry = await getLogFor(deps, c.var.user, c.req.valid("param").id);
    await deleteLog(deps, entry);
    return deleted(c, withoutLinks(presentLog(c, entry, deps.config.timezone)));
  });
