import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { count, desc, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { logs } from "../../../src/db/schema";
import worker from "../../../src/index";
import { depsFromEnv } from "../../../src/platform/deps";
import { writeLog } from "../../../src/features/logs/logs.service";
import { BASE, call, createUser, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, db, insertOrder } from "../../helpers/catalogue";
import { wallClockAt } from "../../helpers/wall-clock";

const LOG_FIELDS = ["_links", "created_at", "description", "event_id", "id", "log_type", "order_id"];
const DAY = 86_400;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The wire date-time of an instant in the service zone, computed independently of src/lib/time.ts. */
function amsterdam(epochSeconds: number): string {
  return wallClockAt(epochSeconds * 1000);
}

/** A log row with a chosen `created_at`; returns its id. */
async function insertLog(values: { eventId?: number; orderId?: number; createdAt: number; logType?: string; description?: string }) {
  const [row] = await db
    .insert(logs)
    .values({
      eventId: values.eventId ?? 0,
      orderId: values.orderId ?? 0,
      createdAt: values.createdAt,
      logType: values.logType ?? "REST API",
      description: values.description ?? unique("entry-"),
    })
    .returning({ id: logs.id });
  return row!.id;
}

/** Writes an entry the way every module does (`writeLog`), and returns its id (found by its unique description). */
async function writeEntry(entry: { eventId?: number; orderId?: number; logType?: string; description?: string }) {
  const description = entry.description ?? unique("written-");
  await writeLog(depsFromEnv(env), { logType: "REST API", ...entry, description });
  const [row] = await db.select({ id: logs.id }).from(logs).where(eq(logs.description, description));
  return row!.id;
}

async function dbCount(where?: ReturnType<typeof eq>) {
  const [row] = await db.select({ n: count() }).from(logs).where(where);
  return row!.n;
}

/** The sweep of a tenth minute, the one that does retention. */
async function runSweep() {
  const ctx = createExecutionContext();
  worker.scheduled(createScheduledController({ scheduledTime: Math.floor(Date.now() / 600_000) * 600_000, cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("GET /admin/logs", () => {
  it("answers entries in the log-entry shape, with links and unpaged headers", async () => {
    const event = await createEvent();
    const orderId = await insertOrder(event.id);
    const before = nowSeconds();
    const id = await writeEntry({ eventId: event.id, orderId, logType: "REST API", description: unique("payment failed: card declined ") });
    const after = nowSeconds();

    const res = await call("GET", "/admin/logs");
    const list = await expectJson<any[]>(res, 200);
    const entry = list.find((e) => e.id === id);
    expect(entry).toBeDefined();
    expect(Object.keys(entry).sort()).toEqual(LOG_FIELDS);
    expect(entry).toMatchObject({ id, event_id: event.id, order_id: orderId, log_type: "REST API" });
    expect(entry.description).toMatch(/^payment failed: card declined /);
    expect(entry.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect([amsterdam(before), amsterdam(after)]).toContain(entry.created_at);
    expect(entry._links).toEqual({
      self: [{ href: `${BASE}/admin/logs/${id}` }],
      collection: [{ href: `${BASE}/admin/logs` }],
    });
    expect(res.headers.get("X-WP-Total")).toBe(String(await dbCount()));
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("writes event_id and order_id 0 for an entry of no event or order", async () => {
    const id = await writeEntry({ logType: "Queue" });
    const list = await expectJson<any[]>(call("GET", "/admin/logs"), 200);
    expect(list.find((e) => e.id === id)).toMatchObject({ id, event_id: 0, order_id: 0, log_type: "Queue" });
  });

  it("shows created_at in the service time zone (Europe/Amsterdam), winter and summer time", async () => {
    const event = await createEvent();
    const orderId = await insertOrder(event.id);
    const winter = await insertLog({ eventId: event.id, orderId, createdAt: Date.UTC(2024, 0, 15, 12, 0, 0) / 1000 });
    const summer = await insertLog({ eventId: event.id, orderId, createdAt: Date.UTC(2024, 6, 1, 23, 30, 5) / 1000 });
    // Through the order route, so that the 1000-row limit of the full list cannot hide these old entries.
    const list = await expectJson<any[]>(call("GET", `/admin/logs/order/${orderId}`), 200);
    expect(list.find((e) => e.id === winter)?.created_at).toBe("2024-01-15 13:00:00");
    expect(list.find((e) => e.id === summer)?.created_at).toBe("2024-07-02 01:30:05");
  });

  it("lists the newest entries first (created_at, then the later-written entry)", async () => {
    const event = await createEvent();
    const now = nowSeconds();
    const middle = await insertLog({ eventId: event.id, createdAt: now - 20 });
    const oldest = await insertLog({ eventId: event.id, createdAt: now - 30 });
    const newest = await insertLog({ eventId: event.id, createdAt: now - 10 });
    const sameSecondLater = await insertLog({ eventId: event.id, createdAt: now - 20 });
    const list = await expectJson<any[]>(call("GET", "/admin/logs"), 200);
    const mine = list.filter((e) => [middle, oldest, newest, sameSecondLater].includes(e.id)).map((e) => e.id);
    expect(mine).toEqual([newest, sameSecondLater, middle, oldest]);
  });

  it("keeps only the fields named in _fields", async () => {
    const id = await writeEntry({});
    const list = await expectJson<any[]>(call("GET", "/admin/logs?_fields=id,description"), 200);
    expect(list.length).toBeGreaterThan(0);
    for (const e of list) expect(Object.keys(e).sort()).toEqual(["description", "id"]);
    expect(list.some((e) => e.id === id)).toBe(true);

    const withLinks = await expectJson<any[]>(call("GET", "/admin/logs?_fields=id,_links,nonsense"), 200);
    const entry = withLinks.find((e) => e.id === id);
    expect(Object.keys(entry).sort()).toEqual(["_links", "id"]);
    expect(entry._links.self).toEqual([{ href: `${BASE}/admin/logs/${id}` }]);
  });

  it("answers at most the 1000 newest rows, X-WP-Total counting all of them, X-WP-TotalPages 1", async () => {
    const event = await createEvent();
    const organizer = await createUser("organizer", { authorised_events: [event.id] });
    const base = nowSeconds() - 3600;
    const n = 1050;
    // One statement (D1 binds at most 100 parameters, so the rows go in as one JSON parameter).
    await db.run(
      sql`INSERT INTO logs (event_id, order_id, created_at, log_type, description)
          SELECT ${event.id}, 0, ${base} - value, 'Bulk', 'bulk-' || value
          FROM json_each(${JSON.stringify(Array.from({ length: n }, (_, i) => i))})`,
    );
    expect(await dbCount(eq(logs.eventId, event.id))).toBe(n);

    // Administrator: everything in the table is in scope.
    const res = await call("GET", "/admin/logs");
    const list = await expectJson<any[]>(res, 200);
    const total = await dbCount();
    expect(total).toBeGreaterThan(1000);
    expect(list).toHaveLength(1000);
    expect(res.headers.get("X-WP-Total")).toBe(String(total));
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
    const newest = await db.select({ id: logs.id }).from(logs).orderBy(desc(logs.createdAt), desc(logs.id)).limit(1000);
    expect(list.map((e) => e.id)).toEqual(newest.map((r) => r.id));

    // Organizer of that event only: its 1050 rows are the scope; the 1000 newest come, newest first.
    const orgRes = await call("GET", "/admin/logs", { auth: organizer.credentials });
    const orgList = await expectJson<any[]>(orgRes, 200);
    expect(orgList).toHaveLength(1000);
    expect(orgRes.headers.get("X-WP-Total")).toBe(String(n));
    expect(orgRes.headers.get("X-WP-TotalPages")).toBe("1");
    expect(orgList.map((e) => e.description)).toEqual(Array.from({ length: 1000 }, (_, i) => `bulk-${i}`));
    expect(orgList.every((e) => e.event_id === event.id)).toBe(true);
  });
});

describe("GET /admin/logs/order/<order_id>", () => {
  it("lists only that order's entries, newest first, with unpaged headers", async () => {
    const event = await createEvent();
    const [orderA, orderB] = [await insertOrder(event.id), await insertOrder(event.id)];
    const now = nowSeconds();
    const a1 = await insertLog({ eventId: event.id, orderId: orderA, createdAt: now - 50 });
    const b1 = await insertLog({ eventId: event.id, orderId: orderB, createdAt: now - 40 });
    const a2 = await insertLog({ eventId: event.id, orderId: orderA, createdAt: now - 30 });
    const other = await insertLog({ eventId: event.id, createdAt: now - 20 });

    const res = await call("GET", `/admin/logs/order/${orderA}`);
    const list = await expectJson<any[]>(res, 200);
    expect(list.map((e) => e.id)).toEqual([a2, a1]);
    for (const e of list) {
      expect(Object.keys(e).sort()).toEqual(LOG_FIELDS);
      expect(e).toMatchObject({ order_id: orderA, event_id: event.id });
    }
    expect(res.headers.get("X-WP-Total")).toBe("2");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");

    const listB = await expectJson<any[]>(call("GET", `/admin/logs/order/${orderB}`), 200);
    expect(listB.map((e) => e.id)).toEqual([b1]);
    expect(listB.map((e) => e.id)).not.toContain(other);
  });

  it("answers an empty list for an order without entries", async () => {
    const event = await createEvent();
    const orderId = await insertOrder(event.id);
    const res = await call("GET", `/admin/logs/order/${orderId}`);
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("keeps only the fields named in _fields", async () => {
    const event = await createEvent();
    const orderId = await insertOrder(event.id);
    const id = await writeEntry({ eventId: event.id, orderId });
    const list = await expectJson<any[]>(call("GET", `/admin/logs/order/${orderId}?_fields=id,order_id`), 200);
    expect(list).toEqual([{ id, order_id: orderId }]);
  });

  it("answers 404 rest_order_invalid_id for an unknown order, even when log rows name it", async () => {
    const ghost = 987_654_321;
    await insertLog({ orderId: ghost, createdAt: nowSeconds() });
    await expectError(call("GET", `/admin/logs/order/${ghost}`), 404, "rest_order_invalid_id");
  });

  it.each(["abc", "0", "-1", "1.5", "1e3", "99999999999999999999"])("answers 404 rest_order_invalid_id for the malformed id %s", async (id) => {
    await expectError(call("GET", `/admin/logs/order/${id}`), 404, "rest_order_invalid_id");
  });
});

describe("DELETE /admin/logs/<id>", () => {
  it("deletes the entry and answers deleted with previous, without _links", async () => {
    const event = await createEvent();
    const orderId = await insertOrder(event.id);
    const id = await writeEntry({ eventId: event.id, orderId, description: unique("to delete ") });
    const listed = (await expectJson<any[]>(call("GET", `/admin/logs/order/${orderId}`), 200)).find((e) => e.id === id);
    expect(listed).toBeDefined();

    const body = await expectJson(call("DELETE", `/admin/logs/${id}`), 200);
    expect(Object.keys(body).sort()).toEqual(["deleted", "previous"]);
    expect(body.deleted).toBe(true);
    const { _links, ...withoutLinks } = listed;
    expect(body.previous).toEqual(withoutLinks);
    expect(body.previous).not.toHaveProperty("_links");

    expect(await dbCount(eq(logs.id, id))).toBe(0);
    expect((await expectJson<any[]>(call("GET", "/admin/logs"), 200)).some((e) => e.id === id)).toBe(false);
    expect(await expectJson(call("GET", `/admin/logs/order/${orderId}`), 200)).toEqual([]);
    await expectError(call("DELETE", `/admin/logs/${id}`), 404, "rest_log_invalid_id");
  });

  it("answers 404 rest_log_invalid_id for an unknown or malformed id, deleting nothing", async () => {
    const before = await dbCount();
    await expectError(call("DELETE", "/admin/logs/987654321"), 404, "rest_log_invalid_id");
    await expectError(call("DELETE", "/admin/logs/abc"), 404, "rest_log_invalid_id");
    await expectError(call("DELETE", "/admin/logs/0"), 404, "rest_log_invalid_id");
    expect(await dbCount()).toBe(before);
  });
});

describe("roles", () => {
  async function scenario() {
    const [own, foreign] = [await createEvent(), await createEvent()];
    const organizer = await createUser("organizer", { authorised_events: [own.id] });
    const [ownOrder, foreignOrder] = [await insertOrder(own.id), await insertOrder(foreign.id)];
    const ownEntries = [
      await writeEntry({ eventId: own.id, orderId: ownOrder }),
      await writeEntry({ eventId: own.id, orderId: ownOrder }),
      await writeEntry({ eventId: own.id }),
    ];
    const foreignEntry = await writeEntry({ eventId: foreign.id, orderId: foreignOrder });
    const noEventEntry = await writeEntry({});
    return { own, foreign, organizer, ownOrder, foreignOrder, ownEntries, foreignEntry, noEventEntry };
  }

  it("an organizer lists only entries of its authorised events, and X-WP-Total counts only those", async () => {
    const s = await scenario();
    const res = await call("GET", "/admin/logs", { auth: s.organizer.credentials });
    const list = await expectJson<any[]>(res, 200);
    expect(list.map((e) => e.id).sort((a, b) => a - b)).toEqual([...s.ownEntries].sort((a, b) => a - b));
    expect(list.every((e) => e.event_id === s.own.id)).toBe(true);
    expect(res.headers.get("X-WP-Total")).toBe("3");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("an organizer without authorised events sees no entries at all", async () => {
    await scenario();
    const organizer = await createUser("organizer");
    const res = await call("GET", "/admin/logs", { auth: organizer.credentials });
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
  });

  it("an organizer lists the entries of an order of its event, and gets 403 for another event's order", async () => {
    const s = await scenario();
    const res = await call("GET", `/admin/logs/order/${s.ownOrder}`, { auth: s.organizer.credentials });
    const list = await expectJson<any[]>(res, 200);
    expect(list.map((e) => e.id).sort((a, b) => a - b)).toEqual(s.ownEntries.slice(0, 2).sort((a, b) => a - b));
    expect(res.headers.get("X-WP-Total")).toBe("2");
    await expectError(call("GET", `/admin/logs/order/${s.foreignOrder}`, { auth: s.organizer.credentials }), 403, "rest_forbidden");
  });

  it("an organizer may delete an entry of its event but not another event's or an event-0 entry (403)", async () => {
    const s = await scenario();
    await expectError(call("DELETE", `/admin/logs/${s.foreignEntry}`, { auth: s.organizer.credentials }), 403, "rest_forbidden");
    await expectError(call("DELETE", `/admin/logs/${s.noEventEntry}`, { auth: s.organizer.credentials }), 403, "rest_forbidden");
    expect(await dbCount(inArray(logs.id, [s.foreignEntry, s.noEventEntry]))).toBe(2);

    const body = await expectJson(call("DELETE", `/admin/logs/${s.ownEntries[0]}`, { auth: s.organizer.credentials }), 200);
    expect(body).toMatchObject({ deleted: true, previous: { id: s.ownEntries[0], event_id: s.own.id } });
    expect(await dbCount(eq(logs.id, s.ownEntries[0]!))).toBe(0);
  });

  it("an administrator sees every entry, in both lists, and may delete any of them", async () => {
    const s = await scenario();
    const admin = await createUser("administrator");
    const list = await expectJson<any[]>(call("GET", "/admin/logs", { auth: admin.credentials }), 200);
    const ids = list.map((e) => e.id);
    for (const id of [...s.ownEntries, s.foreignEntry, s.noEventEntry]) expect(ids).toContain(id);
    const foreign = await expectJson<any[]>(call("GET", `/admin/logs/order/${s.foreignOrder}`, { auth: admin.credentials }), 200);
    expect(foreign.map((e) => e.id)).toEqual([s.foreignEntry]);
    await expectJson(call("DELETE", `/admin/logs/${s.foreignEntry}`, { auth: admin.credentials }), 200);
    await expectJson(call("DELETE", `/admin/logs/${s.noEventEntry}`, { auth: admin.credentials }), 200);
    expect(await dbCount(inArray(logs.id, [s.foreignEntry, s.noEventEntry]))).toBe(0);
  });
});

describe("retention", () => {
  it("the cron sweep removes entries older than LOG_RETENTION_DAYS (90) and keeps newer ones", async () => {
    expect(env.LOG_RETENTION_DAYS).toBe("90");
    const event = await createEvent();
    const orderId = await insertOrder(event.id);
    const now = nowSeconds();
    const age = (days: number, extraSeconds = 0) => insertLog({ eventId: event.id, orderId, createdAt: now - days * DAY - extraSeconds });
    const goes = [await age(91), await age(90, 3600), await age(400)];
    const stays = [await age(89), await age(90, -3600), await age(0)];

    await runSweep();

    const remaining = await db.select({ id: logs.id }).from(logs).where(eq(logs.orderId, orderId));
    expect(remaining.map((r) => r.id).sort((a, b) => a - b)).toEqual([...stays].sort((a, b) => a - b));
    const listed = await expectJson<any[]>(call("GET", `/admin/logs/order/${orderId}`), 200);
    expect(listed.map((e) => e.id)).toEqual([stays[2], stays[0], stays[1]]);
    for (const id of goes) await expectError(call("DELETE", `/admin/logs/${id}`), 404, "rest_log_invalid_id");
  });
});

describe("authentication", () => {
  it.each([
    ["GET", "/admin/logs"],
    ["GET", "/admin/logs/order/1"],
    ["DELETE", "/admin/logs/1"],
  ])("%s %s without an API key is 401 rest_forbidden_api_key", async (method, path) => {
    await expectError(call(method, path, { key: null }), 401, "rest_forbidden_api_key");
  });

  it.each([
    ["GET", "/admin/logs"],
    ["GET", "/admin/logs/order/1"],
    ["DELETE", "/admin/logs/1"],
  ])("%s %s without Basic credentials is 401 rest_not_logged_in", async (method, path) => {
    const res = await call(method, path, { auth: null });
    expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
    await expectError(res, 401, "rest_not_logged_in");
  });

  it("an unauthenticated DELETE leaves the entry in place", async () => {
    const id = await writeEntry({});
    await expectError(call("DELETE", `/admin/logs/${id}`, { key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("DELETE", `/admin/logs/${id}`, { auth: null }), 401, "rest_not_logged_in");
    await expectError(call("DELETE", `/admin/logs/${id}`, { auth: { username: "admin", password: "wrong" } }), 401, "incorrect_password");
    expect(await dbCount(eq(logs.id, id))).toBe(1);
  });
});
