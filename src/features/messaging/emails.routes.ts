import { Hono } from "hono";
import { eq } from "drizzle-orm";
import { emails } from "../../db/schema";
import { requireAdministrator } from "../../http/require-administrator";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { invalidId } from "../../domain/errors";
import { setPagingHeaders } from "../../http/paging";
import { ok, page } from "../../http/respond";
import { pathId, query } from "../../http/validate";
import { listEmailsQuery, presentEmail, emailsApi } from "./emails.schema";
import { listEmails } from "./emails.service";

/** `/admin/emails`: the outbox (decisions.md 9 and 13), for administrators. */
export const emailsRoutes = new Hono<AppEnv>()
  .use(requireAdministrator)

  .get("/", describeRoute(emailsApi.list), query(listEmailsQuery), async (c) => {
    const deps = depsOf(c);
    const q = c.req.valid("query");
    const { rows, total } = await listEmails(deps, q);
    setPagingHeaders(c, total, q);
    return page(
      c,
      rows.map((e) => presentEmail(c, e, deps.config.timezone)),
    );
  })

  .get("/:id", describeRoute(emailsApi.get), pathId("email"), async (c) => {
    const deps = depsOf(c);
    const row = await deps.db
      .select()
      .from(emails)
      .where(eq(emails.id, c.req.valid("param").id))
      .get();
    if (!row) throw invalidId("email");
    return ok(c, presentEmail(c, row, deps.config.timezone));
  });
