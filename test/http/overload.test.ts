import { afterEach, describe, expect, it } from "vitest";
import { EventObject } from "../../src/event-object/event.do";
import type { EventConfig } from "../../src/event-object/event-config";
import { call, expectError, expectJson, unique } from "../helpers/api";
import { expectLogged } from "../helpers/logs";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { logs, orders, tickets } from "../../src/db/schema";
import { expireOrder } from "../../src/features/payments/payments.service";
import { depsFromEnv } from "../../src/platform/deps";
import { createScanKey, createTicketType, db } from "../helpers/catalogue";
import { eventObject } from "../../src/platform/event-object.client";
import { createOrderEvent, createOrderType, orderBody, ordersOf, postOrder } from "../helpers/orders";

/**
 * decisions.md 15 "Overload": an event's object that cannot answer (too busy, or staying behind its catalogue after
 * the push that should bring it up to date) is a `503 rest_overloaded` with `Retry-After`, the same for orders and
 * scans, and nothing is decided or written. The object is kept behind by letting it ignore the pushes of one event
 * (its `applyConfig` answers the version it already holds), as a push lost on the way would. Every caller asks
 * through the one client (features/catalogue/event-object-client.ts): a stale answer is followed by one push and
 * one more question, no more.
 */

const ignored = new Set<number>();
/** The pushes each ignored event's object received (and ignored). */
const pushes = new Map<number, number>();
const applyConfig = EventObject.prototype.applyConfig;
EventObject.prototype.applyConfig = async function (this: EventObject, next: EventConfig) {
  if (!ignored.has(next.eventId)) return applyConfig.call(this, next);
  pushes.set(next.eventId, (pushes.get(next.eventId) ?? 0) + 1);
  return this.configVersion();
};

/**
 * Events whose object is too busy: a hold, a scan or the offline list asked of it fails on the caller's side, as
 * Cloudflare's runtime fails it, with an error marked `.overloaded` (not to be retried), before the object runs.
 */
const swamped = new Set<number>();
/** Events whose object cannot be reached at all: a hold asked of it fails with a plain error (a broken connection). */
const unreachable = new Set<number>();
const BUSY_CALLS = new Set<string | symbol>(["reserve", "scan", "offlineList"]);
const namespace = Object.getPrototypeOf(env.EVENTS) as { get: (id: DurableObjectId, ...rest: unknown[]) => object };
const getStub = namespace.get;
namespace.get = function (this: unknown, id: DurableObjectId, ...rest: unknown[]) {
  const stub = getStub.call(this, id, ...rest);
  const among = (events: Set<number>) => [...events].some((eventId) => env.EVENTS.idFromName(`event:${eventId}`).equals(id));
  if (among(unreachable)) {
    const lost = new Error("Network connection lost.");
    return new Proxy(stub, { get: (target, name) => (name === "reserve" ? () => Promise.reject(lost) : Reflect.get(target, name)) });
  }
  if (!among(swamped)) return stub;
  const busy = Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), { overloaded: true, retryable: false });
  return new Proxy(stub, { get: (target, name) => (BUSY_CALLS.has(name) ? () => Promise.reject(busy) : Reflect.get(target, name)) });
};

afterEach(() => {
  ignored.clear();
  pushes.clear();
  swamped.clear();
  unreachable.clear();
});

async function ticketsOf(orderId: number): Promise<string[]> {
  const rows = await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, orderId));
  return rows.map((r) => r.id);
}

async function expectOverloaded(res: Promise<Response>) {
  const answer = await res;
  const wait = Number(answer.headers.get("Retry-After"));
  const body = await expectError(answer, 503, "rest_overloaded");
  expect(body.message).toMatch(/^This event is .*try again/);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(5);
  return body;
}

describe("an event object that stays behind its catalogue", () => {
  it("answers an order 503 rest_overloaded with Retry-After, and no order is written", async () => {
    const logged = expectLogged("error", /"msg":"event object stays behind its catalogue"/);
    const event = await createOrderEvent();
    ignored.add(event.id);
    // The new type bumps the catalogue version in D1; its push is ignored, so the object stays behind.
    const type = await createOrderType(event.id, "Regular");
    await expectOverloaded(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })));
    expect(await ordersOf(event.id)).toEqual([]);
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([event.id]);

    ignored.clear(); // the next push reaches it: ordering works again
    await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 201);
  });

  it("answers a scan the same 503 rest_overloaded (not a scan code of its own)", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Regular");
    const order = await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 201);
    const ticketId = (await ticketsOf(order.id))[0]!;
    ignored.add(event.id);
    const { key } = await createScanKey(event.id);
    const logged = expectLogged("error", /"msg":"event object stays behind its catalogue"/);
    await expectOverloaded(call("POST", "/scans", { key, auth: null, body: { id: ticketId } }));
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([event.id]);

    ignored.clear();
    await createScanKey(event.id, { location: "Side door" }); // pushed, so the object catches up: the scan is decided again
    const admitted = await expectJson(call("POST", "/scans", { key, auth: null, body: { id: ticketId } }), 200);
    expect(admitted.status).toBe(true);
  });

  it("answers an order, a scan and the offline list the identical 503, each after one push and one more question", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Regular");
    const order = await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 201);
    const ticketId = (await ticketsOf(order.id))[0]!;
    ignored.add(event.id);
    const { key } = await createScanKey(event.id); // bumps the catalogue version; its push is ignored
    pushes.clear();
    const logged = expectLogged("error", /"msg":"event object stays behind its catalogue"/);

    const asOrder = await expectOverloaded(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })));
    expect(pushes.get(event.id)).toBe(1);
    const asScan = await expectOverloaded(call("POST", "/scans", { key, auth: null, body: { id: ticketId } }));
    expect(pushes.get(event.id)).toBe(2);
    const asList = await expectOverloaded(call("GET", "/scans/tickets", { key, auth: null }));
    expect(pushes.get(event.id)).toBe(3);

    expect(asScan).toEqual(asOrder);
    expect(asList).toEqual(asOrder);
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([event.id, event.id, event.id]);
    expect((await ordersOf(event.id)).map((o) => o.id)).toEqual([order.id]);
  });
});

describe("the order form of an event whose object stays behind its catalogue", () => {
  it("answers the same 503 after one push and one more question, never remaining stock from an older catalogue", async () => {
    const event = await createOrderEvent();
    await createTicketType(event.id, { name: "Old", stock_control: true, stock: 5, show_remaining: true });
    const before = await expectJson(call("GET", `/events/${event.id}/order-form`, { auth: null }), 200);
    expect(before.ticket_types[0].remaining).toBe(5);
    ignored.add(event.id);
    // A type the object's copy does not know yet: from that copy its stock would read "no limit".
    await createTicketType(event.id, { name: "New", stock_control: true, stock: 0, show_remaining: true });
    pushes.clear();
    const logged = expectLogged("error", /"msg":"event object stays behind its catalogue"/);
    const asForm = await expectOverloaded(call("GET", `/events/${event.id}/order-form`, { auth: null }));
    expect(pushes.get(event.id)).toBe(1);
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([event.id]);

    ignored.clear(); // the next push reaches it: the form shows the new type sold out
    const after = await expectJson(call("GET", `/events/${event.id}/order-form`, { auth: null }), 200);
    expect(after.ticket_types.map((t: { name: string; remaining: number }) => [t.name, t.remaining])).toEqual([
      ["Old", 5],
      ["New", 0],
    ]);
    expect(asForm.code).toBe("rest_overloaded");
  });
});

describe("an overloaded event object", () => {
  it("answers an order the same 503 when a later object of the order is overloaded, and gives back what the earlier one held", async () => {
    const logged = expectLogged("warn", /"msg":"event object overloaded: answered 503"/);
    const linked = await createOrderEvent({ stock: 10 });
    const event = await createOrderEvent({ stock: 1, stock_link: linked.id });
    const type = await createOrderType(event.id, "Regular");
    swamped.add(linked.id); // the event's own object holds the unit, then its linked event's object is too busy
    await expectOverloaded(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })));
    expect(await ordersOf(event.id)).toEqual([]);
    expect((await eventObject(env, event.id).remaining())?.event).toBe(1); // nothing held: the whole order or none of it
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([linked.id]);

    swamped.clear();
    await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 201);
  });

  it("an order whose later object cannot be reached at all gives back what the earlier one held", async () => {
    const logged = expectLogged("error", /Network connection lost/);
    const linked = await createOrderEvent({ stock: 10 });
    const event = await createOrderEvent({ stock: 1, stock_link: linked.id });
    const type = await createOrderType(event.id, "Regular");
    unreachable.add(linked.id); // the event's own object holds the unit, then the linked event's call fails
    await expectError(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 500, "rest_internal_error");
    expect(await ordersOf(event.id)).toEqual([]);
    expect((await eventObject(env, event.id).remaining())?.event).toBe(1); // nothing held: the whole order or none of it
    expect(logged.lines.length).toBeGreaterThan(0);

    unreachable.clear();
    await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 201);
  });

  it("answers a scan and the offline list the same 503 as an order", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Regular");
    const order = await expectJson(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })), 201);
    const ticketId = (await ticketsOf(order.id))[0]!;
    const { key } = await createScanKey(event.id);
    const logged = expectLogged("warn", /"msg":"event object overloaded: answered 503"/);
    swamped.add(event.id);
    const asOrder = await expectOverloaded(postOrder(orderBody(event.id, [type.id], { [type.id]: 1 })));
    const asScan = await expectOverloaded(call("POST", "/scans", { key, auth: null, body: { id: ticketId } }));
    const asList = await expectOverloaded(call("GET", "/scans/tickets", { key, auth: null }));
    expect(asScan).toEqual(asOrder);
    expect(asList).toEqual(asOrder);
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([event.id, event.id, event.id]);

    swamped.clear();
    const admitted = await expectJson(call("POST", "/scans", { key, auth: null, body: { id: ticketId } }), 200);
    expect(admitted.status).toBe(true);
  });
});

describe('a late payment while the event\'s object is too busy (decisions.md 13, 15 "Overload")', () => {
  /** The order's deadline has passed and its expiry ran, once its object has taken its hold. */
  async function expire(order: { id: number; uid: string }, eventId: number) {
    for (let i = 0; i < 100; i++) {
      const held = (await eventObject(env, eventId).snapshot()).reservations.find((r) => r.uid === order.uid);
      if (held?.state === "taken") break;
      await new Promise((r) => setTimeout(r, 30));
    }
    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, order.id));
    await expireOrder(depsFromEnv(env), order.uid, eventId);
  }
  const statusOf = async (id: number) => (await db.select({ s: orders.paymentStatus }).from(orders).where(eq(orders.id, id)).get())?.s;
  const pay = (checkoutUrl: string) =>
    exports.default.fetch(
      new Request(checkoutUrl, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "action=pay" }),
    );

  it("refunds nothing and leaves the order expired: 503 with Retry-After, so the provider retries; paid once the object answers", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Limited", { price: 10, stock_control: true, stock: 2 });
    const body = { name: "Ann", email: `${unique("ann")}@example.com`, tickets: [{ [type.id]: 2 }] };
    const order = await expectJson(call("POST", `/events/${event.id}/orders`, { auth: null, body }), 201);
    expect(order.payment_status).toBe("open");
    await expire(order, event.id);
    expect(await statusOf(order.id)).toBe("expired");

    const logged = expectLogged("warn", /"msg":"event object overloaded: answered 503"/);
    swamped.add(event.id);
    const busy = await pay(order.payment.checkout_url);
    expect(busy.status).toBe(503);
    expect(Number(busy.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(logged.lines.map((l) => JSON.parse(l).event_id)).toEqual([event.id]);
    // Not refunded: the units may well still be there.
    expect(await statusOf(order.id)).toBe("expired");
    expect(await db.select().from(logs).where(eq(logs.orderId, order.id))).toEqual([]);

    swamped.clear();
    expect((await pay(order.payment.checkout_url)).status).toBe(303);
    expect(await statusOf(order.id)).toBe("paid");
    expect(await ticketsOf(order.id)).toHaveLength(2);
  });
});
