import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { clearedSessionCookie, sessionCookie, sessionCookieOf } from "../../http/console-cookie";
import { depsOf } from "../../http/deps";
import { assertLoginAllowed, clientAddress, countFailedLogin } from "../../http/rate-limits";
import { created, deleted } from "../../http/respond";
import { describeRoute } from "../../http/route-docs";
import { createBody } from "../../http/validate";
import { consoleIncorrectPassword, consoleSessionEnded, forbidden } from "../../domain/errors";
import { signIn } from "./auth.service";
import { consoleSessionApi, signInBody } from "./console-session.schema";
import { closeSession, csrfMatches, findSession, openSession } from "./console-sessions.service";

/**
 * `/console/session` (decisions.md 15 "The organiser console"): sign in and out of the console. Mounted before the
 * API key: the application password is the credential. The body is JSON only, so a cross-site form cannot sign a
 * browser in to someone else's account (a form cannot send `application/json` without the page's consent).
 */
export const consoleSessionRoutes = new Hono<AppEnv>()
  .post("/", describeRoute(consoleSessionApi.signIn), createBody(signInBody), async (c) => {
    const deps = depsOf(c);
    const { username, password } = c.req.valid("json");
    // The same failed-login limits as Basic auth (decisions.md 14): the same keys, so both count together.
    const address = clientAddress(c);
    assertLoginAllowed(c.env, address, username);
    const signedIn = await signIn(deps, username, password);
    if (!signedIn) {
      await countFailedLogin(c.env, address, username);
      throw consoleIncorrectPassword();
    }
    const { token, csrfToken } = await openSession(deps, signedIn);
    const { user } = signedIn;
    c.header("Set-Cookie", sessionCookie(c.req.url, token));
    c.header("Cache-Control", "no-store");
    return created(c, { csrf_token: csrfToken, user: { id: user.id, username: user.username, name: user.name, role: user.role } }, "/console/session");
  })

  .delete("/", describeRoute(consoleSessionApi.signOut), async (c) => {
    const deps = depsOf(c);
    const token = sessionCookieOf(c.req.url, c.req.header("Cookie"));
    const session = token === undefined ? undefined : await findSession(deps, token);
    // Signing out is a write like any other: without a live session there is nothing to end (decisions.md 3).
    if (!session) throw consoleSessionEnded();
    // Signing someone out is an action too: the CSRF header proves the console's own page asked.
    if (!(await csrfMatches(session, c.req.header("X-Ticketing-CSRF")))) throw forbidden();
    await closeSession(deps, session);
    c.header("Set-Cookie", clearedSessionCookie(c.req.url));
    return deleted(c);
  });
