import { Hono } from "hono";
import { requireAdministrator } from "../../http/require-administrator";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { withoutLinks } from "../../http/links";
import { collection, created, deleted, ok } from "../../http/respond";
import { assertReadOnlyUnchanged, createBody, pathId, updateBody } from "../../http/validate";
import {
  applicationPasswordBody,
  createUserBody,
  presentUser,
  toNewUser,
  toUserChanges,
  updateUserBody,
  USER_CREATE_READ_ONLY,
  USER_UPDATE_READ_ONLY,
  usersApi,
} from "./users.schema";
import { addApplicationPassword, createUser, deleteUser, getUser, listUsers, updateUser } from "./users.service";

/**
 * `/admin/users`: administrators only (decisions.md sections 2, 12 and 13). Listing and revoking application
 * passwords, which an organiser may do for itself (section 14), are `applicationPasswordsRoutes`, mounted before.
 */
export const usersRoutes = new Hono<AppEnv>()
  .use(requireAdministrator)

  .get("/", describeRoute(usersApi.list), async (c) => {
    const deps = depsOf(c);
    const users = await listUsers(deps);
    return collection(
      c,
      users.map((u) => presentUser(c, u, deps.config.timezone)),
    );
  })

  .post("/", describeRoute(usersApi.create), createBody(createUserBody, USER_CREATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const { user, password } = await createUser(deps, toNewUser(c.req.valid("json")));
    return created(c, { ...presentUser(c, user, deps.config.timezone), application_password: password }, `/admin/users/${user.id}`);
  })

  .get("/:id", describeRoute(usersApi.get), pathId("user"), async (c) => {
    const deps = depsOf(c);
    return ok(c, presentUser(c, await getUser(deps, c.req.valid("param").id), deps.config.timezone));
  })

  .put("/:id", describeRoute(usersApi.update), pathId("user"), updateBody(updateUserBody, USER_UPDATE_READ_ONLY), async (c) => {
    const deps = depsOf(c);
    const { patch, readOnlySent } = c.req.valid("json");
    const current = await getUser(deps, c.req.valid("param").id);
    assertReadOnlyUnchanged(readOnlySent, presentUser(c, current, deps.config.timezone));
    const updated = await updateUser(deps, current, toUserChanges(patch));
    return ok(c, presentUser(c, updated, deps.config.timezone));
  })

  .delete("/:id", describeRoute(usersApi.delete), pathId("user"), async (c) => {
    const deps = depsOf(c);
    const previous = await deleteUser(deps, c.req.valid("param").id);
    return deleted(c, withoutLinks(presentUser(c, previous, deps.config.timezone)));
  })

  .post("/:id/application-passwords", describeRoute(usersApi.addPassword), pathId("user"), createBody(applicationPasswordBody), async (c) => {
    const id = c.req.valid("param").id;
    const { password, uuid } = await addApplicationPassword(depsOf(c), id, c.req.valid("json").name);
    return created(c, { application_password: password, uuid }, `/admin/users/${id}`);
  });
