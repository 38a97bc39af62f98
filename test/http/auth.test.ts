import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN, call, createUser, expectError, expectJson, request } from "../helpers/api";
import { expectLogged } from "../helpers/logs";

/** Calls the worker with some settings changed, as another deployment would be configured. */
async function callWith(overrides: Record<string, unknown>, req: Request): Promise<Response> {
  return worker.fetch(req, { ...env, ...overrides } as typeof env, createExecutionContext());
}

describe("the API key", () => {
  it("is required on every non-public path, before anything else", async () => {
    await expectError(call("GET", "/admin/users", { key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", "/admin/users", { key: "wrong" }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", "/admin/users", { key: "", auth: null }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", "/no/such/route", { key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", "/admin/users", { key: "TEST-API-KEY" }), 401, "rest_forbidden_api_key");
  });

  it("accepts API_KEY_NEXT beside API_KEY while the key is rotated", async () => {
    const rotating = { API_KEY_NEXT: "the-next-api-key" };
    await expectJson(callWith(rotating, request("GET", "/admin/users", { key: "the-next-api-key" })), 200);
    await expectJson(callWith(rotating, request("GET", "/admin/users")), 200);
    await expectError(call("GET", "/admin/users", { key: "the-next-api-key" }), 401, "rest_forbidden_api_key");
  });

  it("is not needed, nor checked, on the public routes", async () => {
    for (const path of ["", "/health"]) {
      expect((await call("GET", path, { key: null, auth: null })).status).toBe(200);
      expect((await call("GET", path, { key: "wrong", auth: null })).status).toBe(200);
    }
  });
});

describe("Basic authentication on /admin", () => {
  it("answers 401 rest_not_logged_in with a challenge when credentials are missing or malformed", async () => {
    const malformed = [undefined, "Bearer abc", "Basic", "Basic !!!", `Basic ${btoa("no-colon")}`, `Basic ${btoa(":pw")}`, `Basic ${btoa("user:")}`];
    for (const authorization of malformed) {
      const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
      const res = await call("GET", "/admin/users", { auth: null, headers });
      expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
      await expectError(res, 401, "rest_not_logged_in");
    }
  });

  it("answers the same 401 incorrect_password for an unknown user and for a wrong password", async () => {
    const user = await createUser("organizer");
    const unknown = await call("GET", "/admin/users", { auth: { username: "nobody-at-all", password: user.credentials.password } });
    const wrong = await call("GET", "/admin/users", { auth: { username: user.username, password: "x".repeat(24) } });
    expect(unknown.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
    const a = await expectError(unknown, 401, "incorrect_password");
    const b = await expectError(wrong, 401, "incorrect_password");
    expect(a).toEqual(b);
  });

  it("refuses another user's password", async () => {
    const a = await createUser("administrator");
    const b = await createUser("administrator");
    const auth = { username: a.username, password: b.credentials.password };
    await expectError(call("GET", "/admin/users", { auth }), 401, "incorrect_password");
  });

  it("takes the email as username, letters in any case, and ignores spaces in the password", async () => {
    const user = await createUser("administrator");
    const { password } = user.credentials;
    const grouped = password.match(/.{1,4}/g)!.join(" ");
    for (const auth of [
      { username: user.email, password },
      { username: user.username.toUpperCase(), password },
      { username: user.username, password: grouped },
    ]) {
      await expectJson(call("GET", "/admin/users", { auth }), 200);
    }
  });

  it("needs the API key as well as the credentials", async () => {
    await expectError(call("GET", "/admin/users", { key: null, auth: ADMIN }), 401, "rest_forbidden_api_key");
  });

  it("answers rest_no_route for an unknown path or method once the caller is authenticated", async () => {
    await expectError(call("GET", "/admin/nothing-here"), 404, "rest_no_route");
    await expectError(call("PATCH", "/admin/users"), 404, "rest_no_route");
    await expectError(call("GET", "/unknown"), 404, "rest_no_route");
  });
});

describe("the bootstrap administrator", () => {
  it("is created on the first call with ADMIN_USERNAME and ADMIN_PASSWORD, once, even when first calls race", async () => {
    const config = { ADMIN_USERNAME: "root-admin", ADMIN_PASSWORD: "root admin password", ADMIN_EMAIL: "root@example.com" };
    const auth = { username: "root-admin", password: "root admin password" };
    const responses = await Promise.all(Array.from({ length: 8 }, () => callWith(config, request("GET", "/admin/users", { auth }))));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    const users = await expectJson<any[]>(call("GET", "/admin/users"), 200);
    const created = users.filter((u) => u.username === "root-admin");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ role: "administrator", email: "root@example.com" });
  });

  it("is not created from a wrong password or another username", async () => {
    const config = { ADMIN_USERNAME: "second-root", ADMIN_PASSWORD: "second root password" };
    const guesses = [
      { username: "second-root", password: "guess" },
      { username: "someone", password: "second root password" },
    ];
    for (const auth of guesses) {
      await expectError(callWith(config, request("GET", "/admin/users", { auth })), 401, "incorrect_password");
    }
    const users = await expectJson<any[]>(call("GET", "/admin/users"), 200);
    expect(users.some((u) => u.username === "second-root")).toBe(false);
  });

  it("is not recreated while a user of that name exists", async () => {
    const existing = await createUser("organizer");
    const config = { ADMIN_USERNAME: existing.username, ADMIN_PASSWORD: "taken name password" };
    const auth = { username: existing.username, password: "taken name password" };
    await expectError(callWith(config, request("GET", "/admin/users", { auth })), 401, "incorrect_password");
  });
});

describe("misconfiguration", () => {
  it("answers 500 in the envelope, without details, when a required secret is missing", async () => {
    const logged = expectLogged("error", /"msg":"invalid configuration"/);
    const res = await callWith({ PASSWORD_PEPPER: undefined }, request("GET", "/admin/users", { auth: { username: "x", password: "y" } }));
    const body = await expectError(res, 500, "rest_internal_error");
    expect(JSON.stringify(body)).not.toMatch(/PEPPER|stack|at /);
    expect(logged.lines.map((l) => JSON.parse(l).settings)).toEqual([["PASSWORD_PEPPER"]]);
  });

  it("still answers health, which needs no D1, as 503 misconfigured naming the setting (decisions.md 14)", async () => {
    const logged = expectLogged("error", /"msg":"invalid configuration"/);
    const res = await callWith({ PASSWORD_PEPPER: undefined, DB: undefined }, request("GET", "/health", { key: null, auth: null }));
    expect(await expectJson(res, 503)).toEqual({ status: "misconfigured", settings: ["PASSWORD_PEPPER"] });
    expect(logged.lines.map((l) => JSON.parse(l).settings)).toEqual([["PASSWORD_PEPPER"]]);
  });
});
