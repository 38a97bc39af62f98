import type { MiddlewareHandler } from "hono";
import { matchesAnySecret } from "../../lib/crypto";
import { authenticate } from "./auth.service";
import { parseBasicCredentials } from "../../http/basic-credentials";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { incorrectPassword, invalidApiKey, notLoggedIn } from "../../domain/errors";
import { assertLoginAllowed, clientAddress, countFailedLogin } from "../../http/rate-limits";

/** `X-EVT-API-KEY` must be the service key (`API_KEY`, or `API_KEY_NEXT` while rotating). */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sent = c.req.header("X-EVT-API-KEY");
  if (!sent || !(await matchesAnySecret(sent, depsOf(c).config.apiKeys))) throw invalidApiKey();
  await next();
};

/** HTTP Basic with a username (or email) and an application password; sets `user`. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const credentials = parseBasicCredentials(c.req.header("Authorization"));
  if (!credentials) throw notLoggedIn();
  const address = clientAddress(c);
  assertLoginAllowed(c.env, address, credentials.username);
  const user = await authenticate(depsOf(c), credentials.username, credentials.password);
  if (!user) {
    await countFailedLogin(c.env, address, credentials.username);
    throw incorrectPassword();
  }
  c.set("user", user);
  await next();
};
