import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN, request, unique } from "../helpers/api";
import { createEvent, createScanKey, createTicketType } from "../helpers/catalogue";

/**
 * Rate limits (issue 12): the real rate-limiting bindings of wrangler.toml (30 customer orders a minute per address,
 * 600 scans a minute per scan key, 10 failed logins a minute per address and per username), turned on here with
 * RATE_LIMITS=on (the rest of the suite runs with them off). Windows turn with the wall clock's minute, so each test
 * starts early in a minute.
 */

const limited = { ...env, RATE_LIMITS: "on" } as typeof env;

async function send(req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, limited, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** Waits, when needed, so the test's requests all fall in one minute window. */
async function startOfWindow(): Promise<void> {
  const second = Math.floor(Date.now() / 1000) % 60;
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

async function expectLimited(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await res.json()).toEqual({ code: "rest_rate_limited", message: "Too many requests; try again later.", data: { status: 429 } });
}

const withAddress = (req: Request, address: string) => {
  req.headers.set("CF-Connecting-IP", address);
  return req;
};

describe("rate limits", () => {
  it("customer orders: 30 a minute per client address, then 429 with Retry-After; another address is not affected", { timeout: 90_000 }, async () => {
    const event = await createEvent({ event_name: unique("Limited ") });
    await createTicketType(event.id, { name: "Regular" });
    await startOfWindow();
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}-${unique("a")}`;
    const order = () => withAddress(request("POST", `/events/${event.id}/orders`, { auth: null, body: {} }), address);
    for (let i = 0; i < 30; i++) expect((await send(order())).status).toBe(400); // counted even when refused later
    await expectLimited(await send(order()));
    const other = withAddress(request("POST", `/events/${event.id}/orders`, { auth: null, body: {} }), `198.51.100.1-${unique("b")}`);
    expect((await send(other)).status).toBe(400);
  });

  it("scans: 600 a minute per scan key; another key of the same event is not affected", { timeout: 90_000 }, async () => {
    const event = await createEvent({ event_name: unique("Limited scans ") });
    const door = await createScanKey(event.id, { level: 0, location: "Door" });
    const side = await createScanKey(event.id, { level: 0, location: "Side" });
    await startOfWindow();
    const scan = (key: string) => request("POST", "/scans", { key, auth: null, body: { id: "UNKNOWNTICKET000" } });
    for (let sent = 0; sent < 600; sent += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => send(scan(door.key))));
      for (const res of answers) expect(res.status).toBe(200);
    }
    await expectLimited(await send(scan(door.key)));
    expect((await send(scan(side.key))).status).toBe(200);
  });

  it("failed logins: 10 a minute per address and per username; then even the right password waits", { timeout: 90_000 }, async () => {
    await startOfWindow();
    const username = unique("mallory");
    const address = `192.0.2.7-${unique("c")}`;
    const login = (user: string, password: string, from: string) =>
      withAddress(request("GET", "/admin/users", { auth: { username: user, password } }), from);
    for (let i = 0; i < 10; i++) expect((await send(login(username, "wrong", address))).status).toBe(401);
    await expectLimited(await send(login(username, "wrong", address)));
    // The address is held back for every username, the right password included.
    await expectLimited(await send(login(ADMIN.username, ADMIN.password, address)));
    // The username is held back from every address.
    await expectLimited(await send(login(username, "wrong", `192.0.2.8-${unique("d")}`)));
    // Others are not.
    expect((await send(login(ADMIN.username, ADMIN.password, `192.0.2.9-${unique("e")}`))).status).toBe(200);
  });
});
