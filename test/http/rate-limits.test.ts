import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, request, unique } from "../helpers/api";
import { createEvent, createScanKey, createTicketType } from "../helpers/catalogue";
import { fetchWith, startOfWindow } from "../helpers/limited";

/**
 * Rate limits (decisions.md 14, docs/platform.md "Rate limits"): the real rate-limiting bindings of wrangler.toml (30
 * customer orders a minute per address for the publishable ordering key, none for the API key; 3,000 scans a minute
 * per scan key (decisions.md 15), and apart from them 600 offline-sync requests (list, revoked, public keys, the
 * key's own settings); failed logins 30 a minute per address and 10 per address and username, never per username
 * alone), turned on here with RATE_LIMITS=on (the rest of the suite runs with them off). Windows turn with the wall
 * clock's minute, so each test starts early in a minute.
 */

const ORDERING_KEY = "pk_rate_limits";
const send = (req: Request) => fetchWith({ RATE_LIMITS: "on", ORDERING_KEY }, req);

async function expectLimited(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await res.json()).toEqual({ code: "rest_too_many_requests", message: "Too many requests; try again later.", data: { status: 429 } });
}

const withAddress = (req: Request, address: string) => {
  req.headers.set("CF-Connecting-IP", address);
  return req;
};

describe("rate limits", () => {
  it("customer orders with the ordering key: 30 a minute per client address, then 429 with Retry-After; another address is not affected", {
    timeout: 90_000,
  }, async () => {
    const event = await createEvent({ event_name: unique("Limited ") });
    await createTicketType(event.id, { name: "Regular" });
    await startOfWindow();
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}-${unique("a")}`;
    const order = (from = address) => withAddress(request("POST", `/events/${event.id}/orders`, { key: ORDERING_KEY, auth: null, body: {} }), from);
    for (let i = 0; i < 30; i++) expect((await send(order())).status).toBe(400); // counted even when refused later
    await expectLimited(await send(order()));
    expect((await send(order(`198.51.100.1-${unique("b")}`))).status).toBe(400);
  });

  it("customer orders with the API key (a shop's own server ordering for its buyers): no per-address limit", { timeout: 90_000 }, async () => {
    const event = await createEvent({ event_name: unique("Busy shop ") });
    const type = await createTicketType(event.id, { name: "Free", price: 0 });
    await startOfWindow();
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}-${unique("server")}`;
    const order = (i: number) =>
      withAddress(
        request("POST", `/events/${event.id}/orders`, { auth: null, body: { name: `Buyer ${i}`, email: `buyer${i}@example.com`, tickets: [{ [type.id]: 1 }] } }),
        address,
      );
    for (let i = 0; i < 40; i++) expect((await send(order(i))).status).toBe(201);
    // The same address with the publishable key is still limited: the exemption is the API key's alone.
    const browser = () => withAddress(request("POST", `/events/${event.id}/orders`, { key: ORDERING_KEY, auth: null, body: {} }), address);
    for (let i = 0; i < 30; i++) expect((await send(browser())).status).toBe(400);
    await expectLimited(await send(browser()));
  });

  /**
   * Spends `count` of a scan key's scan budget through the binding itself, as the middleware does (key `scan:<key>`):
   * thousands of scans through HTTP would take minutes on a busy machine, and the window is one minute.
   */
  async function spendScans(key: string, count: number): Promise<void> {
    for (let i = 0; i < count; i += 100) {
      const answers = await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => env.SCAN_LIMITER.limit({ key: `scan:${key}` })));
      for (const answer of answers) expect(answer.success).toBe(true);
    }
  }

  it("scans: 3,000 a minute per scan key (decisions.md 15): the 601st to 3,000th pass, the 3,001st is 429; another key of the same event is not affected", {
    timeout: 90_000,
  }, async () => {
    const event = await createEvent({ event_name: unique("Limited scans ") });
    const door = await createScanKey(event.id, { level: 0, location: "Door" });
    const side = await createScanKey(event.id, { level: 0, location: "Side" });
    await startOfWindow();
    const scan = (key: string) => request("POST", "/scans", { key, auth: null, body: { id: "UNKNOWNTICKET000" } });
    for (let sent = 0; sent < 100; sent += 50) {
      for (const res of await Promise.all(Array.from({ length: 50 }, () => send(scan(door.key))))) expect(res.status).toBe(200);
    }
    await spendScans(door.key, 500);
    // The 601st to 650th, through HTTP: past the old limit of 600, not limited.
    for (const res of await Promise.all(Array.from({ length: 50 }, () => send(scan(door.key))))) expect(res.status).toBe(200);
    await spendScans(door.key, 2350); // 3,000 in all
    await expectLimited(await send(scan(door.key)));
    expect((await send(scan(side.key))).status).toBe(200);
  });

  it("the offline sync of a scan key counts apart from its scans: a door whose scans hit the limit still syncs, and the other way round", {
    timeout: 90_000,
  }, async () => {
    const event = await createEvent({ event_name: unique("Limited sync ") });
    const door = await createScanKey(event.id, { level: 0, location: "Door" });
    const side = await createScanKey(event.id, { level: 0, location: "Side" });
    await startOfWindow();
    const scan = (key: string) => request("POST", "/scans", { key, auth: null, body: { id: "UNKNOWNTICKET000" } });
    const sync = (key: string, path = "/scans/tickets?per_page=1000") => request("GET", path, { key, auth: null });
    await spendScans(door.key, 3000);
    await expectLimited(await send(scan(door.key)));
    expect((await send(sync(door.key))).status).toBe(200);
    expect((await send(sync(door.key, "/scans/revoked"))).status).toBe(200);
    expect((await send(sync(door.key, "/scan-keys/public-keys"))).status).toBe(200);
    expect((await send(sync(door.key, "/scan-keys/self"))).status).toBe(200);

    for (let sent = 0; sent < 600; sent += 50) {
      for (const res of await Promise.all(Array.from({ length: 50 }, () => send(sync(side.key))))) expect(res.status).toBe(200);
    }
    await expectLimited(await send(sync(side.key)));
    await expectLimited(await send(sync(side.key, "/scan-keys/self")));
    expect((await send(scan(side.key))).status).toBe(200);
  });

  const login = (user: string, password: string, from: string) => withAddress(request("GET", "/admin/users", { auth: { username: user, password } }), from);

  it("failed logins: 10 a minute per address and username; then even the right password waits there, and only there", { timeout: 90_000 }, async () => {
    await startOfWindow();
    const username = unique("mallory");
    const address = `192.0.2.7-${unique("c")}`;
    for (let i = 0; i < 10; i++) expect((await send(login(username, "wrong", address))).status).toBe(401);
    await expectLimited(await send(login(username, "wrong", address)));
    // Another username from the same address is not held back by this pair.
    expect((await send(login(ADMIN.username, ADMIN.password, address))).status).toBe(200);
    // The username is never held back from another address.
    expect((await send(login(username, "wrong", `192.0.2.8-${unique("d")}`))).status).toBe(401);
  });

  it("failed logins cannot lock the administrator out: failing on purpose as admin holds back only the failing address", { timeout: 90_000 }, async () => {
    await startOfWindow();
    const attacker = `192.0.2.66-${unique("attacker")}`;
    for (let i = 0; i < 10; i++) expect((await send(login(ADMIN.username, "wrong", attacker))).status).toBe(401);
    await expectLimited(await send(login(ADMIN.username, "wrong", attacker)));
    await expectLimited(await send(login(ADMIN.username, ADMIN.password, attacker)));
    expect((await send(login(ADMIN.username, ADMIN.password, `192.0.2.10-${unique("office")}`))).status).toBe(200);
  });

  it("failed logins: 30 a minute per address whatever the usernames; then every login from there waits", { timeout: 90_000 }, async () => {
    await startOfWindow();
    const address = `192.0.2.11-${unique("spray")}`;
    for (let i = 0; i < 30; i++) expect((await send(login(unique("user"), "wrong", address))).status).toBe(401);
    await expectLimited(await send(login(unique("user"), "wrong", address)));
    await expectLimited(await send(login(ADMIN.username, ADMIN.password, address)));
    expect((await send(login(ADMIN.username, ADMIN.password, `192.0.2.12-${unique("other")}`))).status).toBe(200);
  });
});
