import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { collection, deleted } from "../../http/respond";
import { numericParam, pathId, pathParams } from "../../http/validate";
import { presentApplicationPassword, usersApi } from "./users.schema";
import { assertSelfOrAdministrator } from "../../domain/authority";
import { listApplicationPasswords, revokeApplicationPassword } from "./users.service";

/**
 * A uuid is not checked for shape: whatever cannot name a password of the user is not found, the same 404 as an
 * unknown one (as string ids are elsewhere).
 */
const passwordParams = pathParams({ id: numericParam("user"), uuid: { resource: "application_password", schema: z.string() } });

/**
 * `/admin/users/<id>/application-passwords` (decisions.md 14): list and revoke. Unlike the other users routes an
 * organiser reaches these, for its own id only (403 for anyone else's, whether that user exists or not).
 */
export const applicationPasswordsRoutes = new Hono<AppEnv>()
  .get("/:id/application-passwords", describeRoute(usersApi.listPasswords), pathId("user"), async (c) => {
    const id = c.req.valid("param").id;
    assertSelfOrAdministrator(c.var.user, id);
    const deps = depsOf(c);
    const rows = await listApplicationPasswords(deps, id);
    return collection(
      c,
      rows.map((p) => presentApplicationPassword(p, deps.config.timezone)),
    );
  })

  .delete("/:id/application-passwords/:uuid", describeRoute(usersApi.revokePassword), passwordParams, async (c) => {
    const { id, uuid } = c.req.valid("param");
    assertSelfOrAdministrator(c.var.user, id);
    const deps = depsOf(c);
    return deleted(c, presentApplicationPassword(await revokeApplicationPassword(deps, id, uuid), deps.config.timezone));
  });
