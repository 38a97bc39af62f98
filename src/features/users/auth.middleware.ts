import type { MiddlewareHandler } from "hono";
import { matchesAnySecret } from "../../lib/crypto";
import { authenticate, toAuthUser } from "./auth.service";
import { csrfMatches, findSession } from "./console-sessions.service";
import { sessionCookieOf } from "../../http/console-cookie";
import { parseBasicCredentials } from "../../http/basic-credentials";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { documented } from "../../http/route-docs";
import { consoleSessionEnded, forbidden, incorrectPassword, invalidApiKey, notLoggedIn } from "../../domain/errors";
import { assertLoginAllowed, clientAddress, countFailedLogin } from "../../http/rate-limits";

/** `X-EVT-API-KEY` must be the service key (`API_KEY`, or `API_KEY_NEXT` while rotating). */
export const requireApiKey: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    if (c.var.consoleSession) return next(); // the session stands for the key (decisions.md 15)
    const sent = c.req.header("X-EVT-API-KEY");
    if (!sent || !(await matchesAnySecret(sent, depsOf(c).config.apiKeys))) throw invalidApiKey();
    await next();
  },
  { errors: { "401": "`rest_forbidden_api_key`: `X-EVT-API-KEY` is missing or is not the service key." } },
);

/** HTTP Basic with a username (or email) and an application password; sets `user`. */
export const requireUser: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    if (c.var.consoleSession) return next(); // the session already set its user
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

/**
 * The organiser console's session, mounted on `/admin` only and before the API key (decisions.md 15 "The organiser
 * console"): the session cookie plus `X-Ticketing-CSRF` stand for the user's Basic credentials and the API key, so
 * every authority rule after this applies unchanged. A cookie without the header, or with a wrong one, is refused
 * (`403`): that is how a cross-site form or link that carried the cookie would look. A request with an
 * `Authorization` header is Basic auth's alone and the cookie is not read: the session adds nothing to it.
 */
export const consoleSession: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    if (c.req.header("Authorization") !== undefined) return next();
    const token = sessionCookieOf(c.req.url, c.req.header("Cookie"));
    if (token === undefined) return next();
    const sentCsrf = c.req.header("X-Ticketing-CSRF");
    if (!sentCsrf) throw forbidden();
    const session = await findSession(depsOf(c), token);
    if (!session) throw consoleSessionEnded();
    if (!(await csrfMatches(session, sentCsrf))) throw forbidden();
    c.set("user", toAuthUser(session.user));
    c.set("consoleSession", true);
    await next();
  },
  {
    errors: {
      "401": "`rest_not_logged_in`: the console session cookie names no live session (signed out, idle for 12 hours, or its user or application password revoked).",
      "403": "`rest_forbidden`: a console session cookie without `X-Ticketing-CSRF`, or with another token than the session's.",
    },
  },
);
