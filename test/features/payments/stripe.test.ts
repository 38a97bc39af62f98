import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { logs, orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import worker from "../../../src/index";
import { depsFromEnv, type Deps } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { BASE, ORIGIN, call, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { expectLogged } from "../../helpers/logs";
import { hmacHex, SECRET_KEY, stripeEnv, stripeSignature, toHex, WEBHOOK_SECRET } from "../../helpers/stripe";
import { programStub, receivedBy, type StubRequest } from "../../helpers/stubs";

/**
 * Stripe Checkout (docs/who-may-order.md "Stripe", docs/ordering.md "Payments", decisions.md 5.3 and 13 "Orders"):
 * a Checkout Session per payment group created at Stripe's form-encoded API, `Stripe-Signature` verified on
 * `POST /payments/stripe/webhook`, late payments (paid again, or refunded at Stripe), and session expiry. Stripe is
 * the local stub of test/stubs/global-setup.ts; the service is called with PAYMENT_PROVIDER=stripe pointed at it.
 * Storage is shared by the tests of this file, so each makes its own events and stub names.
 */

type Json = Record<string, any>;
type OrderRow = typeof orders.$inferSelect;

const SESSION = { id: "cs_test_123", url: "https://checkout.stripe.test/c/pay/cs_test_123" };
const SESSION_BODY = JSON.stringify(SESSION);
const REFUND_BODY = JSON.stringify({ id: "re_1", status: "succeeded" });
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** The Stripe API version the service pins (docs/who-may-order.md "Stripe"); the webhook fixtures speak it too. */
const PINNED_VERSION = "2026-09-30.endive";

const nowSeconds = () => Math.floor(Date.now() / 1000);

const stripeDeps = (apiName: string): Deps => depsFromEnv(stripeEnv(apiName), undefined, ORIGIN);

/** Calls the worker under the Stripe configuration and lets its deferred work (stock confirms, emails) finish. */
async function callStripe(apiName: string, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, stripeEnv(apiName), ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A fresh stub name answering as Stripe's session creation does. */
async function sessionStub(): Promise<string> {
  const name = unique("stripe-api-");
  await programStub(name, { body: SESSION_BODY });
  return name;
}

interface Shop {
  event: Json;
  type: Json;
}

/** An event with one ticket type "Limited" at `price` with stock control and the given stock. */
async function shop(stock: number, price: number | string = 10, event: Json = {}): Promise<Shop> {
  const e = await createEvent({ event_name: unique("Stripe "), ...event });
  const t = await createTicketType(e.id, { name: "Limited", price, maximum_to_order: 0, stock_control: true, stock });
  return { event: e, type: t };
}

function orderRequest(s: Shop, count: number, email: string): Request {
  return request("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email, tickets: [{ [s.type.id]: count }] } });
}

/** Places a customer order under the Stripe configuration (its API the stub `apiName`); it must succeed. */
async function placeOrder(s: Shop, apiName: string, count = 1, email = "ann@example.com"): Promise<Json> {
  return expectJson(callStripe(apiName, orderRequest(s, count, email)), 201);
}

async function row(id: number): Promise<OrderRow> {
  const r = await db.select().from(orders).where(eq(orders.id, id)).get();
  expect(r, `order ${id} in D1`).toBeDefined();
  return r!;
}

const ticketIds = async (orderId: number) => (await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, orderId))).map((t) => t.id).sort();

const logsOf = (orderId: number) => db.select().from(logs).where(eq(logs.orderId, orderId));

async function sold(s: Shop): Promise<{ event: number; type: number }> {
  const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${s.event.id}/ticket-types`), 200);
  return { event: event.sold, type: types.find((t) => t.id === s.type.id)!.sold };
}

/** What the event object says is left of the type. */
const left = async (s: Shop) => (await eventObject(env, s.event.id).remaining())!.types[s.type.id];
const reservationsOf = async (s: Shop, uid: string) => (await eventObject(env, s.event.id).snapshot()).reservations.filter((r) => r.uid === uid);

const status = (o: Json) => expectJson(call("GET", `/orders/${o.id}/${o.uid}/status`, { key: null, auth: null }), 200);

/** The form fields of a request Stripe's API received. */
const form = (r: StubRequest) => Object.fromEntries(new URLSearchParams(r.body));

function expectStripeCall(r: StubRequest | undefined, path: string): void {
  expect(r, `a request to ${path}`).toBeDefined();
  expect(r!.method).toBe("POST");
  expect(r!.path).toBe(path);
  expect(r!.headers["authorization"]).toBe(`Bearer ${SECRET_KEY}`);
  expect(r!.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
  // Every call pins the API version, so the account's default version never changes what we send or read.
  expect(r!.headers["stripe-version"]).toBe(PINNED_VERSION);
}

// ---- Stripe's webhook: events and their signature ----

const sign = stripeSignature;

/** A Stripe event (API shape, of the pinned version unless `apiVersion` says otherwise) around a Checkout Session. */
function stripeEvent(type: string, session: Json, apiVersion = PINNED_VERSION): string {
  return JSON.stringify({
    id: `evt_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`,
    object: "event",
    api_version: apiVersion,
    created: nowSeconds(),
    livemode: false,
    type,
    data: { object: { id: SESSION.id, object: "checkout.session", currency: "eur", mode: "payment", ...session } },
  });
}

/** The Checkout Session's own record of the payment group of `o`: its reference and amount in cents. */
const sessionOf = (o: Json): Json => ({ client_reference_id: o.uid, amount_total: Math.round(o.total * 100) });

/** `checkout.session.completed` for the payment group of `o`, paid with payment intent `pi`. */
function completed(o: Json, pi = "pi_123", extra: Json = {}): string {
  return stripeEvent("checkout.session.completed", {
    client_reference_id: o.uid,
    metadata: { payment_group: o.uid },
    payment_intent: pi,
    payment_status: "paid",
    status: "complete",
    amount_total: Math.round(o.total * 100),
    ...extra,
  });
}

/**
 * Stripe posting `body` to the webhook, with `signature` as its Stripe-Signature header (none when null). No API
 * key, no credentials. Refunds it asks for go to the stub `apiName`.
 */
function webhook(body: string, signature: string | null, apiName = "stripe-unused"): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": "application/json; charset=utf-8", "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" };
  if (signature !== null) headers["Stripe-Signature"] = signature;
  return callStripe(apiName, new Request(`${BASE}/payments/stripe/webhook`, { method: "POST", headers, body }));
}

async function deliver(body: string, apiName?: string): Promise<void> {
  const answer = await expectJson(webhook(body, await sign(body), apiName), 200);
  expect(answer).toStrictEqual({ received: true });
}

/** The order's payment deadline passed and the expiry ran (as the event object's alarm hands it to the queue). */
async function expire(o: Json, s: Shop, apiName: string): Promise<void> {
  await db
    .update(orders)
    .set({ expiresAt: nowSeconds() - 60 })
    .where(eq(orders.id, o.id));
  await expireOrder(stripeDeps(apiName), o.uid, s.event.id);
  expect((await row(o.id)).paymentStatus).toBe("expired");
}

describe("a customer order with PAYMENT_PROVIDER stripe", () => {
  it("creates a Checkout Session at Stripe as its API takes it, and answers its url; the order holds its stock", async () => {
    const api = await sessionStub();
    const s = await shop(10, "12.50");
    const before = nowSeconds();
    const o = await placeOrder(s, api, 2);
    const after = nowSeconds();

    const got = await receivedBy(api);
    expect(got).toHaveLength(1);
    expectStripeCall(got[0], `/${api}/v1/checkout/sessions`);
    const f = form(got[0]!);
    const statusUrl = `${BASE}/orders/${o.id}/${o.uid}/status`;
    expect(f).toStrictEqual({
      mode: "payment",
      client_reference_id: o.uid,
      "metadata[payment_group]": o.uid,
      success_url: statusUrl,
      cancel_url: statusUrl,
      expires_at: f.expires_at,
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "eur",
      "line_items[0][price_data][unit_amount]": "2500",
      "line_items[0][price_data][product_data][name]": s.event.event_name,
    });
    // Stripe takes 30 minutes to 24 hours: our 15-minute deadline is lifted to at least 31 minutes ahead.
    const expiresAt = Number(f.expires_at);
    expect(f.expires_at).toMatch(/^\d+$/);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 31 * 60);
    expect(expiresAt).toBeLessThanOrEqual(after + 24 * 3600);

    // The answer: an open order whose payment is the session.
    expect(o.payment_status).toBe("open");
    expect(o.payment_id).toBe(SESSION.id);
    expect(o.total).toBe(25);
    expect(o.payment).toStrictEqual({ provider: "stripe", checkout_url: SESSION.url, expires_at: o.payment.expires_at });
    expect(o.payment.expires_at).toMatch(DATE_TIME);
    const r = await row(o.id);
    expect(r.paymentId).toBe(SESSION.id);
    expect(r.paymentStatus).toBe("open");
    expect(r.paymentGroup).toBe(o.uid);
    // Our own deadline stays ORDER_HOLD_MINUTES (15): a payment after it is a late payment.
    expect(r.expiresAt).toBeGreaterThanOrEqual(before + 15 * 60);
    expect(r.expiresAt).toBeLessThanOrEqual(after + 15 * 60);
    expect(await left(s)).toBe(8);
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await sold(s)).toEqual({ event: 0, type: 0 });
  });

  it("an event with test_payments_needed uses the test provider all the same: nothing goes to Stripe", async () => {
    const api = await sessionStub();
    const s = await shop(5, 10, { test_payments_needed: true });
    const o = await placeOrder(s, api, 1);
    expect(o.payment).toMatchObject({ provider: "test", checkout_url: `${BASE}/pay/test/${o.uid}` });
    expect(o.payment_id).toMatch(/^test_/);
    expect((await row(o.id)).paymentId).toBe(o.payment_id);
    expect(await receivedBy(api)).toEqual([]);
    expect(await left(s)).toBe(4);
  });

  it("Stripe answering 500: 502 order_payment_unavailable, the order failed, its stock released, Stripe's message logged", async () => {
    const api = unique("stripe-api-");
    await programStub(api, { status: 500, body: JSON.stringify({ error: { type: "api_error", message: "Something went wrong on Stripe's end." } }) });
    const s = await shop(3);
    await expectError(callStripe(api, orderRequest(s, 3, "ann@example.com")), 502, "order_payment_unavailable");
    expect(await receivedBy(api)).toHaveLength(1);

    const placed = await db.select().from(orders).where(eq(orders.eventId, s.event.id));
    expect(placed).toHaveLength(1);
    const failed = placed[0]!;
    expect(failed.paymentStatus).toBe("failed");
    expect(failed.expiresAt).toBeNull();
    expect(await ticketIds(failed.id)).toEqual([]);
    expect(await left(s)).toBe(3);
    expect(await reservationsOf(s, failed.uid)).toEqual([]);
    expect(await sold(s)).toEqual({ event: 0, type: 0 });
    const entries = await logsOf(failed.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toContain("Something went wrong on Stripe's end.");

    // The units really are free again: the whole stock can be ordered once Stripe answers.
    await programStub(api, { body: SESSION_BODY });
    const again = await placeOrder(s, api, 3, "bob@example.com");
    expect(again.payment.provider).toBe("stripe");
    expect(await left(s)).toBe(0);
  });
});

describe("POST /payments/stripe/webhook", () => {
  it("a correctly signed checkout.session.completed pays the order (no API key): tickets, sold, the payment intent as payment_id; the same event again changes nothing", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 2);
    expect(await left(s)).toBe(3);

    const refunds = unique("stripe-refunds-");
    await programStub(refunds, { body: REFUND_BODY });
    const body = completed(o, "pi_123");
    const signature = await sign(body);
    const res = await webhook(body, signature, refunds);
    expect(await expectJson(res, 200)).toStrictEqual({ received: true });

    const r = await row(o.id);
    expect(r.paymentStatus).toBe("paid");
    expect(r.paymentId).toBe("pi_123");
    expect(r.expiresAt).toBeNull();
    const issued = await ticketIds(o.id);
    expect(issued).toHaveLength(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(3);
    expect(await reservationsOf(s, o.uid)).toMatchObject([{ state: "taken", deadline: null }]);
    expect(await status(o)).toStrictEqual({ payment_status: "paid", tickets_ready: true, download_url: `${BASE}/tickets/${o.uid}` });

    // Stripe delivers at least once: the very same event (and signature) again changes nothing.
    expect(await expectJson(webhook(body, signature, refunds), 200)).toStrictEqual({ received: true });
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toEqual(issued);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(3);
    expect(await receivedBy(refunds)).toEqual([]);
    expect(await logsOf(o.id)).toEqual([]);
  });

  it("accepts a header carrying several v1 signatures when one of them verifies (Stripe rolling its secret)", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 1);
    const body = completed(o, "pi_roll");
    const t = nowSeconds();
    const header = `t=${t},v1=${await hmacHex("whsec_old_secret", t, body)},v1=${await hmacHex(WEBHOOK_SECRET, t, body)}`;
    expect(await expectJson(webhook(body, header), 200)).toStrictEqual({ received: true });
    expect((await row(o.id)).paymentStatus).toBe("paid");
  });

  it("a signature made 4 minutes ago still verifies (Stripe's 5-minute tolerance)", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 1);
    const body = completed(o, "pi_slow");
    expect(await expectJson(webhook(body, await sign(body, { t: nowSeconds() - 240 })), 200)).toStrictEqual({ received: true });
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["paid", "pi_slow"]);
  });

  it("refuses forged, wrongly keyed, stale, missing and non-v1 signatures and bodies changed after signing: 400 payment_signature_invalid, nothing changes", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 2);
    const body = completed(o, "pi_123");
    const now = nowSeconds();
    const random = toHex(crypto.getRandomValues(new Uint8Array(32)));
    const attempts: [string, string, string | null][] = [
      ["forged signature", body, `t=${now},v1=${random}`],
      ["signed with another secret", body, await sign(body, { secret: "whsec_wrong" })],
      ["signed with the API secret key", body, await sign(body, { secret: SECRET_KEY })],
      ["stale timestamp (10 minutes old)", body, await sign(body, { t: now - 600 })],
      ["missing header", body, null],
      ["empty header", body, ""],
      ["malformed header", body, "garbage"],
      ["timestamp without a signature", body, `t=${now}`],
      ["signature without a timestamp", body, `v1=${await hmacHex(WEBHOOK_SECRET, now, body)}`],
      ["a valid HMAC under scheme v0 only", body, `t=${now},v0=${await hmacHex(WEBHOOK_SECRET, now, body)}`],
      ["the timestamp changed after signing", body, `t=${now + 1},v1=${await hmacHex(WEBHOOK_SECRET, now, body)}`],
      ["body changed after signing", body.replace('"pi_123"', '"pi_999"'), await sign(body)],
      ["body with a byte added after signing", `${body}\n`, await sign(body)],
    ];
    for (const [what, sent, signature] of attempts) {
      const err = await expectError(webhook(sent, signature), 400, "payment_signature_invalid");
      expect(err.message, what).toBeTruthy();
      const r = await row(o.id);
      expect([what, r.paymentStatus, r.paymentId]).toEqual([what, "open", SESSION.id]);
    }
    // A forged "expired" does not cancel either.
    const forgedExpiry = stripeEvent("checkout.session.expired", { client_reference_id: o.uid, status: "expired" });
    await expectError(webhook(forgedExpiry, await sign(forgedExpiry, { secret: "whsec_wrong" })), 400, "payment_signature_invalid");

    expect((await row(o.id)).paymentStatus).toBe("open");
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await sold(s)).toEqual({ event: 0, type: 0 });
    expect(await left(s)).toBe(3);
    expect(await logsOf(o.id)).toEqual([]);

    // The order was payable all along: the genuine event pays it.
    await deliver(body);
    expect((await row(o.id)).paymentStatus).toBe("paid");
  });

  it("checkout.session.expired cancels the still-open order and releases its stock; a paid order is left alone", async () => {
    const api = await sessionStub();
    const s = await shop(4);
    const open = await placeOrder(s, api, 3);
    expect(await left(s)).toBe(1);

    await deliver(stripeEvent("checkout.session.expired", { ...sessionOf(open), status: "expired", payment_status: "unpaid", payment_intent: null }));
    const r = await row(open.id);
    expect(r.paymentStatus).toBe("canceled");
    expect(r.expiresAt).toBeNull();
    expect(await left(s)).toBe(4);
    expect(await reservationsOf(s, open.uid)).toEqual([]);
    expect(await ticketIds(open.id)).toEqual([]);

    const paidOrder = await placeOrder(s, api, 2, "bob@example.com");
    await deliver(completed(paidOrder, "pi_paid"));
    await deliver(stripeEvent("checkout.session.expired", { ...sessionOf(paidOrder), status: "expired" }));
    expect((await row(paidOrder.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(paidOrder.id)).toHaveLength(2);
    expect(await left(s)).toBe(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
  });

  it("async payments: completed but unpaid waits; async_payment_succeeded pays; async_payment_failed fails, frees the stock and is logged", async () => {
    const api = await sessionStub();
    const s = await shop(6);
    const a = await placeOrder(s, api, 2);
    const b = await placeOrder(s, api, 3, "bob@example.com");
    expect(await left(s)).toBe(1);

    // A bank debit: the session completes unpaid, the payment arrives later.
    await deliver(completed(a, "pi_async", { payment_status: "unpaid" }));
    expect((await row(a.id)).paymentStatus).toBe("open");
    await deliver(stripeEvent("checkout.session.async_payment_succeeded", { ...sessionOf(a), payment_intent: "pi_async", payment_status: "paid", status: "complete" }));
    const ra = await row(a.id);
    expect([ra.paymentStatus, ra.paymentId]).toEqual(["paid", "pi_async"]);
    expect(await ticketIds(a.id)).toHaveLength(2);

    await deliver(stripeEvent("checkout.session.async_payment_failed", { ...sessionOf(b), payment_intent: "pi_failed", payment_status: "unpaid", status: "complete" }));
    expect((await row(b.id)).paymentStatus).toBe("failed");
    expect(await ticketIds(b.id)).toEqual([]);
    expect(await left(s)).toBe(4);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    const entries = await logsOf(b.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toMatch(/fail/i);
  });

  it("an unknown client_reference_id, or none, is acknowledged with 200 and changes nothing", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 1);
    const warned = expectLogged("warn", /"msg":"stripe event for an unknown payment group"/);
    await deliver(completed({ uid: "Z".repeat(40), total: 10 }, "pi_unknown"));
    await deliver(stripeEvent("checkout.session.completed", { client_reference_id: null, payment_intent: "pi_none", payment_status: "paid" }));
    await deliver(stripeEvent("checkout.session.expired", { client_reference_id: "Y".repeat(40) }));
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["open", SESSION.id]);
    expect(await left(s)).toBe(4);
    // An unknown group is logged (the notice names one this service never made); a notice naming none is not.
    expect(warned.lines.map((l) => JSON.parse(l).type)).toEqual(["checkout.session.completed", "checkout.session.expired"]);
  });

  it("an event of another API version than the pinned one is handled all the same, and logged as a warning naming both", async () => {
    const warned = expectLogged("warn", /"msg":"stripe webhook endpoint uses another API version/);
    const api = await sessionStub();
    const s = await shop(5);
    const pinned = await placeOrder(s, api, 1);
    await deliver(completed(pinned, "pi_pinned"));
    expect((await row(pinned.id)).paymentStatus).toBe("paid");
    const versionWarnings = () => warned.lines.map((line) => JSON.parse(line)).filter((l) => l.msg.includes("API version"));
    expect(versionWarnings()).toEqual([]);

    const other = await placeOrder(s, api, 1, "bob@example.com");
    const body = stripeEvent("checkout.session.completed", { ...sessionOf(other), payment_intent: "pi_older", payment_status: "paid" }, "2024-06-20");
    await deliver(body);
    const r = await row(other.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["paid", "pi_older"]);
    expect(versionWarnings()).toMatchObject([{ level: "warn", event_id: JSON.parse(body).id, api_version: "2024-06-20", pinned: PINNED_VERSION }]);
  });

  it("other event types are acknowledged with 200 and ignored, even when they name an open order's group", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 2);
    for (const type of ["payment_intent.succeeded", "charge.succeeded", "charge.refunded", "checkout.session.created", "customer.created"]) {
      await deliver(stripeEvent(type, { client_reference_id: o.uid, payment_intent: "pi_other", payment_status: "paid", status: "complete" }));
    }
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["open", SESSION.id]);
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await left(s)).toBe(3);
    expect(await logsOf(o.id)).toEqual([]);
  });
});

describe('Stripe notices are matched with the stored checkout (decisions.md 15 "Payments are matched, not trusted")', () => {
  /** What a refused notice must leave: the order open with its session, no tickets, nothing sold, the stock held. */
  async function expectUntouched(s: Shop, o: Json, held: number): Promise<void> {
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["open", SESSION.id]);
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await sold(s)).toEqual({ event: 0, type: 0 });
    expect(await left(s)).toBe(held);
  }

  /** Exactly one `Payment` log entry on the order, naming `what`, and no secret of the deployment. */
  async function expectMismatchLogged(s: Shop, o: Json, what: RegExp): Promise<void> {
    const entries = await logsOf(o.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toMatch(what);
    expect(entries[0]!.description).not.toContain(WEBHOOK_SECRET);
    expect(entries[0]!.description).not.toContain(SECRET_KEY);
  }

  it("a paid session naming our group with another session id, amount or currency (or none) pays nothing: 200, logged as Payment, the order still open; the genuine notice then pays", async () => {
    const cases: [string, Json, RegExp][] = [
      ["another Checkout Session (another Checkout or Payment Link of the account)", { id: "cs_test_other" }, /session/i],
      ["another amount (1.00 for 10.00)", { amount_total: 100 }, /amount/i],
      ["another currency (usd for eur)", { currency: "usd" }, /currency/i],
      ["no amount at all", { amount_total: null }, /amount/i],
    ];
    for (const [what, change, named] of cases) {
      const api = await sessionStub();
      const s = await shop(5);
      const o = await placeOrder(s, api, 1);
      const refunds = unique("stripe-refunds-");
      await programStub(refunds, { body: REFUND_BODY });
      await deliver(completed(o, "pi_wrong", change), refunds);
      await expectUntouched(s, o, 4);
      await expectMismatchLogged(s, o, named);
      expect(await receivedBy(refunds), what).toEqual([]);

      await deliver(completed(o, "pi_right"), refunds);
      const r = await row(o.id);
      expect([what, r.paymentStatus, r.paymentId]).toEqual([what, "paid", "pi_right"]);
      expect(await ticketIds(o.id)).toHaveLength(1);
      expect(await logsOf(o.id)).toHaveLength(1);
    }
  });

  it("async_payment_succeeded is matched the same way", async () => {
    const api = await sessionStub();
    const s = await shop(5);
    const o = await placeOrder(s, api, 2);
    const notice = (extra: Json) =>
      stripeEvent("checkout.session.async_payment_succeeded", { ...sessionOf(o), payment_intent: "pi_async", payment_status: "paid", status: "complete", ...extra });
    await deliver(notice({ amount_total: 1 }));
    await expectUntouched(s, o, 3);
    await expectMismatchLogged(s, o, /amount/i);
    await deliver(notice({}));
    expect((await row(o.id)).paymentStatus).toBe("paid");
  });

  it("expired and async_payment_failed for another session cancel nothing: 200, logged, the stock still held", async () => {
    const api = await sessionStub();
    const s = await shop(6);
    const a = await placeOrder(s, api, 2);
    const b = await placeOrder(s, api, 2, "bob@example.com");
    await deliver(stripeEvent("checkout.session.expired", { ...sessionOf(a), id: "cs_test_someone_else", status: "expired", payment_status: "unpaid" }));
    await deliver(
      stripeEvent("checkout.session.async_payment_failed", {
        ...sessionOf(b),
        id: "cs_test_someone_else",
        payment_intent: "pi_x",
        payment_status: "unpaid",
        status: "complete",
      }),
    );
    for (const o of [a, b]) {
      const r = await row(o.id);
      expect([r.paymentStatus, r.paymentId]).toEqual(["open", SESSION.id]);
      await expectMismatchLogged(s, o, /session/i);
    }
    expect(await left(s)).toBe(2);
    expect(await reservationsOf(s, a.uid)).toHaveLength(1);

    // Their own session's notices do.
    await deliver(stripeEvent("checkout.session.expired", { ...sessionOf(a), status: "expired", payment_status: "unpaid" }));
    expect((await row(a.id)).paymentStatus).toBe("canceled");
    expect(await left(s)).toBe(4);
  });

  it("the right notice pays once; repeated after payment_id became the payment intent it is still matched (its checkout is kept) and changes and logs nothing", async () => {
    const api = await sessionStub();
    const s = await shop(5, "12.50");
    const o = await placeOrder(s, api, 2);
    expect((await row(o.id)).checkoutId).toBe(SESSION.id);
    const body = completed(o, "pi_once");
    await deliver(body);
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId, r.checkoutId]).toEqual(["paid", "pi_once", SESSION.id]);
    const issued = await ticketIds(o.id);
    expect(issued).toHaveLength(2);

    await deliver(body);
    await deliver(completed(o, "pi_once"));
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toEqual(issued);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await logsOf(o.id)).toEqual([]);

    // A forged-amount notice for the paid order changes nothing either, but is logged.
    await deliver(completed(o, "pi_once", { amount_total: 1 }));
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toEqual(issued);
    expect(await logsOf(o.id)).toHaveLength(1);
  });

  it("a late payment is matched too: a wrong one neither pays nor refunds the expired order; the right one still pays it", async () => {
    const api = await sessionStub();
    const s = await shop(2);
    const o = await placeOrder(s, api, 2);
    await expire(o, s, api);
    const refunds = unique("stripe-refunds-");
    await programStub(refunds, { body: REFUND_BODY });

    await deliver(completed(o, "pi_cheap", { amount_total: 100, currency: "usd" }), refunds);
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["expired", SESSION.id]);
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await left(s)).toBe(2);
    expect(await receivedBy(refunds)).toEqual([]);
    await expectMismatchLogged(s, o, /amount/i);

    await deliver(completed(o, "pi_late"), refunds);
    const late = await row(o.id);
    expect([late.paymentStatus, late.paymentId]).toEqual(["paid", "pi_late"]);
    expect(await ticketIds(o.id)).toHaveLength(2);
    expect(await left(s)).toBe(0);
    expect(await receivedBy(refunds)).toEqual([]);
  });
});

describe("late payment through Stripe (paid after the order expired)", () => {
  it("with stock left: the order becomes paid with tickets and the payment intent", async () => {
    const api = await sessionStub();
    const s = await shop(2);
    const o = await placeOrder(s, api, 2);
    await expire(o, s, api);
    expect(await left(s)).toBe(2);

    const refunds = unique("stripe-refunds-");
    await programStub(refunds, { body: REFUND_BODY });
    await deliver(completed(o, "pi_late"), refunds);
    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId, r.expiresAt]).toEqual(["paid", "pi_late", null]);
    expect(await ticketIds(o.id)).toHaveLength(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(0);
    expect(await receivedBy(refunds)).toEqual([]);
    // Nobody else can have the units now.
    const refused = await callStripe(api, orderRequest(s, 1, "bob@example.com"));
    expect(refused.status).toBe(409);
  });

  it("without stock left: Stripe refunds the payment intent in full, the order is refunded and logged, the other sale stands", async () => {
    const api = await sessionStub();
    const s = await shop(2, "12.50");
    const late = await placeOrder(s, api, 2);
    await expire(late, s, api);
    const other = await placeOrder(s, api, 2, "bob@example.com");
    await deliver(completed(other, "pi_other"));
    expect((await row(other.id)).paymentStatus).toBe("paid");

    const refunds = unique("stripe-refunds-");
    await programStub(refunds, { body: REFUND_BODY });
    await deliver(completed(late, "pi_late"), refunds);

    const got = await receivedBy(refunds);
    expect(got).toHaveLength(1);
    expectStripeCall(got[0], `/${refunds}/v1/refunds`);
    expect(form(got[0]!)).toStrictEqual({ payment_intent: "pi_late", amount: "2500" });

    const r = await row(late.id);
    expect([r.paymentStatus, r.paymentId]).toEqual(["refunded", "pi_late"]);
    expect(await ticketIds(late.id)).toEqual([]);
    const entries = await logsOf(late.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toContain("refunded");
    expect(entries[0]!.description).toContain("25.00 EUR");
    expect(entries[0]!.description).toContain("pi_late");
    // Never oversold: only the other customer's units are sold and taken.
    expect((await row(other.id)).paymentStatus).toBe("paid");
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(0);
    expect((await eventObject(env, s.event.id).snapshot()).reservations.map((x) => x.uid)).toEqual([other.uid]);

    // Stripe resending the event refunds nothing more.
    await deliver(completed(late, "pi_late"), refunds);
    expect(await receivedBy(refunds)).toHaveLength(1);
    expect((await row(late.id)).paymentStatus).toBe("refunded");
    expect(await logsOf(late.id)).toHaveLength(1);
  });

  it("a refund Stripe refuses (400) leaves the order expired, with a log entry saying to refund by hand", async () => {
    const api = await sessionStub();
    const s = await shop(2);
    const late = await placeOrder(s, api, 2);
    await expire(late, s, api);
    const other = await placeOrder(s, api, 2, "bob@example.com");
    await deliver(completed(other, "pi_other"));

    const refunds = unique("stripe-refunds-");
    await programStub(refunds, {
      status: 400,
      body: JSON.stringify({ error: { type: "invalid_request_error", code: "charge_already_refunded", message: "Charge ch_1 has already been refunded." } }),
    });
    await deliver(completed(late, "pi_late"), refunds);

    const got = await receivedBy(refunds);
    expect(got).toHaveLength(1);
    expectStripeCall(got[0], `/${refunds}/v1/refunds`);
    expect(form(got[0]!)).toStrictEqual({ payment_intent: "pi_late", amount: "2000" });

    expect((await row(late.id)).paymentStatus).toBe("expired");
    expect(await ticketIds(late.id)).toEqual([]);
    const entries = await logsOf(late.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toContain("by hand");
    expect(entries[0]!.description).toContain("20.00 EUR");
    expect(entries[0]!.description).toContain("Charge ch_1 has already been refunded.");
    expect((await row(other.id)).paymentStatus).toBe("paid");
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(0);
  });
});

describe("session expiry at Stripe", () => {
  it("expiring an open order past its deadline expires its Checkout Session at Stripe, once", async () => {
    const api = await sessionStub();
    const s = await shop(3);
    const o = await placeOrder(s, api, 2);
    expect(await left(s)).toBe(1);

    const expiry = unique("stripe-expiry-");
    await programStub(expiry, { body: JSON.stringify({ ...SESSION, status: "expired" }) });
    // Not due yet: nothing happens, nothing goes to Stripe.
    await expireOrder(stripeDeps(expiry), o.uid, s.event.id);
    expect((await row(o.id)).paymentStatus).toBe("open");
    expect(await receivedBy(expiry)).toEqual([]);

    await expire(o, s, expiry);
    const got = await receivedBy(expiry);
    expect(got).toHaveLength(1);
    expectStripeCall(got[0], `/${expiry}/v1/checkout/sessions/${SESSION.id}/expire`);
    expect(await left(s)).toBe(3);
    expect(await reservationsOf(s, o.uid)).toEqual([]);
    expect(await status(o)).toStrictEqual({ payment_status: "expired", tickets_ready: false, download_url: "" });

    // A second expiry (the alarm asking again) changes nothing and calls Stripe no more.
    await expireOrder(stripeDeps(expiry), o.uid, s.event.id);
    expect(await receivedBy(expiry)).toHaveLength(1);
    expect((await row(o.id)).paymentStatus).toBe("expired");
  });

  it("Stripe failing to expire the session still expires the order here (its late payment is handled)", async () => {
    const api = await sessionStub();
    const s = await shop(3);
    const o = await placeOrder(s, api, 1);
    const expiry = unique("stripe-expiry-");
    await programStub(expiry, { status: 400, body: JSON.stringify({ error: { message: "Only Checkout Sessions with a status of open can be expired." } }) });
    await expire(o, s, expiry);
    expect(await receivedBy(expiry)).toHaveLength(1);
    expect(await left(s)).toBe(3);
  });

  it("an order paid through the test provider never calls Stripe when it expires", async () => {
    const api = await sessionStub();
    const s = await shop(3, 10, { test_payments_needed: true });
    const o = await placeOrder(s, api, 1);
    const expiry = unique("stripe-expiry-");
    await programStub(expiry, { body: SESSION_BODY });
    await expire(o, s, expiry);
    expect(await receivedBy(expiry)).toEqual([]);
    expect(await left(s)).toBe(3);
  });
});
