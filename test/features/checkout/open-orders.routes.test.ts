import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderClaims, orders } from "../../../src/db/schema";
import worker from "../../../src/index";
import { depsFromEnv } from "../../../src/platform/deps";
import { eventObject } from "../../../src/platform/event-object.client";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { call, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";

/**
 * Open orders per buyer (decisions.md 15): a browser shop front (the publishable ordering key) holds at most 2 open
 * orders per event per email and per client address (`CF-Connecting-IP`); the third is `429 order_too_many_open`
 * and changes nothing. Expired, paid and cancelled orders do not count, free ones never do; API-key callers are not
 * limited this way. Storage is shared by the tests of this file, so each makes its own events and addresses.
 */

type Json = Record<string, any>;

const ORDERING_KEY = "pk_open_orders";
const shopEnv = { ...env, ORDERING_KEY } as typeof env;
const MESSAGE = "You already have orders waiting for payment";
/** ORDER_HOLD_MINUTES of the tests' configuration (15): the longest an open order waits for payment. */
const HOLD_S = 15 * 60;

interface Shop {
  event: Json;
  type: Json;
}

async function shop(price: number | string = 10, stock = 100): Promise<Shop> {
  const event = await createEvent({ event_name: unique("Open orders ") });
  const type = await createTicketType(event.id, { name: "Regular", price, maximum_to_order: 0, stock_control: true, stock });
  return { event, type };
}

/** A fresh documentation address (TEST-NET-3), one per call, so tests never share one. */
let lastOctets = 0;
function address(): string {
  lastOctets += 1;
  return `203.0.${113 + Math.floor(lastOctets / 250)}.${lastOctets % 250}`;
}

async function send(req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, shopEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** An order as a browser shop front sends it: the ordering key, from `from` as Cloudflare reports it. */
function browserOrder(s: Shop, email: string, from: string, count = 1): Promise<Response> {
  const body = { name: "Ann Smith", email, tickets: [{ [s.type.id]: count }] };
  return send(request("POST", `/events/${s.event.id}/orders`, { auth: null, key: ORDERING_KEY, body, headers: { "CF-Connecting-IP": from } }));
}

/** The same order from the shop's own server: the API key (its address is the server's, the same for every buyer). */
function serverOrder(s: Shop, email: string, from: string, count = 1): Promise<Response> {
  const body = { name: "Ann Smith", email, tickets: [{ [s.type.id]: count }] };
  return send(request("POST", `/events/${s.event.id}/orders`, { auth: null, body, headers: { "CF-Connecting-IP": from } }));
}

const ordersOf = (s: Shop) => db.select().from(orders).where(eq(orders.eventId, s.event.id)).orderBy(orders.id);
const openOrdersOf = async (s: Shop) => (await ordersOf(s)).filter((o) => o.paymentStatus === "open");
const reservedUids = async (s: Shop) => (await eventObject(env, s.event.id).snapshot()).reservations.map((r) => r.uid).sort();
const left = async (s: Shop) => (await eventObject(env, s.event.id).remaining())!.types[s.type.id];

/** A 429 of this rule says when to come back: when a place frees at the latest (an open order's payment deadline). */
function expectRetryAfter(res: Response): void {
  const value = res.headers.get("Retry-After");
  expect(value, "Retry-After").toMatch(/^\d+$/);
  expect(Number(value)).toBeGreaterThanOrEqual(1);
  expect(Number(value)).toBeLessThanOrEqual(HOLD_S);
}

/** The refusal, after which the event has the same orders and its object holds the same units as before. */
async function expectTooMany(s: Shop, answer: Promise<Response>): Promise<void> {
  const before = { orders: (await ordersOf(s)).length, reserved: await reservedUids(s), left: await left(s) };
  const res = await answer;
  expectRetryAfter(res);
  const err = await expectError(res, 429, "order_too_many_open");
  expect(err.message).toBe(MESSAGE);
  const after = { orders: (await ordersOf(s)).length, reserved: await reservedUids(s), left: await left(s) };
  expect(after, "a refused order writes and holds nothing").toEqual(before);
}

function decide(checkoutUrl: string, action: "pay" | "cancel"): Promise<Response> {
  return send(
    new Request(checkoutUrl, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` }),
  );
}

describe("open orders per buyer with the ordering key (decisions.md 15)", () => {
  it("a third open order by the same email on the same event is 429 order_too_many_open, whatever the address or the email's case", async () => {
    const s = await shop();
    await expectJson(browserOrder(s, "ann@example.com", address(), 2), 201);
    await expectJson(browserOrder(s, "ann@example.com", address()), 201);
    await expectTooMany(s, browserOrder(s, "ann@example.com", address()));
    await expectTooMany(s, browserOrder(s, "ANN@Example.COM", address()));
    expect((await openOrdersOf(s)).length).toBe(2);
    expect(await left(s)).toBe(97);

    // Per event: the same email orders on another event; other emails order here.
    const other = await shop();
    await expectJson(browserOrder(other, "ann@example.com", address()), 201);
    await expectJson(browserOrder(s, "bob@example.com", address()), 201);
  });

  it("a third open order from the same address is 429 even under other emails; other addresses order on", async () => {
    const s = await shop();
    const from = address();
    await expectJson(browserOrder(s, "one@example.com", from), 201);
    await expectJson(browserOrder(s, "two@example.com", from), 201);
    await expectTooMany(s, browserOrder(s, "three@example.com", from));
    await expectJson(browserOrder(s, "three@example.com", address()), 201);
    expect((await openOrdersOf(s)).length).toBe(3);
  });

  it("keeps a keyed hash of the address, not the address, in its claims", async () => {
    const s = await shop();
    const from = address();
    const o = await expectJson(browserOrder(s, "hash@example.com", from), 201);
    const claims = await db.select().from(orderClaims).where(eq(orderClaims.orderUid, o.uid));
    expect(claims.map((c) => c.kind).sort()).toEqual(["open", "open_address"]);
    const byAddress = claims.find((c) => c.kind === "open_address")!;
    expect(byAddress.emailKey).toMatch(/^[0-9a-f]{64}$/);
    expect(byAddress.emailKey).not.toContain(from);
    expect(claims.find((c) => c.kind === "open")!.emailKey).toBe("hash@example.com");
  });

  it("an administrator changing the order's email moves its email claim, never its address claim", async () => {
    const s = await shop();
    const from = address();
    const o = await expectJson(browserOrder(s, "before@example.com", from), 201);
    const addressClaim = async () => (await db.select().from(orderClaims).where(eq(orderClaims.orderUid, o.uid))).find((c) => c.kind === "open_address")!.emailKey;
    const hashed = await addressClaim();
    const read = await expectJson(call("GET", `/admin/orders/${o.id}`), 200);
    await expectJson(call("PUT", `/admin/orders/${o.id}`, { body: { ...read, email: "after@example.com" } }), 200);
    const claims = await db.select().from(orderClaims).where(eq(orderClaims.orderUid, o.uid));
    expect(claims.find((c) => c.kind === "open")!.emailKey).toBe("after@example.com");
    expect(await addressClaim()).toBe(hashed);
    // The address still holds its place: one more order from it, then the limit.
    await expectJson(browserOrder(s, "other@example.com", from), 201);
    await expectTooMany(s, browserOrder(s, "third@example.com", from));
  });

  it("API-key callers are not limited this way: a shop's server orders for many buyers from one address", async () => {
    const s = await shop();
    const server = address();
    for (let i = 0; i < 4; i++) await expectJson(serverOrder(s, "ann@example.com", server), 201);
    expect((await openOrdersOf(s)).length).toBe(4);
    expect(
      await db
        .select()
        .from(orderClaims)
        .where(
          inArray(
            orderClaims.orderUid,
            (await ordersOf(s)).map((o) => o.uid),
          ),
        ),
    ).toEqual([]);
  });

  it("cancelled, paid and expired orders free their place", async () => {
    const s = await shop();
    const email = "free@example.com";
    const a = await expectJson(browserOrder(s, email, address()), 201);
    const b = await expectJson(browserOrder(s, email, address()), 201);
    await expectTooMany(s, browserOrder(s, email, address()));

    expect((await decide(a.payment.checkout_url, "cancel")).status).toBe(303);
    const c = await expectJson(browserOrder(s, email, address()), 201);
    await expectTooMany(s, browserOrder(s, email, address()));

    expect((await decide(b.payment.checkout_url, "pay")).status).toBe(303);
    const d = await expectJson(browserOrder(s, email, address()), 201);
    await expectTooMany(s, browserOrder(s, email, address()));

    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, c.id));
    await expireOrder(depsFromEnv(env), c.uid, s.event.id);
    await expectJson(browserOrder(s, email, address()), 201);
    await expectTooMany(s, browserOrder(s, email, address()));

    const statuses = new Map((await ordersOf(s)).map((o) => [o.id, o.paymentStatus]));
    expect([a.id, b.id, c.id, d.id].map((id) => statuses.get(id))).toEqual(["canceled", "paid", "expired", "open"]);
    expect((await openOrdersOf(s)).length).toBe(2);
    // A paid order keeps no claim of an open one.
    expect(
      await db
        .select()
        .from(orderClaims)
        .where(and(eq(orderClaims.orderUid, b.uid))),
    ).toEqual([]);
  });

  it("free orders are final at once and never count", async () => {
    const s = await shop(0);
    const from = address();
    for (let i = 0; i < 4; i++) expect((await expectJson(browserOrder(s, "gratis@example.com", from), 201)).payment_status).toBe("booked");
  });

  it("holds under concurrency: 10 orders at once by one email leave exactly 2 open; the rest are 429 and hold nothing", async () => {
    const s = await shop(10, 50);
    const answers = await Promise.all(Array.from({ length: 10 }, () => browserOrder(s, "rush@example.com", address(), 5)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, ...Array(8).fill(429)]);
    for (const r of answers.filter((x) => x.status === 429)) {
      expectRetryAfter(r);
      expect(((await r.json()) as Json).code).toBe("order_too_many_open");
    }
    const open = await openOrdersOf(s);
    expect(open).toHaveLength(2);
    expect(await ordersOf(s)).toHaveLength(2);
    expect(await reservedUids(s)).toEqual(open.map((o) => o.uid).sort());
    expect(await left(s)).toBe(40);
  });

  it("holds under concurrency from one address too: 10 emails at once, exactly 2 open", async () => {
    const s = await shop(10, 50);
    const from = address();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => browserOrder(s, `rush${i}@example.com`, from, 5)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(8);
    for (const r of answers.filter((x) => x.status === 429)) expectRetryAfter(r);
    expect(await openOrdersOf(s)).toHaveLength(2);
    expect(await ordersOf(s)).toHaveLength(2);
    expect(await left(s)).toBe(40);
  });
});
