import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emails, logs, orders, tickets } from "../../../src/db/schema";
import { expireOrder } from "../../../src/features/payments/payments.service";
import worker from "../../../src/index";
import { depsFromEnv } from "../../../src/platform/deps";
import { eventObject } from "../../../src/platform/event-object.client";
import { handleQueue } from "../../../src/queue";
import { BASE, ORIGIN, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { expectLogged } from "../../helpers/logs";
import { MOLLIE_KEY, mollieAccount, type MollieAccount, type MollieRequest } from "../../helpers/mollie";

/**
 * Mollie's Payments API v2 as the payment provider (decisions.md 15 "Selling like the peers", "Payments are matched,
 * not trusted"; docs/who-may-order.md "Mollie"): a payment per payment group, the webhook carrying only the payment's
 * id (fetched from Mollie and matched), cancellation at our deadline, refunds with Mollie's Idempotency-Key. Mollie is
 * the stateful stand-in of test/stubs/mollie-api.ts, one account per test; the service runs with
 * PAYMENT_PROVIDER=mollie pointed at it.
 */

type Json = Record<string, any>;
type OrderRow = typeof orders.$inferSelect;

interface Shop {
  event: Json;
  type: Json;
}

async function callWith(e: typeof env, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function shop(stock: number, price: number | string = 10, event: Json = {}): Promise<Shop> {
  const e = await createEvent({ event_name: unique("Mollie "), ...event });
  const t = await createTicketType(e.id, { name: "Limited", price, maximum_to_order: 0, stock_control: true, stock });
  return { event: e, type: t };
}

function orderRequest(s: Shop, count: number, email: string): Request {
  return request("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email, tickets: [{ [s.type.id]: count }] } });
}

async function placeOrder(m: MollieAccount, s: Shop, count = 1, email = "ann@example.com"): Promise<Json> {
  return expectJson(callWith(m.env(), orderRequest(s, count, email)), 201);
}

async function row(id: number): Promise<OrderRow> {
  const r = await db.select().from(orders).where(eq(orders.id, id)).get();
  expect(r, `order ${id} in D1`).toBeDefined();
  return r!;
}

const ticketIds = async (orderId: number) => (await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, orderId))).map((t) => t.id).sort();
const logsOf = (orderId: number) => db.select().from(logs).where(eq(logs.orderId, orderId));
const left = async (s: Shop) => (await eventObject(env, s.event.id).remaining())!.types[s.type.id];
const apiCalls = async (m: MollieAccount, method?: string) => (await m.requests()).filter((r) => method === undefined || r.method === method);

/** Mollie calling the webhook: a form body, no key, no credentials. */
function webhook(m: MollieAccount, body: string, contentType = "application/x-www-form-urlencoded"): Promise<Response> {
  return callWith(
    m.env(),
    new Request(`${BASE}/payments/mollie/webhook`, { method: "POST", headers: { "Content-Type": contentType, "User-Agent": "Mollie HTTP client/1.0" }, body }),
  );
}

async function notify(m: MollieAccount, paymentId: string): Promise<void> {
  expect(await expectJson(webhook(m, `id=${paymentId}`), 200)).toStrictEqual({ received: true });
}

/** The customer pays at Mollie, and Mollie calls the webhook. */
async function pay(m: MollieAccount, o: Json): Promise<void> {
  await m.setPayment(o.payment_id, { status: "paid" });
  await notify(m, o.payment_id);
}

function expectMollieCall(r: MollieRequest | undefined, method: string, path: string): void {
  expect(r, `${method} ${path}`).toBeDefined();
  expect([r!.method, r!.path]).toEqual([method, path]);
  expect(r!.headers["authorization"]).toBe(`Bearer ${MOLLIE_KEY}`);
}

describe("a customer order with PAYMENT_PROVIDER mollie", () => {
  it("creates a Mollie payment as its API takes it (amount as a two-decimal string, redirectUrl, webhookUrl, metadata) and answers its checkout link", async () => {
    const m = await mollieAccount();
    const s = await shop(10, "12.55");
    const o = await placeOrder(m, s, 2);

    const got = await apiCalls(m);
    expect(got).toHaveLength(1);
    expectMollieCall(got[0], "POST", "/v2/payments");
    expect(got[0]!.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(got[0]!.body)).toStrictEqual({
      amount: { currency: "EUR", value: "25.10" },
      description: s.event.event_name,
      redirectUrl: `${BASE}/orders/${o.id}/${o.uid}/status`,
      webhookUrl: `${BASE}/payments/mollie/webhook`,
      metadata: { payment_group: o.uid },
    });
    const payment = (await m.api("GET", `/v2/payments/${o.payment_id}`)).body;
    expect(o.payment_id).toMatch(/^tr_[A-Za-z0-9]+$/);
    expect(o.payment).toMatchObject({ provider: "mollie", checkout_url: payment._links.checkout.href });
    expect(o.payment_status).toBe("open");
    expect(await left(s)).toBe(8);
  });

  it('the webhookUrl follows PUBLIC_URL when it is set (decisions.md 15 "Links in emails and pages")', async () => {
    const m = await mollieAccount();
    const s = await shop(10);
    await expectJson(callWith(m.env({ PUBLIC_URL: "https://tickets.example.com" }), orderRequest(s, 1, "ann@example.com")), 201);
    const [created] = await apiCalls(m, "POST");
    expect(JSON.parse(created!.body).webhookUrl).toBe("https://tickets.example.com/ticketing/v1/payments/mollie/webhook");
  });

  it("Mollie refusing the payment: 502 order_payment_unavailable, the order failed, its stock back, Mollie's detail logged", async () => {
    const m = await mollieAccount();
    const s = await shop(3);
    await m.down(422);
    await expectError(callWith(m.env(), orderRequest(s, 3, "ann@example.com")), 502, "order_payment_unavailable");
    const [failed] = await db.select().from(orders).where(eq(orders.eventId, s.event.id));
    expect(failed!.paymentStatus).toBe("failed");
    expect(await left(s)).toBe(3);
    expect((await logsOf(failed!.id))[0]!.description).toContain("programmed outage");
  });
});

describe("POST /payments/mollie/webhook", () => {
  it("paid: the order is paid (no key), with tickets, sold and its email; the same notice again changes nothing", async () => {
    const m = await mollieAccount();
    const s = await shop(5, 10, { emails_needed: true, email: { subject: "Your tickets", body: "Thanks" } });
    const o = await placeOrder(m, s, 2);
    await pay(m, o);

    const r = await row(o.id);
    expect([r.paymentStatus, r.paymentId, r.expiresAt]).toEqual(["paid", o.payment_id, null]);
    const issued = await ticketIds(o.id);
    expect(issued).toHaveLength(2);
    expect(await db.select().from(emails).where(eq(emails.orderId, o.id))).toHaveLength(1);
    expect(await left(s)).toBe(3);
    // The service fetched the payment with its key: the notice itself was not believed.
    expectMollieCall((await apiCalls(m, "GET"))[0], "GET", `/v2/payments/${o.payment_id}`);

    await notify(m, o.payment_id);
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toEqual(issued);
    expect(await db.select().from(emails).where(eq(emails.orderId, o.id))).toHaveLength(1);
    expect(await left(s)).toBe(3);
    expect(await logsOf(o.id)).toEqual([]);
  });

  it("open, pending and authorized change nothing: the order stays open and holds its stock", async () => {
    const m = await mollieAccount();
    const s = await shop(5);
    const o = await placeOrder(m, s, 2);
    for (const status of ["open", "pending", "authorized"]) {
      await m.setPayment(o.payment_id, { status });
      await notify(m, o.payment_id);
      expect((await row(o.id)).paymentStatus, status).toBe("open");
    }
    expect(await left(s)).toBe(3);
    expect(await ticketIds(o.id)).toEqual([]);
  });

  it("canceled and expired cancel the order and give its stock back; failed fails it, gives it back and is logged", async () => {
    const m = await mollieAccount();
    const s = await shop(6);
    const outcomes: [string, string][] = [
      ["canceled", "canceled"],
      ["expired", "canceled"],
      ["failed", "failed"],
    ];
    for (const [status, ours] of outcomes) {
      const o = await placeOrder(m, s, 2, `${status}@example.com`);
      expect(await left(s)).toBe(4);
      await m.setPayment(o.payment_id, { status });
      await notify(m, o.payment_id);
      expect((await row(o.id)).paymentStatus, status).toBe(ours);
      expect(await left(s), status).toBe(6);
      const entries = await logsOf(o.id);
      if (status === "failed") expect(entries[0]!.description).toContain("Mollie reports the payment failed");
      else expect(entries).toEqual([]);
    }
  });

  it("a payment naming our group with another amount, another currency, or another payment id pays nothing: 200, logged as Payment; the genuine one then pays", async () => {
    const m = await mollieAccount();
    const s = await shop(5, "10.00");
    const o = await placeOrder(m, s, 1);

    await m.setPayment(o.payment_id, { status: "paid", amount: { currency: "EUR", value: "0.01" } });
    await notify(m, o.payment_id);
    await m.setPayment(o.payment_id, { amount: { currency: "USD", value: "10.00" } });
    await notify(m, o.payment_id);
    // Another payment of the same account whose metadata names our group (anyone with a Mollie account can write it).
    const other = (
      await m.api("POST", "/v2/payments", {
        amount: { currency: "EUR", value: "10.00" },
        description: "x",
        redirectUrl: "https://x.test/",
        metadata: { payment_group: o.uid },
      })
    ).body;
    await m.setPayment(other.id, { status: "paid" });
    await notify(m, other.id);

    expect((await row(o.id)).paymentStatus).toBe("open");
    expect(await ticketIds(o.id)).toEqual([]);
    const entries = (await logsOf(o.id)).map((e) => e.description);
    expect(entries).toHaveLength(3);
    expect(entries.every((d) => d.includes("changed nothing"))).toBe(true);
    expect((await logsOf(o.id)).every((e) => e.logType === "Payment")).toBe(true);
    expect(entries[0]).toContain("0.01");
    expect(entries[1]).toContain("USD");
    expect(entries[2]).toContain(other.id);

    await m.setPayment(o.payment_id, { amount: { currency: "EUR", value: "10.00" } });
    await notify(m, o.payment_id);
    expect((await row(o.id)).paymentStatus).toBe("paid");
  });

  it("an id Mollie does not know, or a payment of no group of ours, is answered 200 and changes nothing", async () => {
    const m = await mollieAccount();
    const s = await shop(5);
    const o = await placeOrder(m, s, 1);
    await notify(m, "tr_doesNotExist1");
    const stranger = (
      await m.api("POST", "/v2/payments", {
        amount: { currency: "EUR", value: "10.00" },
        description: "x",
        redirectUrl: "https://x.test/",
        metadata: { payment_group: "no-such-group" },
      })
    ).body;
    await m.setPayment(stranger.id, { status: "paid" });
    const logged = expectLogged("warn", /mollie payment for an unknown payment group/);
    await notify(m, stranger.id);
    expect(logged.lines).toHaveLength(1);
    const bare = (await m.api("POST", "/v2/payments", { amount: { currency: "EUR", value: "10.00" }, description: "x", redirectUrl: "https://x.test/" })).body;
    await m.setPayment(bare.id, { status: "paid" });
    await notify(m, bare.id);
    expect((await row(o.id)).paymentStatus).toBe("open");
  });

  it("a body without one well-formed id is a 400 rest_invalid_param, and nothing is asked of Mollie", async () => {
    const m = await mollieAccount();
    for (const body of ["", "id=", "id=abc", "id=tr_", "id=tr_a%2F..%2Fb", "id=tr_1&id=tr_2", "payment=tr_abc", `id=tr_${"a".repeat(65)}`]) {
      await expectError(webhook(m, body), 400, "rest_invalid_param");
    }
    await expectError(webhook(m, JSON.stringify({ id: "tr_abc" }), "application/json"), 400, "rest_invalid_param");
    expect(await apiCalls(m)).toEqual([]);
  });

  it("a deployment without MOLLIE_API_KEY answers a notice 200 without calling out (nothing can be fetched or matched), with a warning", async () => {
    const m = await mollieAccount();
    const s = await shop(5);
    const o = await placeOrder(m, s, 1);
    await m.setPayment(o.payment_id, { status: "paid" });
    const logged = expectLogged("warn", /mollie notice but no MOLLIE_API_KEY/);
    const res = await callWith(
      m.env({ PAYMENT_PROVIDER: "test", MOLLIE_API_KEY: undefined }),
      new Request(`${BASE}/payments/mollie/webhook`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `id=${o.payment_id}` }),
    );
    expect(await expectJson(res, 200)).toStrictEqual({ received: true });
    expect(logged.lines).toHaveLength(1);
    expect(await apiCalls(m, "GET")).toEqual([]);
    expect((await row(o.id)).paymentStatus).toBe("open");
  });

  it("Mollie unreachable (503): the webhook answers 503 so Mollie retries, nothing changes; the retry after Mollie is back pays", async () => {
    const m = await mollieAccount();
    const s = await shop(5);
    const o = await placeOrder(m, s, 1);
    await m.setPayment(o.payment_id, { status: "paid" });
    await m.down(503);
    const logged = expectLogged("warn", /mollie payment could not be fetched/);
    const res = await webhook(m, `id=${o.payment_id}`);
    await expectError(res, 503, "payment_provider_unavailable");
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(logged.lines).toHaveLength(1);
    expect((await row(o.id)).paymentStatus).toBe("open");
    await m.down(null);
    await notify(m, o.payment_id);
    expect((await row(o.id)).paymentStatus).toBe("paid");
  });
});

describe("our payment deadline at Mollie", () => {
  const mollieDeps = (m: MollieAccount) => depsFromEnv(m.env(), undefined, ORIGIN);

  it("expiring an open order past its deadline cancels its payment at Mollie, once; Mollie's canceled notice then changes nothing", async () => {
    const m = await mollieAccount();
    const s = await shop(3);
    const o = await placeOrder(m, s, 2);
    await expireOrder(mollieDeps(m), o.uid, s.event.id);
    expect((await row(o.id)).paymentStatus).toBe("open");
    expect(await apiCalls(m, "DELETE")).toEqual([]);

    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, o.id));
    await expireOrder(mollieDeps(m), o.uid, s.event.id);
    expect((await row(o.id)).paymentStatus).toBe("expired");
    const deletes = await apiCalls(m, "DELETE");
    expect(deletes).toHaveLength(1);
    expectMollieCall(deletes[0], "DELETE", `/v2/payments/${o.payment_id}`);
    expect((await m.api("GET", `/v2/payments/${o.payment_id}`)).body.status).toBe("canceled");
    expect(await left(s)).toBe(3);

    await expireOrder(mollieDeps(m), o.uid, s.event.id);
    expect(await apiCalls(m, "DELETE")).toHaveLength(1);
    await notify(m, o.payment_id);
    expect((await row(o.id)).paymentStatus).toBe("expired");
  });
});

/** A Queue binding that only records: the jobs a call enqueued stay here until the test hands them to the consumer. */
function recordingJobs() {
  const sent: unknown[] = [];
  const JOBS = {
    async send(body: unknown) {
      sent.push(body);
    },
    async sendBatch(messages: { body: unknown }[]) {
      for (const mm of messages) sent.push(mm.body);
    },
  };
  return { sent, JOBS };
}

async function consume(m: MollieAccount, jobs: unknown[]) {
  const batch = createMessageBatch<unknown>(
    "ticketing-jobs",
    jobs.map((body, i) => ({ id: `refund-${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
  );
  await handleQueue(batch, m.env());
  return getQueueResult(batch, createExecutionContext());
}

/** An admin call under the Mollie configuration; the refund jobs it queues are answered, not consumed. */
async function adminRefund(m: MollieAccount, path: string, body: Json): Promise<{ answer: Json; jobs: unknown[] }> {
  const { sent, JOBS } = recordingJobs();
  const res = await callWith(m.env({ JOBS }), request("POST", path, { body }));
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return { answer: await res.json(), jobs: sent.filter((j) => (j as Json).kind === "order.refund") };
}

const refundsAt = async (m: MollieAccount, paymentId: string) => (await m.api("GET", `/v2/payments/${paymentId}/refunds`)).body._embedded.refunds as Json[];

describe("refunds through Mollie", () => {
  it("one order's refund: Mollie's refunds with the amount as a two-decimal string in the order's currency and an Idempotency-Key; asked again after a crash, still one refund", async () => {
    const m = await mollieAccount();
    const s = await shop(5, "12.50");
    const o = await placeOrder(m, s, 2);
    await pay(m, o);
    const { jobs } = await adminRefund(m, `/admin/orders/${o.id}/refund`, { amount: 20 });
    expect(jobs).toHaveLength(1);
    await consume(m, jobs);

    const posts = (await apiCalls(m, "POST")).filter((r) => r.path.endsWith("/refunds"));
    expect(posts).toHaveLength(1);
    expectMollieCall(posts[0], "POST", `/v2/payments/${o.payment_id}/refunds`);
    expect(JSON.parse(posts[0]!.body)).toStrictEqual({ amount: { currency: "EUR", value: "20.00" } });
    const key = posts[0]!.headers["idempotency-key"];
    expect(key).toBeTruthy();
    expect((await row(o.id)).paymentStatus).toBe("refunded");
    expect(await ticketIds(o.id)).toEqual([]);

    // A consumer that died after Mollie refunded and before our batch: the order is paid again with a stale claim,
    // and the job runs again. The same key reaches Mollie, which answers the first refund: money moved once.
    await db
      .update(orders)
      .set({ paymentStatus: "paid", refundStartedAt: Math.floor(Date.now() / 1000) - 3600 })
      .where(eq(orders.id, o.id));
    await consume(m, jobs);
    const again = (await apiCalls(m, "POST")).filter((r) => r.path.endsWith("/refunds"));
    expect(again).toHaveLength(2);
    expect(again[1]!.headers["idempotency-key"]).toBe(key);
    expect(await refundsAt(m, o.payment_id)).toHaveLength(1);
    expect((await row(o.id)).paymentStatus).toBe("refunded");
  });

  it("bulk refunds: each order refunded at Mollie less the cost, once even when the order is named twice", async () => {
    const m = await mollieAccount();
    const s = await shop(5, 10);
    const a = await placeOrder(m, s, 2, "a@example.com");
    const b = await placeOrder(m, s, 1, "b@example.com");
    await pay(m, a);
    await pay(m, b);
    const { answer, jobs } = await adminRefund(m, "/admin/bulk/refunds/send", { order_ids: [a.id, b.id, a.id], cost_type: "ticket", cost: 0.5 });
    expect(answer.errors).toEqual([]);
    await consume(m, jobs);
    await consume(m, jobs);
    const refundsA = await refundsAt(m, a.payment_id);
    const refundsB = await refundsAt(m, b.payment_id);
    expect(refundsA.map((r) => r.amount)).toEqual([{ currency: "EUR", value: "19.00" }]);
    expect(refundsB.map((r) => r.amount)).toEqual([{ currency: "EUR", value: "9.50" }]);
    expect((await row(a.id)).paymentStatus).toBe("refunded");
    expect((await row(b.id)).paymentStatus).toBe("refunded");
  });

  it("a refund Mollie refuses leaves the order paid with its tickets, logged with Mollie's detail", async () => {
    const m = await mollieAccount();
    const s = await shop(5, 10);
    const o = await placeOrder(m, s, 1);
    await pay(m, o);
    // Refunded already in Mollie's dashboard: nothing remains to refund.
    await m.setPayment(o.payment_id, { amountRefunded: { currency: "EUR", value: "10.00" } });
    const { jobs } = await adminRefund(m, `/admin/orders/${o.id}/refund`, {});
    await consume(m, jobs);
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toHaveLength(1);
    const entries = await logsOf(o.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ logType: "Payment" });
    expect(entries[0]!.description).toContain("higher than the remaining amount");
    expect(entries[0]!.description).toContain("stays paid");
    expect(await refundsAt(m, o.payment_id)).toEqual([]);
  });

  it("a late payment without stock left is refunded at Mollie in full, in the order's currency", async () => {
    const m = await mollieAccount();
    const s = await shop(2, "12.50");
    const late = await placeOrder(m, s, 2);
    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, late.id));
    // Mollie failing to cancel does not keep the order open (the payment is still payable at Mollie).
    await m.down(503);
    const logged = expectLogged("warn", /checkout expiry at the provider failed/);
    await expireOrder(depsFromEnv(m.env(), undefined, ORIGIN), late.uid, s.event.id);
    expect(logged.lines).toHaveLength(1);
    await m.down(null);
    expect((await row(late.id)).paymentStatus).toBe("expired");
    const other = await placeOrder(m, s, 2, "bob@example.com");
    await pay(m, other);

    await pay(m, late);
    expect(await refundsAt(m, late.payment_id)).toEqual([expect.objectContaining({ amount: { currency: "EUR", value: "25.00" } })]);
    expect((await row(late.id)).paymentStatus).toBe("refunded");
    expect((await row(other.id)).paymentStatus).toBe("paid");
    await notify(m, late.payment_id);
    expect(await refundsAt(m, late.payment_id)).toHaveLength(1);
  });
});

describe("settings", () => {
  const healthWith = (overrides: Record<string, unknown>) =>
    worker.fetch(request("GET", "/health", { key: null, auth: null }), { ...env, DB: undefined, ...overrides } as unknown as typeof env, createExecutionContext());

  it("PAYMENT_PROVIDER=mollie needs MOLLIE_API_KEY, and a key shaped like Mollie's (test_... or live_...)", async () => {
    const logged = expectLogged("error", /invalid configuration/);
    expect(await expectJson(healthWith({ PAYMENT_PROVIDER: "mollie", MOLLIE_API_KEY: undefined }), 503)).toStrictEqual({
      status: "misconfigured",
      settings: ["MOLLIE_API_KEY"],
    });
    expect(await expectJson(healthWith({ PAYMENT_PROVIDER: "mollie", MOLLIE_API_KEY: "sk_test_notmollie" }), 503)).toStrictEqual({
      status: "misconfigured",
      settings: ["MOLLIE_API_KEY"],
    });
    expect(logged.lines.join("\n")).not.toContain("sk_test_notmollie");
    expect(await expectJson(healthWith({ PAYMENT_PROVIDER: "mollie", MOLLIE_API_KEY: "live_abc123" }), 200)).toEqual({ status: "ok" });
  });
});
