import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import pkg from "../package.json";
import worker from "../src/index";
import { BASE, call, expectError, expectJson, ORIGIN, request } from "./helpers/api";
import { expectLogged } from "./helpers/logs";

describe("GET /ticketing/v1", () => {
  it("names the service and its version, without a key", async () => {
    expect(await expectJson(call("GET", "", { key: null, auth: null }), 200)).toEqual({ name: pkg.name, version: pkg.version });
  });
});

describe("GET /ticketing/v1/health", () => {
  it("answers ok without a key", async () => {
    expect(await expectJson(call("GET", "/health", { key: null, auth: null }), 200)).toEqual({ status: "ok" });
  });

  /** Health under another deployment's settings (no key, and it needs no D1). */
  const healthWith = (overrides: Record<string, unknown>) => {
    const settings: Record<string, unknown> = { DB: undefined, ...overrides };
    return worker.fetch(request("GET", "/health", { key: null, auth: null }), { ...env, ...settings } as typeof env, createExecutionContext());
  };

  it("answers 503 misconfigured naming a missing PAYMENT_PROVIDER, and logs it, never a value", async () => {
    const logged = expectLogged("error", /"msg":"incomplete configuration/);
    const res = await healthWith({ PAYMENT_PROVIDER: undefined, API_KEY: "health-check-secret-value" });
    expect(await expectJson(res, 503)).toStrictEqual({ status: "misconfigured", settings: ["PAYMENT_PROVIDER"] });
    expect(logged.lines.some((l) => l.includes("PAYMENT_PROVIDER"))).toBe(true);
    expect(logged.all.join("\n")).not.toContain("health-check-secret-value");
  });

  it("answers 503 misconfigured naming every invalid or missing setting, by name only", async () => {
    const logged = expectLogged("error", /"msg":"invalid configuration"/);
    const res = await healthWith({ PASSWORD_PEPPER: undefined, TIMEZONE: "Mars/Olympus", PAYMENT_PROVIDER: "paypal" });
    const body = await expectJson(res, 503);
    expect(body.status).toBe("misconfigured");
    expect([...body.settings].sort()).toEqual(["PASSWORD_PEPPER", "PAYMENT_PROVIDER", "TIMEZONE"]);
    expect(JSON.stringify(body)).not.toContain("Mars");
    expect(logged.lines).toHaveLength(1);
    expect(JSON.parse(logged.lines[0] ?? "{}").settings).toEqual(["PASSWORD_PEPPER", "TIMEZONE", "PAYMENT_PROVIDER"]);
    expect(logged.all.join("\n")).not.toContain("Mars");
  });

  it("answers 503 misconfigured naming PUBLIC_URL for a deployment without it (decisions.md 15), ok once it is set", async () => {
    // A deployment is anything but local development and the tests, which alone set ALLOW_HTTP_OUTBOUND (config.ts).
    const deployed = { ALLOW_HTTP_OUTBOUND: undefined, PAYMENT_PROVIDER: "test" };
    const logged = expectLogged("error", /"msg":"incomplete configuration/);
    expect(await expectJson(healthWith({ ...deployed, PUBLIC_URL: undefined }), 503)).toStrictEqual({ status: "misconfigured", settings: ["PUBLIC_URL"] });
    expect(await expectJson(healthWith({ ...deployed, PUBLIC_URL: "" }), 503)).toStrictEqual({ status: "misconfigured", settings: ["PUBLIC_URL"] });
    expect(await expectJson(healthWith({ ...deployed, PUBLIC_URL: "https://tickets.example.com" }), 200)).toEqual({ status: "ok" });
    // Local development: the request's host is the link base, nothing is missing.
    expect(await expectJson(healthWith({ ALLOW_HTTP_OUTBOUND: "true", PUBLIC_URL: undefined }), 200)).toEqual({ status: "ok" });
    expect(logged.lines.map((l) => JSON.parse(l).settings)).toEqual([["PUBLIC_URL"], ["PUBLIC_URL"]]);
  });

  it("answers ok with PAYMENT_PROVIDER=test chosen explicitly", async () => {
    expect(await expectJson(healthWith({ PAYMENT_PROVIDER: "test" }), 200)).toEqual({ status: "ok" });
  });
});

describe("X-Request-Id", () => {
  it("echoes a sane incoming id on success and on error", async () => {
    const ok = await call("GET", "/health", { headers: { "X-Request-Id": "trace-123.abc:def" } });
    expect(ok.headers.get("X-Request-Id")).toBe("trace-123.abc:def");
    const err = await call("GET", "/admin/users", { key: null, headers: { "X-Request-Id": "trace-456" } });
    expect(err.status).toBe(401);
    expect(err.headers.get("X-Request-Id")).toBe("trace-456");
  });

  it("generates one when none, or an unsafe one, is sent", async () => {
    for (const headers of [{}, { "X-Request-Id": "has spaces and <html>" }, { "X-Request-Id": "x".repeat(129) }] as Record<string, string>[]) {
      const res = await call("GET", "/health", { headers });
      expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const a = await call("GET", "/health");
    const b = await call("GET", "/health");
    expect(a.headers.get("X-Request-Id")).not.toBe(b.headers.get("X-Request-Id"));
  });

  it("is present on routes outside the API too", async () => {
    const res = await exports.default.fetch(`${ORIGIN}/elsewhere`);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    await expectError(res, 404, "rest_no_route");
  });
});

describe("body limits", () => {
  const big = JSON.stringify({ name: "x".repeat(1024 * 1024) });

  it("refuses a JSON body over 1 MiB with 413", async () => {
    await expectError(call("POST", "/admin/users", { body: big }), 413, "rest_payload_too_large");
  });

  it("counts a streamed body without Content-Length too", async () => {
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
        controller.close();
      },
    });
    const res = await exports.default.fetch(`${BASE}/admin/users`, {
      method: "POST",
      headers: { "X-EVT-API-KEY": "test-api-key", "Content-Type": "application/json" },
      body: stream,
    });
    await expectError(res, 413, "rest_payload_too_large");
  });

  it("refuses a multipart upload over 10 MiB with 413", async () => {
    const res = await call("POST", "/admin/users", {
      body: "x".repeat(10 * 1024 * 1024 + 1),
      headers: { "Content-Type": "multipart/form-data; boundary=b" },
    });
    await expectError(res, 413, "rest_payload_too_large");
  });
});
