import type { MiddlewareHandler } from "hono";
import { assertAdministrator } from "../domain/authority";
import type { AppEnv } from "./context";
import { documented } from "./route-docs";

/** After requireUser (features/users): only administrators go on; it reads the signed-in user and nothing else. */
export const requireAdministrator: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    assertAdministrator(c.var.user);
    await next();
  },
  { errors: { "403": "`rest_forbidden`: administrators only." } },
);
