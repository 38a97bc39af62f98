import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { emails, logs, orders, webhookDeliveries, webhooks } from "../src/db/schema";
import worker from "../src/index";
import { jobQueueFrom, type JobQueue } from "../src/platform/job-queue";
import type { JobMessage, WebhookDeliveryJob } from "../src/platform/messages";
import { sweep } from "../src/cron";
import { createDashboardOrderBody } from "../src/features/ordering/orders.schema";
import type { AuthUser } from "../src/domain/authority";
import { depsFromEnv, type Deps } from "../src/platform/deps";
import { confirmOrder } from "../src/features/checkout/confirmations.service";
import { sendQueuedEmail } from "../src/features/messaging/emails.service";
import { createDashboardOrder, deleteOrder, updateOrder } from "../src/features/ordering/orders.service";
import { completeGenuine } from "./helpers/payments";
import { refundOrder } from "../src/features/payments/refunds.service";
import type { WebhookTopic } from "../src/domain/webhook-topics";
import { attemptDelivery } from "../src/features/messaging/webhook-deliveries.service";
import { call, expectJson, ORIGIN, unique } from "./helpers/api";
import { createEvent, createTicketType, db } from "./helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody } from "./helpers/orders";
import { programStub, receivedBy, stubUrl, waitForRequests } from "./helpers/stubs";

/**
 * docs/reliability.md "Guarantees": whatever must follow a committed change is recorded in the change's own D1 batch,
 * and the cron sweep (every minute) re-drives what the work after the response did not do. "Crashed" deps model a
 * runtime killed just after the commit: deferred work is never awaited and every queue message it sends is lost. The
 * sweep then runs with a clock moved past LOST_MESSAGE_S (60 s), re-sending through the real queue to the real
 * consumer; run again, or racing a late original message, it sends nothing twice.
 *
 * Storage is shared with the other test files: each test uses its own events, webhooks and stub names, and all
 * webhooks are switched off after each test.
 */

type Json = Record<string, any>;

const ADMINISTRATOR: AuthUser = { id: 1, username: "admin", role: "administrator", authorisedEvents: [] };

/** Scheduled times (epoch ms) of a minute that is, and one that is not, a tenth minute. */
const TENTH_MINUTE = Math.floor(Date.now() / 600_000) * 600_000;
const OTHER_MINUTE = TENTH_MINUTE + 60_000;

afterEach(async () => {
  await db.update(webhooks).set({ enabled: false });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A queue that records what it is given, and passes it on to `next` when there is one. */
function recording(next?: JobQueue): { queue: JobQueue; sent: JobMessage[] } {
  const sent: JobMessage[] = [];
  return {
    sent,
    queue: {
      async send(job, delaySeconds) {
        sent.push(job);
        await next?.send(job, delaySeconds);
      },
      async sendAll(jobs) {
        sent.push(...jobs);
        await next?.sendAll(jobs);
      },
    },
  };
}

/** Deps of a runtime that dies right after its batches commit: deferred work is forgotten, queue messages lost. */
function crashed(now: () => number = nowSeconds): { deps: Deps; lost: JobMessage[] } {
  const { queue, sent } = recording();
  return { deps: { ...depsFromEnv(env, () => {}, ORIGIN), now, jobs: queue }, lost: sent };
}

/** Deps of a later cron run at `now`; what it sends is recorded, and passed on to the real queue unless `held`. */
function later(now: number, held = false): { deps: Deps; sent: JobMessage[] } {
  const { queue, sent } = recording(held ? undefined : jobQueueFrom(env));
  return { deps: { ...depsFromEnv(env, undefined, ORIGIN), now: () => now, jobs: queue }, sent };
}

async function enabledHook(name: string, topic: WebhookTopic, behaviour: Parameters<typeof programStub>[1] = {}): Promise<Json> {
  await programStub(name, behaviour);
  const hook = await expectJson(
    call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: `secret-${name}`, topic, retry_scheme: "1" } }),
    201,
  );
  return expectJson(call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: true } }), 200);
}

const deliveriesOf = (webhookId: number) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
const emailsOf = (orderId: number) => db.select().from(emails).where(eq(emails.orderId, orderId));

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A final (dashboard) order of a new event with webhooks and emails wanted, placed with `deps`. */
async function placeFinal(deps: Deps) {
  const ev = await createOrderEvent({ webhooks_needed: true, emails_needed: true, email: { subject: "Your tickets", body: "" } });
  const type = await createOrderType(ev.id, "Regular");
  const input = createDashboardOrderBody.parse(orderBody(ev.id, [type.id], { [type.id]: 2 }));
  return createDashboardOrder(deps, ADMINISTRATOR, input, "127.0.0.1");
}

const resentDeliveries = (sent: JobMessage[], id: string) => sent.filter((j) => j.kind === "webhook.deliver" && (j as WebhookDeliveryJob).deliveryId === id);
const resentEmails = (sent: JobMessage[], id: number) => sent.filter((j) => j.kind === "email.send" && j.emailId === id);

// ---------------------------------------------------------------------------------------------------------------

describe("a crash right after the commit loses nothing", { timeout: 30_000 }, () => {
  it("the order.created delivery is written with the order; the sweep a minute later sends it once, with its delivery id", async () => {
    const name = unique("crash-created-");
    const hook = await enabledHook(name, "order.created");
    const t0 = nowSeconds();
    const { deps } = crashed(() => t0);
    const { order } = await placeFinal(deps);

    // In D1 as soon as the order is: pending, never attempted, due now.
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ topic: "order.created", status: "pending", attempts: 0, dueAt: t0, eventId: order.eventId });
    expect(row!.id).toMatch(/^[0-9a-f]{32}$/);
    expect((await expectJson(call("GET", `/admin/webhooks/${hook.id}`), 200)).pending).toBe(1);
    // The body is the order as the API shows it (its id assigned in the same batch), byte for byte.
    const { _links, ...shown } = await expectJson(call("GET", `/admin/orders/${order.id}`), 200);
    expect(row!.body).toBe(JSON.stringify(shown));

    // Within the minute the sweep leaves it to its queue message; after it, the sweep sends it.
    const early = later(t0 + 30);
    await sweep(early.deps, OTHER_MINUTE);
    expect(resentDeliveries(early.sent, row!.id)).toEqual([]);
    const first = later(t0 + 61);
    await sweep(first.deps, OTHER_MINUTE);
    expect(resentDeliveries(first.sent, row!.id)).toEqual([{ v: 1, kind: "webhook.deliver", deliveryId: row!.id, attempt: 1 }]);

    const [got] = await waitForRequests(name, 1);
    expect(got?.headers["x-evt-webhook-delivery-id"]).toBe(row!.id);
    expect(got?.body).toBe(row!.body);
    await until(
      "the delivery to finish",
      async () => (await deliveriesOf(hook.id))[0]!,
      (d) => d.status === "delivered",
    );
    expect(await expectJson(call("GET", `/admin/webhooks/${hook.id}`), 200)).toMatchObject({ pending: 0, delivered: 1, retries: 0 });

    // Re-driving again changes nothing: the same minute, or much later.
    const again = later(t0 + 61);
    await sweep(again.deps, OTHER_MINUTE);
    const muchLater = later(t0 + 3600);
    await sweep(muchLater.deps, OTHER_MINUTE);
    expect([...resentDeliveries(again.sent, row!.id), ...resentDeliveries(muchLater.sent, row!.id)]).toEqual([]);
    await sleep(1000);
    expect(await receivedBy(name)).toHaveLength(1);
  });

  it("the new-order email is written with the order; the sweep a minute later has it sent once", async () => {
    const t0 = nowSeconds();
    const { deps } = crashed(() => t0);
    const { order } = await placeFinal(deps);
    const [queued] = await emailsOf(order.id);
    expect(queued).toMatchObject({ status: "queued", attempts: 0, dueAt: t0 });

    const first = later(t0 + 61);
    await sweep(first.deps, OTHER_MINUTE);
    expect(resentEmails(first.sent, queued!.id)).toEqual([{ v: 1, kind: "email.send", emailId: queued!.id, attempt: 1 }]);
    const sent = await until(
      "the email to be sent",
      async () => (await emailsOf(order.id))[0]!,
      (e) => e.status === "sent",
    );
    expect(sent.attempts).toBe(1);

    const again = later(t0 + 3600);
    await sweep(again.deps, OTHER_MINUTE);
    expect(resentEmails(again.sent, queued!.id)).toEqual([]);
    expect((await emailsOf(order.id))[0]).toEqual(sent);
  });

  it("a payment or a confirmation that makes an order final writes order.created with it", async () => {
    const name = unique("crash-final-");
    const hook = await enabledHook(name, "order.created");
    const customerOrder = async (event: Json, price: number) => {
      const ev = await createEvent({ event_name: unique("Final "), webhooks_needed: true, ...event });
      const type = await createTicketType(ev.id, { name: "Seat", price, maximum_to_order: 0 });
      const body = { name: "Ann Smith", email: "ann@example.com", tickets: [{ [type.id]: 1 }] };
      return expectJson(call("POST", `/events/${ev.id}/orders`, { auth: null, body }), 201);
    };
    const { deps } = crashed();

    const open = await customerOrder({}, 10);
    await completeGenuine(deps, open.uid, { status: "paid", paymentId: open.payment_id });
    const awaiting = await customerOrder({ confirmation_emails_needed: true, email_confirmation: { subject: "Confirmed", body: "" } }, 0);
    const { confirmToken } = (await db.select({ confirmToken: orders.confirmToken }).from(orders).where(eq(orders.id, awaiting.id)).get())!;
    await confirmOrder(deps, confirmToken!);

    const rows = (await deliveriesOf(hook.id)).map((r) => [JSON.parse(r.body).id, JSON.parse(r.body).payment_status, r.status]);
    expect(rows.sort((x, y) => x[0] - y[0])).toEqual([
      [open.id, "paid", "pending"],
      [awaiting.id, "booked - confirmed", "pending"],
    ]);
  });

  it("order.updated, order.deleted and order.refunded are written with their change too", async () => {
    const names = { updated: unique("crash-updated-"), deleted: unique("crash-deleted-"), refunded: unique("crash-refunded-") };
    const hooks = {
      updated: await enabledHook(names.updated, "order.updated"),
      deleted: await enabledHook(names.deleted, "order.deleted"),
      refunded: await enabledHook(names.refunded, "order.refunded"),
    };
    const { deps } = crashed();

    const { order: kept } = await placeFinal(depsFromEnv(env, undefined, ORIGIN));
    const updated = await updateOrder(deps, kept, { customStatus: "vip", name: 'Zoë "Ann" \\ 😀 <b>&' });
    const [update] = await deliveriesOf(hooks.updated.id);
    const { _links, ...shown } = await expectJson(call("GET", `/admin/orders/${updated.id}`), 200);
    expect(update!.body).toBe(JSON.stringify(shown));

    const { order: gone } = await placeFinal(depsFromEnv(env, undefined, ORIGIN));
    await deleteOrder(deps, gone);
    expect((await deliveriesOf(hooks.deleted.id)).map((d) => d.body)).toEqual([JSON.stringify({ id: gone.id })]);

    const { order: paid } = await placeFinal(depsFromEnv(env, undefined, ORIGIN));
    await db
      .update(orders)
      .set({ paymentStatus: "paid", paymentId: `test_${paid.uid}` })
      .where(eq(orders.id, paid.id));
    await refundOrder(deps, paid.id, 0); // nothing to give back: no provider is asked
    const [refund] = await deliveriesOf(hooks.refunded.id);
    expect(JSON.parse(refund!.body)).toMatchObject({ id: paid.id, payment_status: "refunded" });

    for (const hook of Object.values(hooks)) {
      expect(await deliveriesOf(hook.id)).toMatchObject([{ status: "pending", attempts: 0 }]);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("re-driving never sends an attempt twice", { timeout: 30_000 }, () => {
  it("a late original message and the sweep's re-send of it make one request", async () => {
    const name = unique("late-original-");
    const hook = await enabledHook(name, "order.created");
    const t0 = nowSeconds();
    const { deps, lost: held } = crashed(() => t0);
    await placeFinal(deps);
    const [row] = await deliveriesOf(hook.id);

    const sweepRun = later(t0 + 61, true);
    await sweep(sweepRun.deps, OTHER_MINUTE);
    const [resent] = resentDeliveries(sweepRun.sent, row!.id);
    expect(resent).toEqual({ v: 1, kind: "webhook.deliver", deliveryId: row!.id, attempt: 1 });
    const original = await until(
      "the original message to be sent",
      async () => resentDeliveries(held, row!.id),
      (j) => j.length === 1,
    );
    const consumer = { ...depsFromEnv(env, undefined, ORIGIN), now: () => t0 + 70 };
    await attemptDelivery(consumer, resent as WebhookDeliveryJob);
    await attemptDelivery(consumer, original[0] as WebhookDeliveryJob);
    expect(await receivedBy(name)).toHaveLength(1);
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("the sweep leaves a delivery alone while its attempt is in flight, however late its message was", async () => {
    const name = unique("in-flight-");
    const hook = await enabledHook(name, "order.created", { delayMs: 1500 });
    const t0 = nowSeconds();
    const { deps } = crashed(() => t0);
    await placeFinal(deps);
    const [row] = await deliveriesOf(hook.id);

    // The message arrives 100 s late; while the receiver takes its time the sweep runs.
    const consumer = { ...depsFromEnv(env, undefined, ORIGIN), now: () => t0 + 100 };
    const attempt = attemptDelivery(consumer, { v: 1, kind: "webhook.deliver", deliveryId: row!.id, attempt: 1 });
    await until(
      "the attempt to be claimed",
      async () => (await deliveriesOf(hook.id))[0]!,
      (d) => d.attempts === 1,
    );
    const during = later(t0 + 130);
    await sweep(during.deps, OTHER_MINUTE);
    expect(resentDeliveries(during.sent, row!.id)).toEqual([]);
    await attempt;
    await sleep(500);
    expect(await receivedBy(name)).toHaveLength(1);
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("the same for an email: the sweep leaves a late send in flight alone", async () => {
    const name = unique("email-in-flight-");
    await programStub(name, { status: 200, body: JSON.stringify({ id: "re-1" }), delayMs: 1500 });
    const t0 = nowSeconds();
    const { deps } = crashed(() => t0);
    const { order } = await placeFinal(deps);
    const [row] = await emailsOf(order.id);

    const resend = { ...env, EMAIL_PROVIDER: "resend", EMAIL_API_URL: stubUrl(`/${name}/emails`), EMAIL_API_KEY: "re_test" } as typeof env;
    const consumer = { ...depsFromEnv(resend), now: () => t0 + 100 };
    const sending = sendQueuedEmail(consumer, { v: 1, kind: "email.send", emailId: row!.id, attempt: 1 });
    await until(
      "the send to be claimed",
      async () => (await emailsOf(order.id))[0]!,
      (e) => e.attempts === 1,
    );
    const during = later(t0 + 130);
    await sweep(during.deps, OTHER_MINUTE);
    expect(resentEmails(during.sent, row!.id)).toEqual([]);
    await sending;
    expect(await receivedBy(name)).toHaveLength(1);
    expect((await emailsOf(order.id))[0]).toMatchObject({ status: "sent", attempts: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("the cron", () => {
  async function scheduled(scheduledTime: number): Promise<void> {
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime, cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
  }

  async function oldLog(): Promise<string> {
    const description = unique("sweep-retention-");
    await db.insert(logs).values({ logType: "REST API", description, createdAt: nowSeconds() - 400 * 86_400 });
    return description;
  }

  const logged = async (description: string) => (await db.select().from(logs).where(eq(logs.description, description))).length;

  it("re-drives every minute and keeps retention for every tenth minute", async () => {
    const old = await oldLog();
    const { deps } = crashed(() => nowSeconds() - 120);
    const { order } = await placeFinal(deps);

    await scheduled(OTHER_MINUTE);
    expect(await logged(old)).toBe(1);
    await until(
      "the stalled email to be sent",
      async () => (await emailsOf(order.id))[0]!,
      (e) => e.status === "sent",
    );

    await scheduled(TENTH_MINUTE);
    expect(await logged(old)).toBe(0);
  });
});
