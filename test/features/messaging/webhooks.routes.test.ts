import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import pkg from "../../../package.json";
import { webhooks } from "../../../src/db/schema";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/index";
import { BASE, call, createUser, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, db } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";
import { programStub, receivedBy, stubUrl, waitForRequests, type StubRequest } from "../../helpers/stubs";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * `/admin/webhooks` (spec: Webhook, Webhooks, Events; decisions.md 3, 8, 12, 13). Storage is shared by the tests of
 * this file, so every test makes its own webhooks, uses its own stub name, and all webhooks are switched off after
 * each test so that one test's topics never reach another test's receiver.
 */

type Json = Record<string, any>;

const NEVER = "0000-00-00 00:00:00";
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const DELIVERY_ID = /^[0-9a-f]{32}$/;
const SOURCE = BASE; // the service's own address: origin plus /ticketing/v1

const WEBHOOK_FIELDS = [
  "_links",
  "date_created",
  "delivered",
  "enabled",
  "failed",
  "failure_threshold",
  "id",
  "last_failure",
  "last_retry",
  "last_success",
  "name",
  "pending",
  "retries",
  "retry_scheme",
  "secret",
  "topic",
  "url",
];

const hooksPath = "/admin/webhooks";
const hookPath = (id: number) => `/admin/webhooks/${id}`;

afterEach(async () => {
  await db.update(webhooks).set({ enabled: false });
});

/** Wall time of `epochSeconds` in the test time zone (vitest.config.ts: Europe/Amsterdam), `YYYY-MM-DD HH:MM:SS`. */
function amsterdam(epochSeconds: number): string {
  return wallClockAt(epochSeconds * 1000);
}

/** What a consumer would do: base64 of HMAC-SHA256 over the received body, keyed with the shared secret. */
async function consumerSignature(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  let binary = "";
  for (const b of mac) binary += String.fromCharCode(b);
  return btoa(binary);
}

function withoutLinks(resource: Json): Json {
  const { _links, ...rest } = resource;
  return rest;
}

function baseBody(extra: Json = {}): Json {
  return { name: "Receiver", url: "https://hooks.example.com/receive", secret: "s3cret", topic: "event.created", ...extra };
}

async function createHook(extra: Json = {}): Promise<Json> {
  return expectJson(call("POST", hooksPath, { body: baseBody(extra) }), 201);
}

/** A webhook of `topic` posting to the stub `name` (programmed fresh), switched on with PUT. */
async function enabledHook(name: string, topic: string, extra: Json = {}, behaviour: Parameters<typeof programStub>[1] = {}): Promise<Json> {
  await programStub(name, behaviour);
  const hook = await createHook({ name, url: stubUrl(`/${name}/hook`), secret: `secret-${name}-ü`, topic, ...extra });
  return expectJson(call("PUT", hookPath(hook.id), { body: { enabled: true } }), 200);
}

async function getHook(id: number): Promise<Json> {
  return expectJson(call("GET", hookPath(id)), 200);
}

/** Polls the webhook until `done` holds (counters are written after the receiver answered). */
async function hookWhen(id: number, done: (h: Json) => boolean, timeoutMs = 10_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const hook = await getHook(id);
    if (done(hook) || Date.now() > until) return hook;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every header of decisions.md 8 / spec Events, and a signature the consumer can verify. */
async function expectSignedDelivery(req: StubRequest, hook: Json, topic: string): Promise<void> {
  const [resource, event] = topic.split(".");
  expect(req.method).toBe("POST");
  expect(req.path).toBe(`/${hook.name}/hook`);
  expect(req.headers["content-type"]).toBe("application/json");
  expect(req.headers["user-agent"]).toContain(`${pkg.name}/${pkg.version}`);
  expect(req.headers["x-evt-webhook-source"]).toBe(SOURCE);
  expect(req.headers["x-evt-webhook-topic"]).toBe(topic);
  expect(req.headers["x-evt-webhook-resource"]).toBe(resource);
  expect(req.headers["x-evt-webhook-event"]).toBe(event);
  expect(req.headers["x-evt-webhook-id"]).toBe(String(hook.id));
  expect(req.headers["x-evt-webhook-delivery-id"]).toMatch(DELIVERY_ID);
  expect(req.headers["x-evt-webhook-signature"]).toBe(await consumerSignature(hook.secret, req.body));
  // A signature made with another secret does not match: the header really is keyed with the secret.
  expect(req.headers["x-evt-webhook-signature"]).not.toBe(await consumerSignature(`${hook.secret}x`, req.body));
}

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/webhooks", () => {
  it("creates a webhook with every field and default of the spec: disabled, 1,1,2,4,8, threshold 60, counters 0", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await call("POST", hooksPath, { body: baseBody({ name: "Defaults" }) });
    const body = await expectJson(res, 201);
    const after = Math.floor(Date.now() / 1000);
    expect(Object.keys(body).sort()).toEqual(WEBHOOK_FIELDS);
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body).toEqual({
      id: body.id,
      name: "Defaults",
      url: "https://hooks.example.com/receive",
      secret: "s3cret",
      topic: "event.created",
      enabled: false,
      retry_scheme: "1,1,2,4,8",
      failure_threshold: 60,
      pending: 0,
      delivered: 0,
      retries: 0,
      failed: 0,
      last_success: NEVER,
      last_retry: NEVER,
      last_failure: NEVER,
      date_created: body.date_created,
      _links: {
        self: [{ href: `${BASE}${hookPath(body.id)}` }],
        collection: [{ href: `${BASE}${hooksPath}` }],
      },
    });
    expect(body.date_created).toMatch(DATE_TIME);
    const candidates = [];
    for (let t = before; t <= after; t++) candidates.push(amsterdam(t));
    expect(candidates).toContain(body.date_created);
    expect(res.headers.get("Location")).toBe(`${BASE}${hookPath(body.id)}`);
    expect(await getHook(body.id)).toEqual(body);
  });

  it("takes retry_scheme, failure_threshold and enabled false on create", async () => {
    const body = await createHook({ retry_scheme: " 0, 5 ,720", failure_threshold: 0, enabled: false, topic: "order.deleted" });
    expect(body).toMatchObject({ retry_scheme: "0,5,720", failure_threshold: 0, enabled: false, topic: "order.deleted" });
    expect(await getHook(body.id)).toEqual(body);
  });

  it.each(["event.created", "event.updated", "event.deleted", "order.created", "order.updated", "order.deleted", "order.refunded", "scan.created", "tickets.downloaded"])(
    "accepts the topic %s",
    async (topic) => {
      expect((await createHook({ topic })).topic).toBe(topic);
    },
  );

  it("refuses a body without the required fields with rest_missing_callback_param naming each", async () => {
    const err = await expectError(call("POST", hooksPath, { body: {} }), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params ?? {}).sort()).toEqual(["name", "secret", "topic", "url"]);
  });

  it.each([
    ["name", ""],
    ["name", "   "],
    ["name", 5],
    ["name", "x".repeat(101)],
    ["secret", ""],
    ["secret", 12],
    ["topic", "order.paid"],
    ["topic", "event"],
    ["topic", "Event.Created"],
    ["topic", ""],
    ["url", ""],
    ["url", "not a url"],
    ["url", "ftp://hooks.example.com/x"],
    ["url", "https://user:pass@hooks.example.com/x"],
    ["url", "http://10.0.0.1/hook"],
    ["url", "http://192.168.1.1/hook"],
    ["url", "https://169.254.169.254/latest/meta-data"],
    ["url", "https://172.16.0.1/hook"],
    ["url", "https://[fd00::1]/hook"],
    ["url", "https://[fe80::1]/hook"],
    ["url", "https://[::ffff:10.0.0.1]/hook"],
    ["url", "http://0xa.0.0.1/hook"],
    ["url", "http://10.1/hook"],
    ["url", "https://169.254.169.254./"],
    ["url", "https://metadata.google.internal/computeMetadata/v1/"],
    ["url", "https://100.64.0.1/hook"],
    ["url", "https://0.0.0.0/hook"],
    ["url", "https://224.0.0.1/hook"],
    ["retry_scheme", ""],
    ["retry_scheme", "721"],
    ["retry_scheme", "1,721"],
    ["retry_scheme", Array.from({ length: 21 }, () => "1").join(",")],
    ["retry_scheme", "1,,2"],
    ["retry_scheme", "1,2,"],
    ["retry_scheme", "-1"],
    ["retry_scheme", "1.5"],
    ["retry_scheme", "a,b"],
    ["retry_scheme", "1;2"],
    ["retry_scheme", 5],
    ["failure_threshold", -1],
    ["failure_threshold", 1.5],
    ["failure_threshold", "60"],
    ["enabled", "yes"],
  ])("refuses %s = %j with 400 rest_invalid_param naming the field", async (field, value) => {
    const err = await expectError(call("POST", hooksPath, { body: baseBody({ [field]: value }) }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toEqual([field]);
  });

  it("accepts 1 to 20 retries of 0 to 720 minutes", async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => String(i * 37)).join(",");
    expect((await createHook({ retry_scheme: twenty })).retry_scheme).toBe(twenty);
    expect((await createHook({ retry_scheme: "720" })).retry_scheme).toBe("720");
    expect((await createHook({ retry_scheme: "0" })).retry_scheme).toBe("0");
  });

  it("accepts http and loopback URLs while ALLOW_HTTP_OUTBOUND is true (as in the tests)", async () => {
    for (const url of ["http://127.0.0.1:8080/hook", "http://localhost/hook", "http://hooks.example.com/hook", "https://hooks.example.com/h?x=1"]) {
      expect((await createHook({ url })).url).toBe(url);
    }
  });

  it("refuses enabled true: webhooks are created disabled", async () => {
    const err = await expectError(call("POST", hooksPath, { body: baseBody({ enabled: true }) }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toEqual(["enabled"]);
  });

  it.each([
    ["id", 5],
    ["pending", 0],
    ["delivered", 0],
    ["retries", 0],
    ["failed", 0],
    ["last_success", NEVER],
    ["last_retry", NEVER],
    ["last_failure", NEVER],
    ["date_created", "2026-01-01 00:00:00"],
  ])("refuses the read-only %s on create, even at its default", async (field, value) => {
    const err = await expectError(call("POST", hooksPath, { body: baseBody({ [field]: value }) }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ [field]: expect.any(String) });
  });

  it("refuses an unknown field and ignores _links", async () => {
    const err = await expectError(call("POST", hooksPath, { body: baseBody({ colour: "red" }) }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ colour: "is not a known field" });
    const made = await expectJson(call("POST", hooksPath, { body: baseBody({ _links: { self: [] } }) }), 201);
    expect(made.enabled).toBe(false);
  });

  it("stores nothing when refused", async () => {
    const before = (await expectJson<Json[]>(call("GET", hooksPath), 200)).length;
    await expectError(call("POST", hooksPath, { body: baseBody({ url: "http://10.0.0.1/x" }) }), 400, "rest_invalid_param");
    expect((await expectJson<Json[]>(call("GET", hooksPath), 200)).length).toBe(before);
  });
});

describe("GET /admin/webhooks and /admin/webhooks/<id>", () => {
  it("lists every webhook as a bare array in id order with the unpaged headers, and _fields", async () => {
    const a = await createHook({ name: unique("list-a") });
    const b = await createHook({ name: unique("list-b") });
    const res = await call("GET", hooksPath);
    const list = await expectJson<Json[]>(res, 200);
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((h) => h.id)).toEqual([...list.map((h) => h.id)].sort((x, y) => x - y));
    expect(list.find((h) => h.id === a.id)).toEqual(a);
    expect(list.find((h) => h.id === b.id)).toEqual(b);
    expect(res.headers.get("X-WP-Total")).toBe(String(list.length));
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");

    const picked = await expectJson<Json[]>(call("GET", `${hooksPath}?_fields=id,topic`), 200);
    expect(picked.find((h) => h.id === a.id)).toEqual({ id: a.id, topic: a.topic });
    expect(await expectJson(call("GET", `${hookPath(a.id)}?_fields=name,enabled,nope`), 200)).toEqual({ name: a.name, enabled: false });
  });

  it("answers 404 rest_webhook_invalid_id for an unknown or malformed id", async () => {
    await expectError(call("GET", hookPath(99_999_999)), 404, "rest_webhook_invalid_id");
    await expectError(call("GET", `${hooksPath}/abc`), 404, "rest_webhook_invalid_id");
    await expectError(call("PUT", hookPath(99_999_999), { body: { name: "x" } }), 404, "rest_webhook_invalid_id");
    await expectError(call("DELETE", hookPath(99_999_999)), 404, "rest_webhook_invalid_id");
    await expectError(call("GET", `${hookPath(99_999_999)}/reset-counters`), 404, "rest_webhook_invalid_id");
    await expectError(call("GET", `${hookPath(99_999_999)}/ping`), 404, "rest_webhook_invalid_id");
    await expectError(call("GET", `${hookPath(99_999_999)}/deliveries`), 404, "rest_webhook_invalid_id");
  });
});

describe("PUT /admin/webhooks/<id>", () => {
  it("enables and disables, and changes every writable field", async () => {
    const hook = await createHook();
    const on = await expectJson(call("PUT", hookPath(hook.id), { body: { enabled: true } }), 200);
    expect(on).toEqual({ ...hook, enabled: true });
    const changed = await expectJson(
      call("PUT", hookPath(hook.id), {
        body: { name: "Renamed", url: "https://other.example.com/x", secret: "new", topic: "order.updated", retry_scheme: "2,3", failure_threshold: 5, enabled: false },
      }),
      200,
    );
    expect(changed).toEqual({
      ...hook,
      name: "Renamed",
      url: "https://other.example.com/x",
      secret: "new",
      topic: "order.updated",
      retry_scheme: "2,3",
      failure_threshold: 5,
      enabled: false,
    });
    expect(await getHook(hook.id)).toEqual(changed);
  });

  it("accepts back exactly what GET answered (read-only fields equal, _links ignored)", async () => {
    const hook = await createHook();
    expect(await expectJson(call("PUT", hookPath(hook.id), { body: hook }), 200)).toEqual(hook);
  });

  it("accepts an empty body and changes nothing", async () => {
    const hook = await createHook();
    expect(await expectJson(call("PUT", hookPath(hook.id), { body: {} }), 200)).toEqual(hook);
  });

  it("accepts a body of only unchanged read-only fields and _links, and changes nothing", async () => {
    const hook = await createHook();
    const body = { id: hook.id, pending: 0, delivered: 0, last_success: NEVER, date_created: hook.date_created, _links: hook._links };
    expect(await expectJson(call("PUT", hookPath(hook.id), { body }), 200)).toEqual(hook);
  });

  it.each([
    ["id", 1],
    ["pending", 3],
    ["delivered", 1],
    ["retries", 2],
    ["failed", 1],
    ["last_success", "2026-01-01 00:00:00"],
    ["last_retry", "2026-01-01 00:00:00"],
    ["last_failure", "2026-01-01 00:00:00"],
    ["date_created", "2020-01-01 00:00:00"],
  ])("refuses a changed read-only %s and stores nothing", async (field, value) => {
    const hook = await createHook();
    const err = await expectError(call("PUT", hookPath(hook.id), { body: { name: "Changed", [field]: value } }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ [field]: "is read-only" });
    expect(await getHook(hook.id)).toEqual(hook);
  });

  it.each([
    ["url", "http://10.0.0.1/hook"],
    ["url", "http://192.168.1.1/hook"],
    ["url", "https://169.254.169.254/"],
    ["topic", "order.paid"],
    ["retry_scheme", "721"],
    ["retry_scheme", Array.from({ length: 21 }, () => "0").join(",")],
    ["failure_threshold", -5],
    ["enabled", 1],
    ["name", ""],
  ])("refuses %s = %j and stores nothing", async (field, value) => {
    const hook = await createHook();
    const err = await expectError(call("PUT", hookPath(hook.id), { body: { [field]: value } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toEqual([field]);
    expect(await getHook(hook.id)).toEqual(hook);
  });
});

describe("DELETE /admin/webhooks/<id>", () => {
  it("answers deleted and previous (the webhook without _links); the webhook is gone", async () => {
    const hook = await createHook();
    const answer = await expectJson(call("DELETE", hookPath(hook.id)), 200);
    expect(answer).toEqual({ deleted: true, previous: withoutLinks(hook) });
    await expectError(call("GET", hookPath(hook.id)), 404, "rest_webhook_invalid_id");
    await expectError(call("DELETE", hookPath(hook.id)), 404, "rest_webhook_invalid_id");
  });
});

describe("GET /admin/webhooks/<id>/reset-counters", () => {
  it("sets every counter to 0 and every date to never, and keeps the rest", async () => {
    const hook = await createHook({ retry_scheme: "3", failure_threshold: 7 });
    // 2026-01-01 00:00:00 UTC is 01:00:00 in Amsterdam.
    await db
      .update(webhooks)
      .set({ pending: 2, delivered: 5, retries: 4, failed: 3, lastSuccess: 1_767_225_600, lastRetry: 1_767_225_660, lastFailure: 1_767_225_720 })
      .where(eq(webhooks.id, hook.id));
    expect(await getHook(hook.id)).toMatchObject({
      pending: 2,
      delivered: 5,
      retries: 4,
      failed: 3,
      last_success: "2026-01-01 01:00:00",
      last_retry: "2026-01-01 01:01:00",
      last_failure: "2026-01-01 01:02:00",
    });
    const reset = await expectJson(call("GET", `${hookPath(hook.id)}/reset-counters`), 200);
    expect(reset).toEqual(hook);
    expect(await getHook(hook.id)).toEqual(hook);
  });
});

describe("administrators only", () => {
  it("answers 403 rest_forbidden to an organizer on every webhook route, and the organizer's ping sends nothing", async () => {
    const organizer = await createUser("organizer");
    const auth = organizer.credentials;
    const name = "forbidden-ping";
    await programStub(name);
    const hook = await createHook({ url: stubUrl(`/${name}/hook`) });
    const id = hook.id as number;
    const calls: [string, string, unknown?][] = [
      ["GET", hooksPath],
      ["POST", hooksPath, baseBody()],
      ["GET", hookPath(id)],
      ["PUT", hookPath(id), { enabled: true }],
      ["DELETE", hookPath(id)],
      ["GET", `${hookPath(id)}/reset-counters`],
      ["GET", `${hookPath(id)}/ping`],
      ["GET", `${hookPath(id)}/deliveries`],
      ["POST", `${hookPath(id)}/deliveries/${"0".repeat(32)}/redeliver`],
    ];
    for (const [method, path, body] of calls) {
      await expectError(call(method, path, { auth, body }), 403, "rest_forbidden");
    }
    expect(await getHook(id)).toEqual(hook);
    await sleep(200);
    expect(await receivedBy(name)).toEqual([]);
  });

  it("needs the API key and credentials", async () => {
    await expectError(call("GET", hooksPath, { key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", hooksPath, { auth: null }), 401, "rest_not_logged_in");
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("topics: what a receiver gets", { timeout: 20_000 }, () => {
  it("event.created: the event as the API shows it (without _links), every header, a verifiable signature; webhooks_needed ignored", async () => {
    const name = "topic-event-created";
    const hook = await enabledHook(name, "event.created");
    const event = await createEvent({ event_name: "Café ✓ opening night", webhooks_needed: false });
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await expectSignedDelivery(req!, hook, "event.created");
    expect(JSON.parse(req!.body)).toEqual(withoutLinks(event));
    expect(JSON.parse(req!.body)).not.toHaveProperty("_links");
    const after = await hookWhen(hook.id, (h) => h.pending === 0 && h.delivered === 1);
    expect(after).toMatchObject({ pending: 0, delivered: 1, retries: 0, failed: 0, last_retry: NEVER, last_failure: NEVER });
    expect(after.last_success).toMatch(DATE_TIME);
    expect(after.last_success).not.toBe(NEVER);
    expect(await receivedBy(name)).toHaveLength(1);
  });

  it("event.updated: the updated event; webhooks_needed ignored", async () => {
    const name = "topic-event-updated";
    const event = await createEvent({ event_name: unique("Upd "), webhooks_needed: false });
    const hook = await enabledHook(name, "event.updated");
    const updated = await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { event_name: "Renamed ✓" } }), 200);
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await expectSignedDelivery(req!, hook, "event.updated");
    expect(JSON.parse(req!.body)).toEqual(withoutLinks(updated));
    expect(JSON.parse(req!.body).event_name).toBe("Renamed ✓");
  });

  it("event.deleted: {id}", async () => {
    const name = "topic-event-deleted";
    const event = await createEvent({ event_name: unique("Del "), webhooks_needed: true });
    const hook = await enabledHook(name, "event.deleted");
    await expectJson(call("DELETE", `/admin/events/${event.id}`), 200);
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await expectSignedDelivery(req!, hook, "event.deleted");
    expect(req!.body).toBe(JSON.stringify({ id: event.id }));
  });

  it("order.created: a dashboard order of an event with webhooks_needed, as the API shows it", async () => {
    const name = "topic-order-created";
    const hook = await enabledHook(name, "order.created");
    const ev = await createOrderEvent({ webhooks_needed: true });
    const type = await createOrderType(ev.id, "Regular");
    const order = await placeOrder(orderBody(ev.id, [type.id], { [type.id]: 2 }));
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await expectSignedDelivery(req!, hook, "order.created");
    const payload = JSON.parse(req!.body);
    expect(payload).toEqual(withoutLinks(order));
    expect(payload).toMatchObject({ id: order.id, event_id: ev.id, num_tickets: 2, payment_status: "dashboard" });
    const read = await expectJson(call("GET", `/admin/orders/${order.id}`), 200);
    expect(payload).toEqual(withoutLinks(read));
  });

  it("order.created: nothing is sent for an event without webhooks_needed", async () => {
    const name = "topic-order-not-needed";
    const hook = await enabledHook(name, "order.created");
    const off = await createOrderEvent({ webhooks_needed: false });
    const offType = await createOrderType(off.id, "Regular");
    const offOrder = await placeOrder(orderBody(off.id, [offType.id], { [offType.id]: 1 }));
    // Control: the same webhook does fire for an event that wants webhooks, placed after the first order.
    const on = await createOrderEvent({ webhooks_needed: true });
    const onType = await createOrderType(on.id, "Regular");
    const onOrder = await placeOrder(orderBody(on.id, [onType.id], { [onType.id]: 1 }));
    await waitForRequests(name, 1);
    await hookWhen(hook.id, (h) => h.delivered === 1 && h.pending === 0);
    await sleep(1500);
    const got = await receivedBy(name);
    expect(got.map((r) => JSON.parse(r.body).id)).toEqual([onOrder.id]);
    expect(got.map((r) => JSON.parse(r.body).id)).not.toContain(offOrder.id);
    const log = await expectJson<Json[]>(call("GET", `${hookPath(hook.id)}/deliveries`), 200);
    expect(log).toHaveLength(1);
  });

  it("order.updated: PUT /admin/orders/<id> sends the order as it now is", async () => {
    const name = "topic-order-updated";
    const ev = await createOrderEvent({ webhooks_needed: true });
    const type = await createOrderType(ev.id, "Regular");
    const order = await placeOrder(orderBody(ev.id, [type.id], { [type.id]: 1 }));
    const hook = await enabledHook(name, "order.updated");
    await expectJson(call("PUT", `/admin/orders/${order.id}`, { body: { custom_status: "vip", name: "Zoë Smith" } }), 200);
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await expectSignedDelivery(req!, hook, "order.updated");
    const payload = JSON.parse(req!.body);
    expect(payload).toMatchObject({ id: order.id, custom_status: "vip", name: "Zoë Smith" });
    expect(payload).toEqual(withoutLinks(await expectJson(call("GET", `/admin/orders/${order.id}`), 200)));
  });

  it("order.deleted: {id}", async () => {
    const name = "topic-order-deleted";
    const ev = await createOrderEvent({ webhooks_needed: true });
    const type = await createOrderType(ev.id, "Regular");
    const order = await placeOrder(orderBody(ev.id, [type.id], { [type.id]: 1 }));
    const hook = await enabledHook(name, "order.deleted");
    await expectJson(call("DELETE", `/admin/orders/${order.id}`), 200);
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await expectSignedDelivery(req!, hook, "order.deleted");
    expect(req!.body).toBe(JSON.stringify({ id: order.id }));
  });

  it("a disabled webhook sends nothing, while an enabled one of the same topic does", async () => {
    const onName = "disabled-control";
    const offName = "disabled-silent";
    const on = await enabledHook(onName, "event.created");
    await programStub(offName);
    const off = await createHook({ name: offName, url: stubUrl(`/${offName}/hook`), topic: "event.created" });
    // Enabled, then disabled again with PUT: the switch really turns it off.
    await expectJson(call("PUT", hookPath(off.id), { body: { enabled: true } }), 200);
    await expectJson(call("PUT", hookPath(off.id), { body: { enabled: false } }), 200);
    await createEvent({ event_name: unique("Disabled ") });
    await waitForRequests(onName, 1);
    await hookWhen(on.id, (h) => h.delivered === 1);
    await sleep(1500);
    expect(await receivedBy(offName)).toEqual([]);
    expect(await getHook(off.id)).toMatchObject({ pending: 0, delivered: 0, failed: 0, enabled: false });
    expect(await expectJson(call("GET", `${hookPath(off.id)}/deliveries`), 200)).toEqual([]);
  });

  it("each delivery has its own delivery id", async () => {
    const name = "distinct-ids";
    const hook = await enabledHook(name, "event.created");
    await createEvent({ event_name: unique("Ids A ") });
    await createEvent({ event_name: unique("Ids B ") });
    const got = await waitForRequests(name, 2);
    expect(got).toHaveLength(2);
    for (const r of got) await expectSignedDelivery(r, hook, "event.created");
    expect(new Set(got.map((r) => r.headers["x-evt-webhook-delivery-id"])).size).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("GET /admin/webhooks/<id>/ping", () => {
  /** The delivery, which the answer holds under "Webhook Delivery" and nothing else (decisions.md 14). */
  async function ping(id: number) {
    const body = await expectJson(call("GET", `${hookPath(id)}/ping`), 200);
    expect(Object.keys(body)).toEqual(["Webhook Delivery"]);
    return body["Webhook Delivery"];
  }

  it("sends the signed empty body now and answers the Webhook Delivery object; no counter changes", async () => {
    const name = "ping-live";
    await programStub(name, { body: '{"pong":true}' });
    const hook = await createHook({ name, url: stubUrl(`/${name}/hook`), secret: "ping-secret", topic: "order.created" });
    const before = Math.floor(Date.now() / 1000);
    const answer = await ping(hook.id);
    const after = Math.floor(Date.now() / 1000);

    // Sent now (synchronously), not through the queue: the receiver already has it.
    const got = await receivedBy(name);
    expect(got).toHaveLength(1);
    const req = got[0]!;
    expect(req.body).toBe("");
    await expectSignedDelivery(req, hook, "order.created");
    expect(req.headers["x-evt-webhook-signature"]).toBe(await consumerSignature("ping-secret", ""));

    expect(Object.keys(answer).sort()).toEqual(["Date", "Delivery ID", "Duration", "Request", "Response", "URL"]);
    expect(answer["Delivery ID"]).toMatch(DELIVERY_ID);
    expect(answer["Delivery ID"]).toBe(req.headers["x-evt-webhook-delivery-id"]);
    const candidates = [];
    for (let t = before; t <= after; t++) candidates.push(amsterdam(t));
    expect(candidates).toContain(answer.Date);
    expect(answer.URL).toBe(hook.url);
    expect(answer.Duration).toMatch(/^\d+\.\d{3}$/);
    expect(answer.Request.Method).toBe("POST");
    expect(answer.Request.Body).toBe("");
    expect(answer.Request.Headers).toMatchObject({
      "Content-Type": "application/json",
      "X-EVT-Webhook-Source": SOURCE,
      "X-EVT-Webhook-Topic": "order.created",
      "X-EVT-Webhook-Resource": "order",
      "X-EVT-Webhook-Event": "created",
      "X-EVT-Webhook-ID": String(hook.id),
      "X-EVT-Webhook-Delivery-ID": answer["Delivery ID"],
      "X-EVT-Webhook-Signature": await consumerSignature("ping-secret", ""),
    });
    expect(answer.Request.Headers["User-Agent"]).toBe(req.headers["user-agent"]);
    expect(answer.Response).toMatchObject({ Code: 200, Body: '{"pong":true}' });
    expect(typeof answer.Response.Message).toBe("string");
    expect(answer.Response.Headers["x-stub"]).toBe(name);

    // A ping changes no counter (decisions.md 12) and adds no delivery to the log.
    expect(await getHook(hook.id)).toEqual(hook);
    expect(await expectJson(call("GET", `${hookPath(hook.id)}/deliveries`), 200)).toEqual([]);
  });

  it("reports a receiver's error status in Response", async () => {
    const name = "ping-500";
    await programStub(name, { status: 503, body: "down for maintenance" });
    const hook = await createHook({ name, url: stubUrl(`/${name}/hook`) });
    const answer = await ping(hook.id);
    expect(answer.Response).toMatchObject({ Code: 503, Body: "down for maintenance" });
    expect(await getHook(hook.id)).toEqual(hook);
  });

  it("reports a receiver that answers later than 10 s as a failure, with 200", async () => {
    const name = "ping-slow";
    await programStub(name, { delayMs: 10_600 });
    const hook = await createHook({ name, url: stubUrl(`/${name}/hook`) });
    const started = Date.now();
    const answer = await ping(hook.id);
    expect(Date.now() - started).toBeLessThan(10_600);
    expect(answer.Response.Code).not.toBeGreaterThanOrEqual(200);
    expect(answer.Response.Message).toMatch(/10\s?000 ?ms|10 ?s/);
    expect(Number(answer.Duration)).toBeGreaterThanOrEqual(9.9);
    expect(await getHook(hook.id)).toEqual(hook);
  }, 20_000);

  it("with OUTBOUND_DNS_URL, a URL whose name resolves to a private address is refused before anything is sent (decisions.md 15)", async () => {
    const doh = unique("ping-doh-").toLowerCase();
    await programStub(doh, { body: JSON.stringify({ Status: 0, Answer: [{ name: "hooks.example.com", type: 1, TTL: 60, data: "10.0.0.1" }] }) });
    const hook = await createHook({ url: `https://${unique("h").toLowerCase()}.example.com/hook`, secret: "resolved" });
    const ctx = createExecutionContext();
    const res = await worker.fetch(request("GET", `${hookPath(hook.id)}/ping`), { ...env, OUTBOUND_DNS_URL: stubUrl(`/${doh}/dns-query`) } as typeof env, ctx);
    await waitOnExecutionContext(ctx);
    const answer = (await expectJson(res, 200))["Webhook Delivery"];
    expect(answer.Response.Code).toBe(0);
    expect(answer.Response.Message).toMatch(/must not resolve to a private or local address/);
    expect(await receivedBy(doh)).toHaveLength(2);
    expect(await getHook(hook.id)).toEqual(hook);
  });

  it("reports a dead URL in Response with 200 and throws nothing; no counter changes", async () => {
    const hook = await createHook({ url: "http://127.0.0.1:9/x", secret: "dead" });
    const answer = await ping(hook.id);
    expect(answer["Delivery ID"]).toMatch(DELIVERY_ID);
    expect(answer.URL).toBe("http://127.0.0.1:9/x");
    expect(answer.Request).toMatchObject({ Method: "POST", Body: "" });
    expect(answer.Request.Headers["X-EVT-Webhook-Signature"]).toBe(await consumerSignature("dead", ""));
    expect(answer.Response.Code).not.toBeGreaterThanOrEqual(200);
    expect(typeof answer.Response.Message).toBe("string");
    expect(answer.Response.Message.length).toBeGreaterThan(0);
    expect(await getHook(hook.id)).toEqual(hook);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("the delivery log", { timeout: 20_000 }, () => {
  const DELIVERY_FIELDS = [
    "_links",
    "attempts",
    "body",
    "created",
    "delivery_id",
    "duration",
    "error",
    "finished",
    "request",
    "response",
    "status",
    "topic",
    "webhook_id",
  ];

  it("lists deliveries with what went over the wire, and redeliver sends the same body under a new delivery id", async () => {
    const name = "delivery-log";
    const hook = await enabledHook(name, "event.created", {}, { body: "thanks" });
    const event = await createEvent({ event_name: unique("Log ") });
    const [first] = await waitForRequests(name, 1);
    expect(first, "a delivery arrived").toBeDefined();
    await hookWhen(hook.id, (h) => h.delivered === 1);

    const res = await call("GET", `${hookPath(hook.id)}/deliveries`);
    const log = await expectJson<Json[]>(res, 200);
    expect(res.headers.get("X-WP-Total")).toBe("1");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
    expect(log).toHaveLength(1);
    const entry = log[0]!;
    const id = first!.headers["x-evt-webhook-delivery-id"]!;
    expect(Object.keys(entry).sort()).toEqual(DELIVERY_FIELDS);
    expect(entry).toMatchObject({
      delivery_id: id,
      webhook_id: hook.id,
      topic: "event.created",
      status: "delivered",
      attempts: 1,
      body: first!.body,
      error: "",
      _links: {
        self: [{ href: `${BASE}${hookPath(hook.id)}/deliveries/${id}` }],
        collection: [{ href: `${BASE}${hookPath(hook.id)}/deliveries` }],
      },
    });
    expect(JSON.parse(entry.body)).toEqual(withoutLinks(event));
    expect(entry.created).toMatch(DATE_TIME);
    expect(entry.finished).toMatch(DATE_TIME);
    expect(entry.finished).not.toBe(NEVER);
    expect(entry.duration).toMatch(/^\d+\.\d{3}$/);
    expect(entry.request).toMatchObject({ method: "POST", url: hook.url, body: first!.body });
    expect(entry.request.headers["X-EVT-Webhook-Delivery-ID"]).toBe(id);
    expect(entry.response).toMatchObject({ code: 200, body: "thanks" });
    expect(await expectJson(call("GET", `${hookPath(hook.id)}/deliveries/${id}`), 200)).toEqual(entry);

    // Redeliver: 201, Location, a new id, the same body; the receiver gets it, signed.
    const again = await call("POST", `${hookPath(hook.id)}/deliveries/${id}/redeliver`);
    const copy = await expectJson(again, 201);
    expect(copy.delivery_id).toMatch(DELIVERY_ID);
    expect(copy.delivery_id).not.toBe(id);
    expect(copy).toMatchObject({ webhook_id: hook.id, topic: "event.created", body: entry.body, status: "pending", attempts: 0 });
    expect(again.headers.get("Location")).toBe(`${BASE}${hookPath(hook.id)}/deliveries/${copy.delivery_id}`);
    const got = await waitForRequests(name, 2);
    expect(got).toHaveLength(2);
    const second = got[1]!;
    expect(second.headers["x-evt-webhook-delivery-id"]).toBe(copy.delivery_id);
    expect(second.body).toBe(first!.body);
    await expectSignedDelivery(second, hook, "event.created");

    const done = await hookWhen(hook.id, (h) => h.delivered === 2 && h.pending === 0);
    expect(done).toMatchObject({ delivered: 2, pending: 0, retries: 0, failed: 0 });
    const log2 = await expectJson<Json[]>(call("GET", `${hookPath(hook.id)}/deliveries`), 200);
    expect(log2.map((d) => d.delivery_id).sort()).toEqual([copy.delivery_id, id].sort());
    expect(log2[0]!.created >= log2[1]!.created).toBe(true); // newest first
    expect(log2.find((d) => d.delivery_id === copy.delivery_id)).toMatchObject({ status: "delivered", attempts: 1, body: entry.body });
  });

  it("counts every one of several concurrent redeliveries as pending", async () => {
    const name = "redeliver-concurrent";
    const hook = await enabledHook(name, "event.created");
    await createEvent({ event_name: unique("Concurrent ") });
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    await hookWhen(hook.id, (h) => h.delivered === 1 && h.pending === 0);
    // A slow receiver keeps the copies pending while the counter is read.
    await programStub(name, { delayMs: 1500 });
    const id = req!.headers["x-evt-webhook-delivery-id"]!;
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => call("POST", `${hookPath(hook.id)}/deliveries/${id}/redeliver`)));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
      const now = await getHook(hook.id);
      const log = await expectJson<Json[]>(call("GET", `${hookPath(hook.id)}/deliveries`), 200);
      expect(log.filter((d) => d.status === "pending")).toHaveLength(5);
      expect(now.pending).toBe(5);
    } finally {
      // Deleting drops what is still queued, so the slow receiver does not hold up later tests.
      await expectJson(call("DELETE", hookPath(hook.id)), 200);
    }
  });

  it("answers 404 for a delivery of another webhook or an unknown delivery id", async () => {
    const name = "delivery-404";
    const hook = await enabledHook(name, "event.created");
    const other = await createHook();
    await createEvent({ event_name: unique("Log404 ") });
    const [req] = await waitForRequests(name, 1);
    expect(req, "a delivery arrived").toBeDefined();
    const id = req!.headers["x-evt-webhook-delivery-id"]!;
    await expectError(call("GET", `${hookPath(other.id)}/deliveries/${id}`), 404, "rest_webhook_delivery_invalid_id");
    await expectError(call("POST", `${hookPath(other.id)}/deliveries/${id}/redeliver`), 404, "rest_webhook_delivery_invalid_id");
    await expectError(call("GET", `${hookPath(hook.id)}/deliveries/${"f".repeat(32)}`), 404, "rest_webhook_delivery_invalid_id");
    expect(await expectJson(call("GET", `${hookPath(other.id)}/deliveries`), 200)).toEqual([]);
  });
});
