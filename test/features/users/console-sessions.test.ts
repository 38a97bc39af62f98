import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleSessions } from "../../../src/db/schema";
import { ADMIN, BASE, call, createUser, expectError, expectJson, request, unique, type Credentials, type CreatedUser } from "../../helpers/api";
import { createEvent, createScanKey, createTicketType, db } from "../../helpers/catalogue";
import { fetchWith, startOfWindow } from "../../helpers/limited";

/**
 * The organiser console's sessions (decisions.md 15 "The organiser console", docs/users-and-authentication.md
 * "Console sessions"), tried as an attacker would: fixation, a cookie without or with a wrong CSRF header, another
 * user's token, revoked passwords and users, idle sessions, cross-site forms, the cookie sent outside `/admin`.
 * The suite's requests go to http://ticketing.test (not local): the cookie is `__Host-ticketing-session` there.
 */

const COOKIE = "__Host-ticketing-session";

interface Session {
  cookie: string;
  csrf: string;
  token: string;
  user: { id: number; username: string; name: string; role: string };
}

function signInRequest(body: unknown, options: { url?: string; headers?: Record<string, string> } = {}): Request {
  return new Request(options.url ?? `${BASE}/console/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...options.headers },
    body: JSON.stringify(body),
  });
}

async function signIn(credentials: Credentials): Promise<Session> {
  const res = await exports.default.fetch(signInRequest(credentials));
  const setCookie = res.headers.get("Set-Cookie") ?? "";
  const body = await expectJson(res, 201);
  const token = new RegExp(`^${COOKIE}=([^;]+);`).exec(setCookie)?.[1];
  expect(token, setCookie).toBeDefined();
  return { cookie: `${COOKIE}=${token}`, csrf: body.csrf_token, token: token!, user: body.user };
}

/** A call with the session's cookie, no API key and no Basic credentials; `csrf: null` leaves the header out. */
function withSession(
  method: string,
  path: string,
  session: { cookie: string; csrf: string },
  options: { csrf?: string | null; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { Cookie: session.cookie, ...options.headers };
  const csrf = options.csrf === undefined ? session.csrf : options.csrf;
  if (csrf !== null) headers["X-Ticketing-CSRF"] = csrf;
  return call(method, path, { key: null, auth: null, headers, body: options.body });
}

async function sessionRows(userId: number) {
  return db.select().from(consoleSessions).where(eq(consoleSessions.userId, userId)).all();
}

async function organizerOf(): Promise<{ user: CreatedUser; event: any }> {
  const event = await createEvent({ event_name: unique("Console ") });
  const user = await createUser("organizer", { authorised_events: [event.id] });
  return { user, event };
}

describe("POST /console/session: signing in", () => {
  it("answers 201 with the CSRF token and the user, sets the __Host- cookie, and stores only hashes", async () => {
    const { user } = await organizerOf();
    await expectJson(call("PUT", `/admin/users/${user.id}`, { body: { name: "Olga Organiser" } }), 200);
    const res = await exports.default.fetch(signInRequest(user.credentials));
    const setCookie = res.headers.get("Set-Cookie")!;
    const body = await expectJson(res, 201);
    expect(Object.keys(body).sort()).toEqual(["csrf_token", "user"]);
    expect(body.user).toEqual({ id: user.id, username: user.username, name: "Olga Organiser", role: "organizer" });
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const token = /^__Host-ticketing-session=([A-Za-z0-9]{43}); (.*)$/.exec(setCookie);
    expect(token, setCookie).not.toBeNull();
    expect(token![2]!.split("; ").sort()).toEqual(["HttpOnly", "Path=/", "SameSite=Strict", "Secure"]);
    const rows = await sessionRows(user.id);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token![1]);
    expect(JSON.stringify(rows)).not.toContain(body.csrf_token);
  });

  it("on https the cookie is __Host- and Secure; on http://localhost and http://127.0.0.1 (any port) it is ticketing-session without Secure", async () => {
    const { user } = await organizerOf();
    const https = await exports.default.fetch(signInRequest(user.credentials, { url: "https://tickets.example.org/ticketing/v1/console/session" }));
    expect(https.status).toBe(201);
    expect(https.headers.get("Set-Cookie")).toMatch(/^__Host-ticketing-session=[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    for (const origin of ["http://localhost:8787", "http://127.0.0.1:5173", "http://localhost"]) {
      const res = await exports.default.fetch(signInRequest(user.credentials, { url: `${origin}/ticketing/v1/console/session` }));
      const body = await expectJson(res, 201);
      const setCookie = res.headers.get("Set-Cookie")!;
      expect(setCookie).toMatch(/^ticketing-session=[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
      // The local name works on the local origin, and only there.
      const cookie = setCookie.split(";")[0]!;
      const local = await exports.default.fetch(
        new Request(`${origin}/ticketing/v1/admin/users/${user.id}/application-passwords`, { headers: { Cookie: cookie, "X-Ticketing-CSRF": body.csrf_token } }),
      );
      expect(local.status).toBe(200);
      const elsewhere = await exports.default.fetch(
        new Request(`https://tickets.example.org/ticketing/v1/admin/users/${user.id}/application-passwords`, {
          headers: { Cookie: cookie, "X-Ticketing-CSRF": body.csrf_token },
        }),
      );
      await expectError(elsewhere, 401, "rest_forbidden_api_key");
    }
  });

  it("wrong credentials: 401 incorrect_password without a Basic challenge, no cookie, no session", async () => {
    const { user } = await organizerOf();
    for (const body of [
      { username: user.username, password: "wrong-password-123" },
      { username: unique("nobody"), password: user.credentials.password },
      { username: ADMIN.username, password: user.credentials.password },
    ]) {
      const res = await exports.default.fetch(signInRequest(body));
      expect(res.headers.get("Set-Cookie")).toBeNull();
      expect(res.headers.get("WWW-Authenticate")).toBeNull();
      await expectError(res, 401, "incorrect_password");
    }
    expect(await sessionRows(user.id)).toHaveLength(0);
  });

  it("the body is strict JSON: unknown or missing fields are 400, a form is 415 (no login CSRF from another site)", async () => {
    const { user } = await organizerOf();
    await expectError(exports.default.fetch(signInRequest({ ...user.credentials, remember: true })), 400, "rest_invalid_param");
    await expectError(exports.default.fetch(signInRequest({ username: user.username })), 400, "rest_missing_callback_param");
    await expectError(exports.default.fetch(signInRequest({ username: user.username, password: 5 })), 400, "rest_invalid_param");
    const form = await exports.default.fetch(
      new Request(`${BASE}/console/session`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
        body: new URLSearchParams({ ...user.credentials }).toString(),
      }),
    );
    expect(form.headers.get("Set-Cookie")).toBeNull();
    await expectError(form, 415, "rest_unsupported_media_type");
    // text/plain is the other body a cross-site page may send without a preflight.
    const plain = await exports.default.fetch(
      new Request(`${BASE}/console/session`, {
        method: "POST",
        headers: { "Content-Type": "text/plain", Origin: "https://evil.example" },
        body: JSON.stringify(user.credentials),
      }),
    );
    expect(plain.headers.get("Set-Cookie")).toBeNull();
    await expectError(plain, 415, "rest_unsupported_media_type");
    expect(await sessionRows(user.id)).toHaveLength(0);
  });

  it("needs no API key, and the ADMIN_USERNAME bootstrap administrator signs in like any user", async () => {
    const session = await signIn(ADMIN);
    expect(session.user).toMatchObject({ username: ADMIN.username, role: "administrator" });
    await expectJson(withSession("GET", "/admin/users", session), 200);
  });
});

describe("the session on /admin", () => {
  it("cookie plus X-Ticketing-CSRF act as the user's Basic credentials and the API key: every authority rule applies", async () => {
    const { user, event } = await organizerOf();
    const other = await createEvent({ event_name: unique("Not theirs ") });
    const session = await signIn(user.credentials);
    const got = await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
    expect(got.id).toBe(event.id);
    const type = await expectJson(withSession("POST", `/admin/events/${event.id}/ticket-types`, session, { body: { name: "Regular", price: 10 } }), 201);
    expect(type.name).toBe("Regular");
    // An organizer stays an organizer: not another event, not the users.
    await expectError(call("GET", `/admin/events/${other.id}`, { auth: user.credentials }), 403, "rest_forbidden");
    await expectError(withSession("GET", `/admin/events/${other.id}`, session), 403, "rest_forbidden");
    await expectError(withSession("GET", "/admin/users", session), 403, "rest_forbidden");
    // Its own passwords it may list, as with Basic.
    await expectJson(withSession("GET", `/admin/users/${user.id}/application-passwords`, session), 200);
  });

  it("fixation: a cookie value the client chose is never a session, and signing in issues a new token whatever was sent", async () => {
    const { user, event } = await organizerOf();
    const planted = "A".repeat(43);
    await expectError(withSession("GET", `/admin/events/${event.id}`, { cookie: `${COOKIE}=${planted}`, csrf: "B".repeat(43) }), 401, "rest_not_logged_in");
    const res = await exports.default.fetch(signInRequest(user.credentials, { headers: { Cookie: `${COOKIE}=${planted}` } }));
    const body = await expectJson(res, 201);
    const issued = /^__Host-ticketing-session=([^;]+);/.exec(res.headers.get("Set-Cookie")!)![1]!;
    expect(issued).not.toBe(planted);
    await expectError(withSession("GET", `/admin/events/${event.id}`, { cookie: `${COOKIE}=${planted}`, csrf: body.csrf_token }), 401, "rest_not_logged_in");
    await expectJson(withSession("GET", `/admin/events/${event.id}`, { cookie: `${COOKIE}=${issued}`, csrf: body.csrf_token }), 200);
    // Signing in again gives another token; the first session is not reused.
    const again = await signIn(user.credentials);
    expect(again.token).not.toBe(issued);
    expect(again.csrf).not.toBe(body.csrf_token);
  });

  it("a cookie without the header is 403 rest_forbidden and changes nothing", async () => {
    const { user, event } = await organizerOf();
    const session = await signIn(user.credentials);
    await expectError(withSession("GET", `/admin/events/${event.id}`, session, { csrf: null }), 403, "rest_forbidden");
    await expectError(withSession("DELETE", `/admin/events/${event.id}`, session, { csrf: null }), 403, "rest_forbidden");
    await expectError(withSession("GET", `/admin/events/${event.id}`, session, { csrf: "" }), 403, "rest_forbidden");
    await expectJson(call("GET", `/admin/events/${event.id}`), 200);
  });

  it("a wrong header, or another user's CSRF token with this cookie, is 403 rest_forbidden", async () => {
    const { user, event } = await organizerOf();
    const session = await signIn(user.credentials);
    const otherSession = await signIn((await createUser("administrator")).credentials);
    await expectError(withSession("GET", `/admin/events/${event.id}`, session, { csrf: "not-the-token" }), 403, "rest_forbidden");
    await expectError(withSession("GET", `/admin/events/${event.id}`, session, { csrf: `${session.csrf}x` }), 403, "rest_forbidden");
    await expectError(withSession("GET", "/admin/users", session, { csrf: otherSession.csrf }), 403, "rest_forbidden");
    // Nor does the other user's cookie go with this user's token.
    await expectError(withSession("GET", "/admin/users", otherSession, { csrf: session.csrf }), 403, "rest_forbidden");
    await expectJson(withSession("GET", "/admin/users", otherSession), 200);
  });

  it("a cross-site form post (form content type, no header) is refused and creates nothing", async () => {
    const admin = await createUser("administrator");
    const session = await signIn(admin.credentials);
    const name = unique("Forged ");
    const res = await call("POST", "/admin/events", {
      key: null,
      auth: null,
      headers: { Cookie: session.cookie, "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
      body: new URLSearchParams({ event_name: name }).toString(),
    });
    await expectError(res, 403, "rest_forbidden");
    const events = await expectJson<any[]>(call("GET", `/admin/events?search=${encodeURIComponent(name)}`), 200);
    expect(events.filter((e) => e.event_name === name)).toEqual([]);
  });

  it("with Basic credentials the cookie is not read: wrong Basic credentials stay 401 whatever the session", async () => {
    const { user, event } = await organizerOf();
    const session = await signIn(user.credentials);
    const res = await call("GET", `/admin/events/${event.id}`, {
      auth: { username: user.username, password: "wrong" },
      headers: { Cookie: session.cookie, "X-Ticketing-CSRF": session.csrf },
    });
    await expectError(res, 401, "incorrect_password");
  });

  it("a revoked application password ends the sessions made with it (their rows go in the same statement), and only those", async () => {
    const { user, event } = await organizerOf();
    const second = await expectJson(call("POST", `/admin/users/${user.id}/application-passwords`, { body: { name: "console" } }), 201);
    const withSecond = await signIn({ username: user.username, password: second.application_password });
    const withFirst = await signIn(user.credentials);
    await expectJson(withSession("GET", `/admin/events/${event.id}`, withSecond), 200);
    expect(await sessionRows(user.id)).toHaveLength(2);
    await expectJson(call("DELETE", `/admin/users/${user.id}/application-passwords/${second.uuid}`), 200);
    expect(await sessionRows(user.id)).toHaveLength(1);
    const refused = await withSession("GET", `/admin/events/${event.id}`, withSecond);
    expect(refused.headers.get("WWW-Authenticate")).toBeNull();
    await expectError(refused, 401, "rest_not_logged_in");
    await expectJson(withSession("GET", `/admin/events/${event.id}`, withFirst), 200);
  });

  it("a deleted user's sessions end at once, rows and all", async () => {
    const { user, event } = await organizerOf();
    const session = await signIn(user.credentials);
    await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
    await expectJson(call("DELETE", `/admin/users/${user.id}`), 200);
    expect(await sessionRows(user.id)).toHaveLength(0);
    await expectError(withSession("GET", `/admin/events/${event.id}`, session), 401, "rest_not_logged_in");
  });

  describe("12 hours without use", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("a session idle for 12 hours is over; one used within them goes on", async () => {
      const { user, event } = await organizerOf();
      const session = await signIn(user.credentials);
      const now = Date.now();
      vi.useFakeTimers({ toFake: ["Date"], now: now + (12 * 3600 - 60) * 1000 });
      await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
      // That use counts: 12 hours from the first sign-in, the session lives on.
      await vi.waitFor(async () => expect((await sessionRows(user.id))[0]!.lastUsedAt).toBeGreaterThan(Math.floor(now / 1000) + 12 * 3600 - 120));
      vi.setSystemTime(now + (12 * 3600 + 600) * 1000);
      await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
      // 12 hours and a second after that last use: over.
      const lastUsed = (await sessionRows(user.id))[0]!.lastUsedAt;
      vi.setSystemTime((lastUsed + 12 * 3600 + 1) * 1000);
      await expectError(withSession("GET", `/admin/events/${event.id}`, session), 401, "rest_not_logged_in");
    });

    it("the last use is written at most once a minute, not on every request", async () => {
      const { user, event } = await organizerOf();
      const session = await signIn(user.credentials);
      const [row] = await sessionRows(user.id);
      const earlier = row!.lastUsedAt - 30;
      await db.update(consoleSessions).set({ lastUsedAt: earlier }).where(eq(consoleSessions.id, row!.id));
      for (let i = 0; i < 3; i++) await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
      await new Promise((r) => setTimeout(r, 200));
      expect((await sessionRows(user.id))[0]!.lastUsedAt).toBe(earlier);
      await db
        .update(consoleSessions)
        .set({ lastUsedAt: earlier - 60 })
        .where(eq(consoleSessions.id, row!.id));
      await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
      await vi.waitFor(async () => expect((await sessionRows(user.id))[0]!.lastUsedAt).toBeGreaterThanOrEqual(earlier + 30));
    });

    it("a session whose row says 12 hours and a second ago is refused", async () => {
      const { user, event } = await organizerOf();
      const session = await signIn(user.credentials);
      const [row] = await sessionRows(user.id);
      await db
        .update(consoleSessions)
        .set({ lastUsedAt: Math.floor(Date.now() / 1000) - 12 * 3600 - 1 })
        .where(eq(consoleSessions.id, row!.id));
      await expectError(withSession("GET", `/admin/events/${event.id}`, session), 401, "rest_not_logged_in");
    });
  });

  it("nothing outside /admin accepts the session: /scans, customer routes, the shop behave as without the cookie", async () => {
    const admin = await createUser("administrator");
    const session = await signIn(admin.credentials);
    const event = await createEvent({ event_name: unique("Outside ") });
    await createTicketType(event.id, { name: "Regular" });
    const scanKey = await createScanKey(event.id);
    const cookie = { Cookie: session.cookie, "X-Ticketing-CSRF": session.csrf };
    const both = async (method: string, path: string, options: { body?: unknown; key?: string | null } = {}) => {
      const plain = await call(method, path, { auth: null, key: options.key ?? null, body: options.body });
      const withCookie = await call(method, path, { auth: null, key: options.key ?? null, body: options.body, headers: cookie });
      const [a, b] = [await plain.text(), await withCookie.text()];
      expect(withCookie.status, `${method} ${path}`).toBe(plain.status);
      return { status: plain.status, a, b };
    };
    // Without a key these are refused with and without the cookie.
    expect((await both("GET", `/events/${event.id}/order-form`)).status).toBe(401);
    expect((await both("POST", `/events/${event.id}/orders`, { body: { name: "A", email: "a@example.com", tickets: [] } })).status).toBe(401);
    expect((await both("GET", "/events")).status).toBe(401);
    expect((await both("POST", "/scans", { body: { code: "x" } })).status).toBe(401);
    expect((await both("GET", "/scan-keys/self")).status).toBe(401);
    // A scan key's own routes answer the same with it.
    const self = await both("GET", "/scan-keys/self", { key: scanKey.key as string });
    expect(self.status).toBe(200);
    // The shop page (no key needed) is the same page.
    const shop = await both("GET", `/shop/${event.id}`);
    expect(shop.status).toBe(200);
  });
});

describe("DELETE /console/session: signing out", () => {
  it("deletes the session row and clears the cookie; the cookie is refused afterwards", async () => {
    const { user, event } = await organizerOf();
    const session = await signIn(user.credentials);
    const res = await call("DELETE", "/console/session", { key: null, auth: null, headers: { Cookie: session.cookie, "X-Ticketing-CSRF": session.csrf } });
    expect(res.headers.get("Set-Cookie")).toBe(`${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict; Secure`);
    expect(await expectJson(res, 200)).toEqual({ deleted: true });
    expect(await sessionRows(user.id)).toHaveLength(0);
    await expectError(withSession("GET", `/admin/events/${event.id}`, session), 401, "rest_not_logged_in");
    // Signing out again, or without a session, ends nothing: 401 as for any call without a session.
    await expectError(
      call("DELETE", "/console/session", { key: null, auth: null, headers: { Cookie: session.cookie, "X-Ticketing-CSRF": session.csrf } }),
      401,
      "rest_not_logged_in",
    );
    await expectError(call("DELETE", "/console/session", { key: null, auth: null }), 401, "rest_not_logged_in");
  });

  it("a live session is not signed out without its CSRF header", async () => {
    const { user, event } = await organizerOf();
    const session = await signIn(user.credentials);
    await expectError(call("DELETE", "/console/session", { key: null, auth: null, headers: { Cookie: session.cookie } }), 403, "rest_forbidden");
    await expectError(
      call("DELETE", "/console/session", { key: null, auth: null, headers: { Cookie: session.cookie, "X-Ticketing-CSRF": "wrong" } }),
      403,
      "rest_forbidden",
    );
    await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
  });
});

describe("login limits and logs", () => {
  const send = (req: Request) => fetchWith({ RATE_LIMITS: "on" }, req);

  it("wrong passwords count in the failed-login limits together with Basic auth: then even the right password waits there", { timeout: 90_000 }, async () => {
    const { user } = await organizerOf();
    await startOfWindow();
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}-${unique("console")}`;
    const from = (req: Request) => {
      req.headers.set("CF-Connecting-IP", address);
      return req;
    };
    const wrongConsole = () => from(signInRequest({ username: user.username, password: "wrong" }));
    const wrongBasic = () => from(request("GET", "/admin/events", { auth: { username: user.username, password: "wrong" } }));
    for (let i = 0; i < 5; i++) expect((await send(wrongConsole())).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await send(wrongBasic())).status).toBe(401);
    const refused = await send(wrongConsole());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    const right = await send(from(signInRequest(user.credentials)));
    expect(right.status).toBe(429);
    expect(right.headers.get("Set-Cookie")).toBeNull();
    // Another address is not held back.
    const elsewhere = signInRequest(user.credentials);
    elsewhere.headers.set("CF-Connecting-IP", `192.0.2.77-${unique("office")}`);
    expect((await send(elsewhere)).status).toBe(201);
  });

  it("no secret in the logs: neither the password, the session token nor the CSRF token", async () => {
    const lines: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(" "));
      });
    }
    try {
      const { user, event } = await organizerOf();
      const session = await signIn(user.credentials);
      await expectJson(withSession("GET", `/admin/events/${event.id}`, session), 200);
      await expectError(withSession("GET", `/admin/events/${event.id}`, session, { csrf: "wrong-csrf-token" }), 403, "rest_forbidden");
      await expectError(exports.default.fetch(signInRequest({ username: user.username, password: "wrong-secret-attempt" })), 401, "incorrect_password");
      await call("DELETE", "/console/session", { key: null, auth: null, headers: { Cookie: session.cookie, "X-Ticketing-CSRF": session.csrf } });
      await new Promise((r) => setTimeout(r, 100));
      const all = lines.join("\n");
      expect(all).toContain('"route"'); // the access log did write
      for (const secret of [user.credentials.password, session.token, session.csrf, "wrong-csrf-token", "wrong-secret-attempt"]) expect(all).not.toContain(secret);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
