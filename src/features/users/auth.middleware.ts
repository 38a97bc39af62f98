import type { MiddlewareHandler } from "hono";
import { matchesAnySecret } from "../../lib/crypto";
import { authenticate } from "./auth.service";
import { parseBasicCredentials } from "../../http/basic-credentials";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { documented } from "../../http/route-docs";
import { incorrectPassword, invalidApiKey, notLoggedIn } from "../../domain/errors";
import { assertLoginAllowed, clientAddress, countFailedLogin } from "../../http/rate-limits";

/** `X-EVT-API-KEY` must be the service key (`API_KEY`, or `API_KEY_NEXT` while rotating). */
export const requireApiKey: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    const sent = c.req.header("X-EVT-API-KEY");
    if (!sent || !(await matchesAnySecret(sent, depsOf(c).config.apiKeys))) throw invalidApiKey();
    await next();
  },
  { errors: { "401": "`rest_forbidden_api_key`: `X-EVT-API-KEY` is missing or is not the service key." } },
);

/** HTTP Basic with a username (or email) and an application password; sets `user`. */
export const requireUser: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
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
  },
  {
    errors: {
      "401": "`rest_not_logged_in` (no Basic credentials) or `incorrect_password` (an unknown user or a wrong application password), with `WWW-Authenticate`.",
      "403": "`rest_forbidden`: the user may not do this; an organizer reaches only the events it is authorised for (and what belongs to them).",
      "429": "`rest_too_many_requests` with `Retry-After`: too many failed logins from this address, or for this username from it.",
    },
    errorHeaders: { "401": ["WWW-Authenticate"], "429": ["Retry-After"] },
  },
);
