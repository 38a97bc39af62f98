import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { logs, webhookDeliveries, webhooks } from "../../../src/db/schema";
import { jobHandlers } from "../../../src/queue";
import { consumeJobs } from "../../../src/queue";
import type { JobHandler } from "../../../src/platform/parse-job";
import type { JobMessage, WebhookDeliveryJob } from "../../../src/platform/messages";
import { depsFromEnv, type Deps } from "../../../src/platform/deps";
import type { WebhookTopic } from "../../../src/domain/webhook-topics";
import { attemptDelivery, fireTopic, pruneDeliveryLog, resendStalledDeliveries } from "../../../src/features/messaging/webhook-deliveries.service";
import { call, expectJson, unique } from "../../helpers/api";
import { createEvent, db } from "../../helpers/catalogue";
import { expectLogged } from "../../helpers/logs";
import { programStub, receivedBy, stubUrl, waitForRequests, type StubBehaviour, type StubRequest } from "../../helpers/stubs";

/**
 * Webhook deliveries (decisions.md 8, 12, 13): topics become delivery rows and queue messages, the consumer sends
 * them with retries after the minutes of `retry_scheme`, keeps the counters, logs final failures, disables a
 * webhook at its `failure_threshold`, skips duplicates and deleted webhooks, and loses nothing when a batch throws.
 *
 * Some tests go through the real local queue (consumer batch timeout 1 s) and poll the receiver; others call the
 * service with a queue that only records what would be sent, so that delays can be read and nothing else runs.
 * Storage is shared by the tests of this file: each uses its own webhooks and stub name, and all webhooks are
 * switched off after each test.
 */

type Json = Record<string, any>;

const NEVER = "0000-00-00 00:00:00";
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const SOURCE = "https://ticketing.test/ticketing/v1";

afterEach(async () => {
  await db.update(webhooks).set({ enabled: false });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sent {
  job: JobMessage;
  delaySeconds?: number;
}

/** Deps whose job queue only records what would have been sent. */
function capturing(now?: () => number): { deps: Deps; sent: Sent[] } {
  const sent: Sent[] = [];
  const base = depsFromEnv(env);
  return {
    sent,
    deps: {
      ...base,
      now: now ?? base.now,
      jobs: {
        send: async (job, delaySeconds) => void sent.push(delaySeconds === undefined ? { job } : { job, delaySeconds }),
        sendAll: async (jobs) => {
          for (const job of jobs) sent.push({ job });
        },
      },
    },
  };
}

async function consumerSignature(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  let binary = "";
  for (const b of mac) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A webhook posting to the stub `name` (programmed fresh), created through the API and switched on. */
async function hookFor(name: string, topic: WebhookTopic, extra: Json = {}, behaviour: StubBehaviour = {}): Promise<Json> {
  await programStub(name, behaviour);
  const hook = await expectJson(call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: `secret-${name}`, topic, ...extra } }), 201);
  return expectJson(call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: true } }), 200);
}

async function getHook(id: number): Promise<Json> {
  return expectJson(call("GET", `/admin/webhooks/${id}`), 200);
}

async function hookWhen(id: number, done: (h: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const hook = await getHook(id);
    if (done(hook) || Date.now() > until) return hook;
    await sleep(100);
  }
}

async function deliveryRow(id: string) {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
}

async function deliveriesOf(webhookId: number) {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
}

async function webhookLogs(text: string) {
  const rows = await db.select().from(logs).where(eq(logs.logType, "Webhook")).orderBy(desc(logs.id));
  return rows.filter((r) => r.description.includes(text));
}

/** Fires `topic` for one occurrence with a recording queue; answers the queued attempt-1 jobs. */
async function fireCaptured(topic: WebhookTopic, payload: unknown, eventId = 0): Promise<WebhookDeliveryJob[]> {
  const { deps, sent } = capturing();
  await fireTopic(deps, topic, { eventId, payload, source: SOURCE });
  return sent.map((s) => s.job as WebhookDeliveryJob);
}

function batchOf(messages: { id: string; body: unknown; attempts?: number }[]) {
  return createMessageBatch(
    "ticketing-jobs",
    messages.map((m) => ({ id: m.id, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
  );
}

/** The warning of a delivery that failed for good, which the tests of a failing receiver provoke (this hook's only). */
function expectFailureLogged(hookId: number) {
  return expectLogged("warn", new RegExp(`"msg":"webhook delivery failed","webhook_id":${hookId},`));
}

function expectSameDelivery(got: StubRequest[], deliveryId: string, body: string) {
  for (const r of got) {
    expect(r.headers["x-evt-webhook-delivery-id"]).toBe(deliveryId);
    expect(r.body).toBe(body);
  }
}

// ---------------------------------------------------------------------------------------------------------------

describe("fireTopic", () => {
  it("writes one pending delivery per enabled webhook of the topic, raises pending, and queues attempt 1 of each", async () => {
    const a = await hookFor("fire-a", "order.refunded");
    const b = await hookFor("fire-b", "order.refunded");
    const off = await expectJson(call("POST", "/admin/webhooks", { body: { name: "off", url: stubUrl("/fire-off/hook"), secret: "x", topic: "order.refunded" } }), 201);
    const other = await hookFor("fire-other", "order.deleted");
    const payload = { id: 4711, note: "Grüße ✓" };
    const { deps, sent } = capturing();
    expect(await fireTopic(deps, "order.refunded", { eventId: 0, payload, source: SOURCE })).toBe(2);

    const rows = [...(await deliveriesOf(a.id)), ...(await deliveriesOf(b.id))];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ topic: "order.refunded", eventId: 0, body: JSON.stringify(payload), source: SOURCE, status: "pending", attempts: 0 });
      expect(row.id).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(sent.map((s) => s.job).sort((x, y) => String(x.deliveryId).localeCompare(String(y.deliveryId)))).toEqual(
      rows.map((r) => ({ v: 1, kind: "webhook.deliver", deliveryId: r.id, attempt: 1 })).sort((x, y) => x.deliveryId.localeCompare(y.deliveryId)),
    );
    expect((await getHook(a.id)).pending).toBe(1);
    expect((await getHook(b.id)).pending).toBe(1);
    expect((await getHook(off.id)).pending).toBe(0);
    expect((await getHook(other.id)).pending).toBe(0);
    expect(await deliveriesOf(off.id)).toEqual([]);
    expect(await deliveriesOf(other.id)).toEqual([]);
  });

  it("order topics follow the event's webhooks_needed; event topics ignore it", async () => {
    const orders = await hookFor("needed-order", "order.updated");
    const eventsHook = await hookFor("needed-event", "event.updated");
    const off = await createEvent({ event_name: unique("Needed off "), webhooks_needed: false });
    const on = await createEvent({ event_name: unique("Needed on "), webhooks_needed: true });

    expect(await fireCaptured("order.updated", { id: 1 }, off.id)).toEqual([]);
    expect(await deliveriesOf(orders.id)).toEqual([]);
    expect(await fireCaptured("order.updated", { id: 2 }, on.id)).toHaveLength(1);
    expect(await fireCaptured("event.updated", { id: off.id }, off.id)).toHaveLength(1);
    expect((await deliveriesOf(orders.id)).map((d) => d.body)).toEqual([JSON.stringify({ id: 2 })]);
    expect((await deliveriesOf(eventsHook.id)).map((d) => d.eventId)).toEqual([off.id]);
  });

  it("fires nothing when no enabled webhook has the topic", async () => {
    const { deps, sent } = capturing();
    expect(await fireTopic(deps, "tickets.downloaded", { eventId: 0, payload: {}, source: SOURCE })).toBe(0);
    expect(sent).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("retries through the queue", { timeout: 30_000 }, () => {
  it("a receiver failing 2 times with scheme 0,0,0 gets 3 requests with one delivery id; delivered 1, retries 2", async () => {
    const name = "retry-2";
    const hook = await hookFor(name, "event.created", { retry_scheme: "0,0,0" }, { failTimes: 2, failStatus: 500 });
    await createEvent({ event_name: unique("Retry2 ") });
    const got = await waitForRequests(name, 3, 15_000);
    expect(got).toHaveLength(3);
    const deliveryId = got[0]!.headers["x-evt-webhook-delivery-id"]!;
    expectSameDelivery(got, deliveryId, got[0]!.body);
    for (const r of got) expect(r.headers["x-evt-webhook-signature"]).toBe(await consumerSignature(hook.secret, r.body));

    const after = await hookWhen(hook.id, (h) => h.delivered === 1 && h.pending === 0);
    expect(after).toMatchObject({ delivered: 1, retries: 2, failed: 0, pending: 0, last_failure: NEVER, enabled: true });
    expect(after.last_retry).toMatch(DATE_TIME);
    expect(after.last_retry).not.toBe(NEVER);
    expect(after.last_success).toMatch(DATE_TIME);
    expect(after.last_success).not.toBe(NEVER);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "delivered", attempts: 3 });
    expect(await webhookLogs(deliveryId)).toEqual([]);
    await sleep(1200);
    expect(await receivedBy(name)).toHaveLength(3);
  });

  it("a receiver failing 4 times with scheme 0,0,0 gets 4 requests; failed 1, retries 3, last_failure set, logged", async () => {
    const name = "retry-4";
    const hook = await hookFor(name, "event.created", { retry_scheme: "0,0,0" }, { failTimes: 4, failStatus: 502 });
    const failures = expectFailureLogged(hook.id);
    const event = await createEvent({ event_name: unique("Retry4 ") });
    const got = await waitForRequests(name, 4, 20_000);
    expect(got).toHaveLength(4);
    const deliveryId = got[0]!.headers["x-evt-webhook-delivery-id"]!;
    expectSameDelivery(got, deliveryId, got[0]!.body);

    const after = await hookWhen(hook.id, (h) => h.failed === 1 && h.pending === 0);
    expect(after).toMatchObject({ delivered: 0, retries: 3, failed: 1, pending: 0, last_success: NEVER, enabled: true });
    expect(after.last_failure).toMatch(DATE_TIME);
    expect(after.last_failure).not.toBe(NEVER);
    expect(after.last_retry).not.toBe(NEVER);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "failed", attempts: 4 });

    const entries = await webhookLogs(deliveryId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ logType: "Webhook", eventId: event.id });
    expect(entries[0]!.description).toContain("502");
    await vi.waitFor(() => expect(failures.lines.map((l) => JSON.parse(l))).toMatchObject([{ delivery_id: deliveryId, attempts: 4 }]));

    // No fifth attempt: the scheme had three retries.
    await sleep(1500);
    expect(await receivedBy(name)).toHaveLength(4);
  });

  it("failure_threshold 2 with scheme 0: the webhook stays on after one failed delivery and is disabled after the second", async () => {
    const name = "threshold-2";
    const hook = await hookFor(name, "event.created", { retry_scheme: "0", failure_threshold: 2 }, { status: 500 });
    const failures = expectFailureLogged(hook.id);
    await createEvent({ event_name: unique("Thr1 ") });
    await waitForRequests(name, 2, 15_000);
    const first = await hookWhen(hook.id, (h) => h.failed === 1 && h.pending === 0);
    expect(first).toMatchObject({ failed: 1, retries: 1, enabled: true });

    await createEvent({ event_name: unique("Thr2 ") });
    const got = await waitForRequests(name, 4, 15_000);
    expect(got).toHaveLength(4);
    const second = await hookWhen(hook.id, (h) => h.failed === 2 && h.pending === 0);
    expect(second).toMatchObject({ failed: 2, retries: 2, delivered: 0, enabled: false });
    expect(new Set(got.map((r) => r.headers["x-evt-webhook-delivery-id"])).size).toBe(2);
    expect(await webhookLogs(`Webhook ${hook.id} delivery`)).toHaveLength(2);
    await vi.waitFor(() => expect(failures.lines.map((l) => JSON.parse(l).attempts)).toEqual([2, 2]));
  });

  it("failure_threshold 0 never disables", async () => {
    const name = "threshold-0";
    const hook = await hookFor(name, "event.created", { retry_scheme: "0", failure_threshold: 0 }, { status: 500 });
    const failures = expectFailureLogged(hook.id);
    await db.update(webhooks).set({ failed: 500 }).where(eq(webhooks.id, hook.id));
    await createEvent({ event_name: unique("Thr0 ") });
    await waitForRequests(name, 2, 15_000);
    const after = await hookWhen(hook.id, (h) => h.failed === 501 && h.pending === 0);
    expect(after).toMatchObject({ failed: 501, enabled: true });
    await vi.waitFor(() => expect(failures.lines.map((l) => JSON.parse(l).attempts)).toEqual([2]));
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("attemptDelivery, one attempt at a time", () => {
  it("waits the scheme's minutes before each retry, counts retries, and fails after the last", async () => {
    const name = "scheme-minutes";
    const hook = await hookFor(name, "scan.created", { retry_scheme: "1,2" }, { status: 500 });
    const failures = expectFailureLogged(hook.id);
    const [job] = await fireCaptured("scan.created", { id: 9 });
    expect(job).toBeDefined();
    const t0 = 1_800_000_000;
    const { deps, sent } = capturing(() => t0);

    await attemptDelivery(deps, job!);
    expect(sent).toEqual([{ job: { v: 1, kind: "webhook.deliver", deliveryId: job!.deliveryId, attempt: 2 }, delaySeconds: 60 }]);
    expect(await deliveryRow(job!.deliveryId)).toMatchObject({ status: "pending", attempts: 1, dueAt: t0 + 60 });
    expect(await getHook(hook.id)).toMatchObject({ pending: 1, retries: 0, last_retry: NEVER, failed: 0 });

    await attemptDelivery(deps, sent[0]!.job as WebhookDeliveryJob);
    expect(sent[1]).toEqual({ job: { v: 1, kind: "webhook.deliver", deliveryId: job!.deliveryId, attempt: 3 }, delaySeconds: 120 });
    expect(await deliveryRow(job!.deliveryId)).toMatchObject({ status: "pending", attempts: 2, dueAt: t0 + 120 });
    const [mid] = await db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(mid).toMatchObject({ pending: 1, retries: 1, lastRetry: t0, failed: 0 });

    await attemptDelivery(deps, sent[1]!.job as WebhookDeliveryJob);
    expect(sent).toHaveLength(2);
    const [end] = await db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(end).toMatchObject({ pending: 0, retries: 2, failed: 1, lastFailure: t0, lastRetry: t0, lastSuccess: null });
    expect(await deliveryRow(job!.deliveryId)).toMatchObject({ status: "failed", attempts: 3, finishedAt: t0 });
    expect(await receivedBy(name)).toHaveLength(3);
    expect(failures.lines.map((l) => JSON.parse(l))).toMatchObject([{ delivery_id: job!.deliveryId, attempts: 3 }]);
  });

  it("counts any 2xx as success and a redirect as failure", async () => {
    const ok = await hookFor("status-204", "order.refunded", { retry_scheme: "0" }, { status: 204, body: "" });
    const moved = await hookFor("status-302", "order.refunded", { retry_scheme: "0" }, { status: 302 });
    const jobs = await fireCaptured("order.refunded", { id: 5 });
    expect(jobs).toHaveLength(2);
    const { deps, sent } = capturing();
    for (const job of jobs) await attemptDelivery(deps, job);
    expect((await deliveriesOf(ok.id))[0]).toMatchObject({ status: "delivered", attempts: 1 });
    expect((await deliveriesOf(moved.id))[0]).toMatchObject({ status: "pending", attempts: 1 });
    expect(sent.map((s) => s.job)).toEqual([{ v: 1, kind: "webhook.deliver", deliveryId: (await deliveriesOf(moved.id))[0]!.id, attempt: 2 }]);
    expect(await getHook(ok.id)).toMatchObject({ delivered: 1, pending: 0 });
    expect(await getHook(moved.id)).toMatchObject({ delivered: 0, pending: 1 });
  });

  it("skips a duplicate message of an attempt already made: the receiver sees one request", async () => {
    const name = "duplicate-direct";
    const hook = await hookFor(name, "order.refunded");
    const [job] = await fireCaptured("order.refunded", { id: 77 });
    const { deps } = capturing();
    await attemptDelivery(deps, job!);
    await attemptDelivery(deps, job!);
    expect(await receivedBy(name)).toHaveLength(1);
    expect(await getHook(hook.id)).toMatchObject({ delivered: 1, pending: 0, retries: 0 });
  });

  it("skips deliveries of a webhook that no longer exists, without throwing", async () => {
    const name = "gone";
    const hook = await hookFor(name, "order.refunded");
    const [job] = await fireCaptured("order.refunded", { id: 1 });
    // The webhook row vanished while its delivery was still queued.
    await db.delete(webhooks).where(eq(webhooks.id, hook.id));
    const { deps, sent } = capturing();
    await expect(attemptDelivery(deps, job!)).resolves.toBeUndefined();
    expect(sent).toEqual([]);
    await sleep(100);
    expect(await receivedBy(name)).toEqual([]);
    await db.delete(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("duplicates through the queue", { timeout: 30_000 }, () => {
  it("a webhook.deliver message sent twice reaches the receiver once", async () => {
    const name = "duplicate-queue";
    const hook = await hookFor(name, "order.refunded");
    const [job] = await fireCaptured("order.refunded", { id: 78 });
    expect(job).toBeDefined();
    await env.JOBS.sendBatch([{ body: job! }, { body: job! }]);
    await waitForRequests(name, 1);
    await hookWhen(hook.id, (h) => h.delivered === 1);
    await env.JOBS.send(job!);
    await sleep(1800);
    expect(await receivedBy(name)).toHaveLength(1);
    expect(await getHook(hook.id)).toMatchObject({ delivered: 1, pending: 0, retries: 0, failed: 0 });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("DELETE of a webhook with pending deliveries", { timeout: 30_000 }, () => {
  it("drops its pending deliveries, logs how many, and their queued retries send nothing", async () => {
    const name = "delete-pending";
    // Five minutes before the retry: after the first failed attempt both deliveries wait in the queue.
    const hook = await hookFor(name, "event.created", { retry_scheme: "5" }, { status: 500 });
    await createEvent({ event_name: unique("DelPend A ") });
    await createEvent({ event_name: unique("DelPend B ") });
    const got = await waitForRequests(name, 2);
    expect(got).toHaveLength(2);
    const until = Date.now() + 10_000;
    let rows = await deliveriesOf(hook.id);
    while (rows.filter((r) => r.attempts === 1 && r.lastExchange !== null).length < 2 && Date.now() < until) {
      await sleep(100);
      rows = await deliveriesOf(hook.id);
    }
    expect(rows.map((r) => [r.status, r.attempts, r.lastExchange?.response?.code])).toEqual([
      ["pending", 1, 500],
      ["pending", 1, 500],
    ]);
    expect((await getHook(hook.id)).pending).toBe(2);

    await expectJson(call("DELETE", `/admin/webhooks/${hook.id}`), 200);
    expect(await deliveriesOf(hook.id)).toEqual([]);
    const entries = await webhookLogs(`Webhook ${hook.id} `);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.description).toMatch(/\b2 pending deliver/);

    // The retries still in the queue find nothing to send.
    const { deps } = capturing();
    for (const r of rows) await attemptDelivery(deps, { v: 1, kind: "webhook.deliver", deliveryId: r.id, attempt: 2 });
    expect(await receivedBy(name)).toHaveLength(2);
  });

  it("logs 0 when nothing was pending", async () => {
    const hook = await hookFor("delete-none", "event.created");
    await expectJson(call("DELETE", `/admin/webhooks/${hook.id}`), 200);
    const entries = await webhookLogs(`Webhook ${hook.id} `);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.description).toMatch(/\b0 pending deliver/);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("a consumer batch that throws part-way", { timeout: 30_000 }, () => {
  it("acks the other messages and retries only the one whose handler threw: no delivery is lost", async () => {
    const name = "batch-throw";
    const hook = await hookFor(name, "order.refunded");
    const [a] = await fireCaptured("order.refunded", { id: 101 });
    const [b] = await fireCaptured("order.refunded", { id: 102 });
    const batch = batchOf([
      { id: "deliver-a", body: a },
      { id: "boom", body: { v: 1, kind: "test.boom" } },
      { id: "deliver-b", body: b },
    ]);
    const retried = expectLogged("warn", /"msg":"job failed, will retry","kind":"test\.boom"/);
    await consumeJobs(batch, env, {
      ...jobHandlers,
      "test.boom": async () => {
        throw new Error("handler failed mid-batch");
      },
    });
    const result = await getQueueResult(batch, createExecutionContext());
    expect(result.explicitAcks.sort()).toEqual(["deliver-a", "deliver-b"]);
    expect(result.retryMessages).toEqual([{ msgId: "boom" }]);
    expect(result.retryBatch.retry).toBe(false);
    expect(retried.lines.map((l) => JSON.parse(l))).toMatchObject([{ message_id: "boom", error: "Error: handler failed mid-batch" }]);

    const got = await receivedBy(name);
    expect(got.map((r) => JSON.parse(r.body).id).sort()).toEqual([101, 102]);
    expect(await deliveryRow(a!.deliveryId)).toMatchObject({ status: "delivered" });
    expect(await deliveryRow(b!.deliveryId)).toMatchObject({ status: "delivered" });
    expect(await getHook(hook.id)).toMatchObject({ delivered: 2, pending: 0 });
  });

  it("a delivery whose own handler throws before sending is retried and then delivered", async () => {
    const name = "batch-throw-deliver";
    const hook = await hookFor(name, "order.refunded");
    const [a] = await fireCaptured("order.refunded", { id: 201 });
    const [b] = await fireCaptured("order.refunded", { id: 202 });
    const flaky: JobHandler = async (deps, e, job) => {
      if ((job as WebhookDeliveryJob).deliveryId === b!.deliveryId) throw new Error("transient failure");
      return jobHandlers["webhook.deliver"]!(deps, e, job);
    };
    const first = batchOf([
      { id: "a-1", body: a },
      { id: "b-1", body: b },
    ]);
    const retried = expectLogged("warn", /"msg":"job failed, will retry","kind":"webhook\.deliver","message_id":"b-1"/);
    await consumeJobs(first, env, { "webhook.deliver": flaky });
    const r1 = await getQueueResult(first, createExecutionContext());
    expect(r1.explicitAcks).toEqual(["a-1"]);
    expect(r1.retryMessages).toEqual([{ msgId: "b-1" }]);
    expect(retried.lines.map((l) => JSON.parse(l).error)).toEqual(["Error: transient failure"]);
    expect(await deliveryRow(b!.deliveryId)).toMatchObject({ status: "pending", attempts: 0 });

    // The queue redelivers the same message; this time the handler works.
    const again = batchOf([{ id: "b-1", body: b, attempts: 2 }]);
    await consumeJobs(again, env, jobHandlers);
    expect((await getQueueResult(again, createExecutionContext())).explicitAcks).toEqual(["b-1"]);
    expect((await receivedBy(name)).map((r) => JSON.parse(r.body).id).sort()).toEqual([201, 202]);
    expect(await getHook(hook.id)).toMatchObject({ delivered: 2, pending: 0, failed: 0 });
  });

  it("a delivery whose handler throws after claiming its attempt is not lost: the sweep sends it again", async () => {
    const name = "claimed-then-threw";
    const hook = await hookFor(name, "order.refunded");
    const [job] = await fireCaptured("order.refunded", { id: 301 });
    // D1 fails while recording the outcome, after the receiver got the request.
    const breakingBatch: JobHandler = async (deps, e, j) => {
      const db2 = new Proxy(deps.db, {
        get(target, prop, receiver) {
          if (prop === "batch") return () => Promise.reject(new Error("D1 unavailable"));
          return Reflect.get(target, prop, receiver);
        },
      });
      return jobHandlers["webhook.deliver"]!({ ...deps, db: db2 }, e, j);
    };
    const batch = batchOf([{ id: "c-1", body: job }]);
    const retried = expectLogged("warn", /"msg":"job failed, will retry","kind":"webhook\.deliver","message_id":"c-1"/);
    await consumeJobs(batch, env, { "webhook.deliver": breakingBatch });
    expect((await getQueueResult(batch, createExecutionContext())).retryMessages).toEqual([{ msgId: "c-1" }]);
    expect(retried.lines.map((l) => JSON.parse(l).error)).toEqual(["Error: D1 unavailable"]);
    expect(await receivedBy(name)).toHaveLength(1);
    expect(await deliveryRow(job!.deliveryId)).toMatchObject({ status: "pending", attempts: 1 });

    // The queue's retry of that message finds the attempt already made and sends nothing.
    const retry = batchOf([{ id: "c-1", body: job, attempts: 2 }]);
    await consumeJobs(retry, env, jobHandlers);
    expect((await getQueueResult(retry, createExecutionContext())).explicitAcks).toEqual(["c-1"]);
    expect(await receivedBy(name)).toHaveLength(1);

    // The sweep's backstop re-sends what stayed pending long past its due time: other tests' deliveries too, in the
    // shared storage, and those whose receivers refuse fail for good with a warning this test expects.
    const othersFailed = expectLogged("warn", /"msg":"webhook delivery failed"/);
    const { deps } = capturing();
    const later = { ...depsFromEnv(env), now: () => deps.now() + 16 * 60 };
    expect(await resendStalledDeliveries(later)).toBeGreaterThanOrEqual(1);
    const got = await waitForRequests(name, 2);
    expect(got).toHaveLength(2);
    expectSameDelivery(got, job!.deliveryId, JSON.stringify({ id: 301 }));
    const after = await hookWhen(hook.id, (h) => h.delivered === 1);
    expect(after).toMatchObject({ delivered: 1, pending: 0, failed: 0 });
    expect(await deliveryRow(job!.deliveryId)).toMatchObject({ status: "delivered", attempts: 2 });
    expect(othersFailed.lines.filter((l) => JSON.parse(l).webhook_id === hook.id)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("the delivery log keeps the newest 100 per webhook", () => {
  async function insertDeliveries(webhookId: number, count: number, status: "pending" | "delivered", firstAt: number) {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: crypto.randomUUID().replace(/-/g, ""),
      webhookId,
      topic: "order.refunded",
      body: JSON.stringify({ n: i }),
      source: SOURCE,
      status,
      attempts: status === "pending" ? 0 : 1,
      createdAt: firstAt + i,
      dueAt: firstAt + i,
      finishedAt: status === "pending" ? null : firstAt + i,
    }));
    // D1 binds at most 100 parameters per statement: 8 rows of 12 columns.
    for (let i = 0; i < rows.length; i += 8) await db.insert(webhookDeliveries).values(rows.slice(i, i + 8));
    return rows;
  }

  it("lists at most the newest 100, newest first", async () => {
    const hook = await hookFor("log-100", "order.refunded");
    const now = Math.floor(Date.now() / 1000);
    const rows = await insertDeliveries(hook.id, 105, "delivered", now - 1000);
    const res = await call("GET", `/admin/webhooks/${hook.id}/deliveries`);
    const list = await expectJson<Json[]>(res, 200);
    expect(list).toHaveLength(100);
    expect(res.headers.get("X-WP-Total")).toBe("100");
    expect(list.map((d) => d.delivery_id)).toEqual(
      rows
        .slice(5)
        .reverse()
        .map((r) => r.id),
    );
  });

  it("pruning removes finished deliveries beyond the newest 100 of each webhook and keeps pending ones", async () => {
    const a = await hookFor("prune-a", "order.refunded");
    const b = await hookFor("prune-b", "order.refunded");
    const now = Math.floor(Date.now() / 1000);
    const pending = await insertDeliveries(a.id, 2, "pending", now - 5000);
    const finished = await insertDeliveries(a.id, 103, "delivered", now - 4000);
    const few = await insertDeliveries(b.id, 3, "delivered", now - 6000);
    await pruneDeliveryLog(depsFromEnv(env));
    const left = (await deliveriesOf(a.id)).map((r) => r.id).sort();
    expect(left).toEqual([...pending, ...finished.slice(3)].map((r) => r.id).sort());
    expect((await deliveriesOf(b.id)).map((r) => r.id).sort()).toEqual(few.map((r) => r.id).sort());
    const oldest = await db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, a.id), eq(webhookDeliveries.id, finished[0]!.id)))
      .get();
    expect(oldest).toBeUndefined();
  });
});
