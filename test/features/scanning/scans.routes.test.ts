import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { orders, webhookDeliveries, webhooks } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import { EventObject } from "../../../src/event-object/event.do";
import { migrateStorage } from "../../../src/event-object/storage";
import { nextSendAt, SCAN_FLUSH_MS, SCAN_RESEND_MS, sendDueScans, type ScanQueue } from "../../../src/event-object/scan-outbox";
import worker from "../../../src/index";
import type { ScansRecordJob } from "../../../src/platform/messages";
import { depsFromEnv } from "../../../src/platform/deps";
import { recordScans } from "../../../src/features/scanning/scan-records.service";
import { rebuildEventObject } from "../../../src/features/ordering/stock.service";
import { API_KEY, call, expectError, expectJson, request, unique } from "../../helpers/api";
import { createScanKey, db } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, eventSold, orderBody, placeOrder } from "../../helpers/orders";
import { programStub, receivedBy, stubUrl, waitForRequests } from "../../helpers/stubs";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * Public scans (ticketing-api.md "Scan validation result", "Public scans"; decisions.md 6, 12 "Scans", 13
 * "Catalogue" scan keys and "Tickets, scans, messages"): `POST /scans` decided in the event's object from its own
 * state, with a scan key in `X-EVT-API-KEY`; `GET /scans/<ticket_id>`; scans reaching D1 through the object's
 * alarm and the `scans.record` queue job, announced as `scan.created`. Storage is shared with other files: every
 * test makes its own events, orders and keys; webhooks are switched off after each test.
 */

type Json = Record<string, any>;

const RESULT_FIELDS = ["order_id", "qrcode", "event", "name", "email", "level", "type", "status", "date", "location"];
const REFUSAL_FIELDS = [...RESULT_FIELDS, "error"];
const TICKET_SCANS_FIELDS = ["order_id", "qrcode", "event_name", "ticket_type", "name", "email", "scans"];
const SERVICE_TZ = "Europe/Amsterdam"; // vitest.config.ts TIMEZONE

const ERR = {
  notFound: "Ticket not found",
  wrongType: "Invalid ticket for this entrance",
  noEntrance: "No entrance scan performed",
  left: "Ticket already left the event",
  done: "This scan has already been done",
  away: "Ticket already temporarily left the event",
  back: "Ticket already re-entered the event",
} as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

afterEach(async () => {
  await db.update(webhooks).set({ enabled: false });
});

// ---------------------------------------------------------------------------------------------------------------
// Set-up

interface Ticket {
  id: string;
  type: string;
}

interface Fixture {
  event: { id: number; name: string; body: Json };
  types: { id: string; name: string }[];
  order: Json;
  tickets: Ticket[];
  buyer: { name: string; email: string };
  /** A new scan key of this event (a unique location unless one is given); answers the key string. */
  key: (level: number, extra?: Json) => Promise<string>;
}

/** The deferred confirm (waitUntil) makes the order's hold a take, after which the object knows its tickets' order. */
async function waitUntilTaken(eventId: number, uid: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const snap = await eventObject(env, eventId).snapshot();
    if (snap.reservations.find((r) => r.uid === uid)?.state === "taken") return;
    if (Date.now() > deadline) throw new Error(`order ${uid} not taken at event ${eventId}`);
    await sleep(20);
  }
}

async function ticketsOf(orderId: number): Promise<Ticket[]> {
  const view = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return view.tickets.map((t: Json) => ({ id: t.ticket_id as string, type: t.ticket_type as string }));
}

async function orderFor(f: Pick<Fixture, "event" | "types">, counts: number[], buyer = { name: "Zoë Scanner", email: unique("scan") + "@example.com" }) {
  const typeIds = f.types.map((t) => t.id);
  const byId = Object.fromEntries(typeIds.map((id, i) => [id, counts[i] ?? 0]));
  const order = await placeOrder(orderBody(f.event.id, typeIds, byId, buyer));
  await waitUntilTaken(f.event.id, order.uid);
  return { order, tickets: await ticketsOf(order.id), buyer };
}

/** An event taking dashboard orders, its ticket types (default one, "Regular"), and one order (default one ticket). */
async function fixture(opts: { event?: Json; types?: (string | [string, Json])[]; counts?: number[] } = {}): Promise<Fixture> {
  const event = await createOrderEvent(opts.event ?? {});
  madeEvents.push(event.id);
  const types = [];
  for (const t of opts.types ?? ["Regular"]) {
    const [name, body] = typeof t === "string" ? [t, {}] : t;
    types.push(await createOrderType(event.id, name, body));
  }
  const { order, tickets, buyer } = await orderFor({ event, types }, opts.counts ?? [1]);
  let n = 0;
  const key = async (level: number, extra: Json = {}) => {
    n += 1;
    return (await createScanKey(event.id, { level, location: `Loc ${level}.${n}`, ...extra })).key as string;
  };
  return { event, types, order, tickets, buyer, key };
}

// ---------------------------------------------------------------------------------------------------------------
// Calls and expectations

const postScan = (key: string | null, body: unknown) => call("POST", "/scans", { key, auth: null, body });
const getScans = (key: string | null, ticketId: string) => call("GET", `/scans/${ticketId}`, { key, auth: null });

interface Timed {
  result: Json;
  before: number;
  after: number;
}

/** One scan that answers 200; with the instants around it (for the expected date). */
async function scanAt(key: string, ticketId: string): Promise<Timed> {
  const before = Date.now();
  const result = await expectJson(postScan(key, { id: ticketId }), 200);
  const after = Date.now();
  return { result, before, after };
}

const scan = async (key: string, ticketId: string) => (await scanAt(key, ticketId)).result;

interface Wall {
  Y: string;
  m: string;
  d: string;
  H: string;
  i: string;
  s: string;
}

function wallAt(ms: number, tz: string): Wall {
  const [date, time] = wallClockAt(ms, tz).split(" ") as [string, string];
  const [Y, m, d] = date.split("-") as [string, string, string];
  const [H, i, s] = time.split(":") as [string, string, string];
  return { Y, m, d, H, i, s };
}

type Formatter = (w: Wall) => string;
const ISO: Formatter = (w) => `${w.Y}-${w.m}-${w.d} ${w.H}:${w.i}:${w.s}`;

/** Every rendering of the seconds between `before` and `after` (inclusive) in `tz`. */
function datesBetween(before: number, after: number, tz: string, format: Formatter = ISO): string[] {
  const out = new Set<string>();
  for (let t = Math.floor(before / 1000) * 1000; t <= after; t += 1000) out.add(format(wallAt(t, tz)));
  return [...out];
}

const timedDates = (t: Timed, tz: string, format: Formatter = ISO) => datesBetween(t.before, t.after, tz, format);

/** The full validation result of a ticket (field order included), `date` one of `dates`. */
function expectResult(actual: Json, expected: Omit<Json, "date">, dates: string[] | null): void {
  const fields = "error" in expected ? REFUSAL_FIELDS : RESULT_FIELDS;
  expect(Object.keys(actual)).toEqual(fields);
  expect(actual).toEqual({ ...expected, date: dates === null ? "" : expect.any(String) });
  if (dates !== null) expect(dates).toContain(actual.date);
}

/** What every result about `ticket` of `f` shows, whatever the outcome. */
function ticketPart(f: Fixture, ticket: Ticket, level: number) {
  return { order_id: f.order.id, qrcode: ticket.id, event: f.event.name, name: f.buyer.name, email: f.buyer.email, level, type: ticket.type };
}

function expectSuccess(f: Fixture, ticket: Ticket, level: number, location: string, t: Timed, tz = SERVICE_TZ, format: Formatter = ISO) {
  expectResult(t.result, { ...ticketPart(f, ticket, level), status: true, location }, timedDates(t, tz, format));
}

/** A refusal naming an earlier scan (its date must equal `date`, its location `location`). */
function expectRefusal(f: Fixture, ticket: Ticket, level: number, result: Json, error: string, earlier: { date: string; location: string } | null) {
  expect(Object.keys(result)).toEqual(REFUSAL_FIELDS);
  expect(result).toEqual({
    ...ticketPart(f, ticket, level),
    status: false,
    date: earlier?.date ?? "",
    location: earlier?.location ?? "",
    error,
  });
}

/** Scans the ticket with each key in turn; each must succeed. Answers the results. */
async function succeed(_f: Fixture, ticket: Ticket, ...keys: string[]): Promise<Json[]> {
  const out = [];
  for (const key of keys) {
    const r = await scan(key, ticket.id);
    expect(r, `scan with ${key}`).toMatchObject({ status: true });
    out.push(r);
  }
  return out;
}

// D1 and the object

interface ScanRow {
  event_id: number;
  seq: number;
  ticket_id: string;
  order_id: number;
  ticket_type_id: string;
  ticket_type: string;
  level: number;
  location: string;
  scanned_at: number;
  reloaded: number;
}

async function d1Scans(eventId: number, ticketId?: string): Promise<ScanRow[]> {
  const stmt =
    ticketId === undefined
      ? env.DB.prepare(`SELECT * FROM scans WHERE event_id = ? ORDER BY seq`).bind(eventId)
      : env.DB.prepare(`SELECT * FROM scans WHERE event_id = ? AND ticket_id = ? ORDER BY seq`).bind(eventId, ticketId);
  return (await stmt.all<ScanRow>()).results;
}

/** Polls D1 until `done` holds for the event's scan rows (bounded); answers the last rows read. */
async function d1ScansWhen(eventId: number, done: (rows: ScanRow[]) => boolean, timeoutMs = 10_000): Promise<ScanRow[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await d1Scans(eventId);
    if (done(rows) || Date.now() > until) return rows;
    await sleep(50);
  }
}

/** The scans the event object itself has recorded. */
async function objectScans(eventId: number): Promise<{ seq: number; ticket_id: string; level: number; location: string; synced: number }[]> {
  return runInDurableObject(eventObject(env, eventId), (_i: EventObject, state) =>
    state.storage.sql
      .exec<{ seq: number; ticket_id: string; level: number; location: string; synced: number }>(`SELECT seq, ticket_id, level, location, synced FROM scans ORDER BY seq`)
      .toArray(),
  );
}

/** Polls the object's scans until `done` holds (bounded); answers the last read. */
async function objectScansWhen(eventId: number, done: (rows: Awaited<ReturnType<typeof objectScans>>) => boolean) {
  const until = Date.now() + 10_000;
  for (;;) {
    const rows = await objectScans(eventId);
    if (done(rows) || Date.now() > until) return rows;
    await sleep(50);
  }
}

/** Every event this file's fixtures made: their scans are in D1 before the file ends (the afterAll below). */
const madeEvents: number[] = [];

/**
 * A scan a test sent into a queue of its own (a message lost on its way) is sent again by its object after
 * SCAN_RESEND_MS, into whichever file runs then, whose storage would change under it (the hostile-input test checks
 * that nothing changed). So the file delivers what it left: every unsynced scan is made due and its object's alarm
 * run, through the real queue, until each object holds none.
 */
afterAll(async () => {
  const behind: number[] = [];
  for (const eventId of madeEvents) {
    const due = await runInDurableObject(eventObject(env, eventId), async (_i: EventObject, state) => {
      const due = state.storage.sql.exec(`UPDATE scans SET sent_at = NULL, sends = 0 WHERE synced = 0`).rowsWritten;
      if (due > 0) await state.storage.setAlarm(Date.now());
      return due;
    });
    if (due > 0) behind.push(eventId);
  }
  for (const eventId of behind) {
    await runDurableObjectAlarm(eventObject(env, eventId));
    expect(await objectScansWhen(eventId, (rows) => rows.every((r) => r.synced === 1)), `event ${eventId}: scans still unsynced`).toSatisfy(
      (rows: { synced: number }[]) => rows.every((r) => r.synced === 1),
    );
  }
}, 60_000);

// ---------------------------------------------------------------------------------------------------------------

describe("POST /scans: the validation result", () => {
  it("a first entrance: 200, status true, every field in the spec's order, the scan's date and the key's location", async () => {
    const f = await fixture();
    const key = await f.key(0, { location: "North door" });
    const t = await scanAt(key, f.tickets[0]!.id);
    expectSuccess(f, f.tickets[0]!, 0, "North door", t);
    expect(typeof t.result.order_id).toBe("number");
    expect(typeof t.result.level).toBe("number");
    expect(typeof t.result.status).toBe("boolean");
    expect(t.result).not.toHaveProperty("error");
  });

  it("the answer is JSON with the usual response headers", async () => {
    const f = await fixture();
    const key = await f.key(0);
    const res = await postScan(key, { id: f.tickets[0]!.id });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    await res.text();
  });

  it("name, email and type come from the order and its ticket type; each ticket of an order scans on its own", async () => {
    const f = await fixture({ types: ["Regular", "VIP"], counts: [1, 2] });
    const key = await f.key(0, { location: "Gate" });
    expect(f.tickets).toHaveLength(3);
    expect(f.tickets.map((t) => t.type).sort()).toEqual(["Regular", "VIP", "VIP"]);
    for (const ticket of f.tickets) expectSuccess(f, ticket, 0, "Gate", await scanAt(key, ticket.id));
  });

  it("an id with surrounding white space is the same ticket", async () => {
    const f = await fixture();
    const key = await f.key(0, { location: "Trim" });
    const t = await scanAt(key, `  ${f.tickets[0]!.id} `);
    expectSuccess(f, f.tickets[0]!, 0, "Trim", t);
  });
});

describe("POST /scans: unknown and invalid tickets", () => {
  it("an unknown ticket: every field kept, empty, the key's event and level, and 'Ticket not found'", async () => {
    const f = await fixture();
    const key = await f.key(1);
    const r = await scan(key, "NoSuchTicket0000");
    expect(Object.keys(r)).toEqual(REFUSAL_FIELDS);
    expect(r).toEqual({
      order_id: 0,
      qrcode: "",
      event: f.event.name,
      name: "",
      email: "",
      level: 1,
      type: "",
      status: false,
      date: "",
      location: "",
      error: ERR.notFound,
    });
  });

  it("a ticket of another event is not found at this event, and nothing is recorded for it there", async () => {
    const a = await fixture();
    const b = await fixture();
    const keyA = await a.key(0);
    const r = await scan(keyA, b.tickets[0]!.id);
    expect(r).toMatchObject({ order_id: 0, qrcode: "", event: a.event.name, status: false, error: ERR.notFound });
    // The ticket still scans at its own event.
    expect(await scan(await b.key(0), b.tickets[0]!.id)).toMatchObject({ status: true });
    expect(await objectScans(a.event.id)).toEqual([]);
  });

  it("a ticket whose tickets were deleted (DELETE /admin/tickets/<order_id>) is not found; re-issued ones scan", async () => {
    const f = await fixture({ counts: [2] });
    const key = await f.key(0);
    expect(await scan(key, f.tickets[0]!.id)).toMatchObject({ status: true });
    expect(await expectJson(call("DELETE", `/admin/tickets/${f.order.id}`), 200)).toEqual({ deleted: true });
    for (const t of f.tickets) {
      expect(await scan(key, t.id)).toEqual({
        order_id: 0,
        qrcode: "",
        event: f.event.name,
        name: "",
        email: "",
        level: 0,
        type: "",
        status: false,
        date: "",
        location: "",
        error: ERR.notFound,
      });
    }
    await expectJson(call("POST", `/admin/tickets/${f.order.id}`), 201);
    const fresh = await ticketsOf(f.order.id);
    expect(fresh).toHaveLength(2);
    for (const t of fresh) expect(f.tickets.map((x) => x.id)).not.toContain(t.id);
    for (const t of fresh) expect(await scan(key, t.id)).toMatchObject({ status: true, qrcode: t.id, order_id: f.order.id });
  });

  it("a ticket of a deleted order is not found", async () => {
    const f = await fixture();
    const key = await f.key(0);
    expect(await scan(key, f.tickets[0]!.id)).toMatchObject({ status: true });
    await expectJson(call("DELETE", `/admin/orders/${f.order.id}`), 200);
    const r = await scan(key, f.tickets[0]!.id);
    expect(r).toMatchObject({ order_id: 0, qrcode: "", status: false, date: "", location: "", error: ERR.notFound });
  });
});

describe("POST /scans: the key's ticket filter", () => {
  it("a key for VIP refuses a Regular ticket with 'Invalid ticket for this entrance', showing the ticket, no date", async () => {
    const f = await fixture({ types: ["Regular", "VIP"], counts: [1, 1] });
    const regular = f.tickets.find((t) => t.type === "Regular")!;
    const vip = f.tickets.find((t) => t.type === "VIP")!;
    const key = await f.key(0, { tickets: "VIP", location: "VIP door" });
    const r = await scan(key, regular.id);
    expectRefusal(f, regular, 0, r, ERR.wrongType, null);
    expectSuccess(f, vip, 0, "VIP door", await scanAt(key, vip.id));
  });

  it("a refused type records nothing: the ticket then enters through an unfiltered key", async () => {
    const f = await fixture({ types: ["Regular", "VIP"], counts: [1, 0] });
    const ticket = f.tickets[0]!;
    const vipOnly = await f.key(0, { tickets: "VIP" });
    expect(await scan(vipOnly, ticket.id)).toMatchObject({ status: false, error: ERR.wrongType });
    const open = await f.key(0, { location: "Any door" });
    expect(await scan(open, ticket.id)).toMatchObject({ status: true, location: "Any door" });
  });

  it("a key listing several types admits each of them; an empty filter admits all", async () => {
    const f = await fixture({ types: ["Regular", "VIP", "Crew"], counts: [1, 1, 1] });
    const both = await f.key(0, { tickets: "VIP,Regular" });
    const byType = Object.fromEntries(f.tickets.map((t) => [t.type, t]));
    expect(await scan(both, byType.Regular!.id)).toMatchObject({ status: true });
    expect(await scan(both, byType.VIP!.id)).toMatchObject({ status: true });
    expect(await scan(both, byType.Crew!.id)).toMatchObject({ status: false, error: ERR.wrongType });
    const all = await f.key(0, { tickets: "" });
    expect(await scan(all, byType.Crew!.id)).toMatchObject({ status: true });
  });

  it("the filter is checked before the level rules (a refused type is not 'already done')", async () => {
    const f = await fixture({ types: ["Regular", "VIP"], counts: [1, 0] });
    const ticket = f.tickets[0]!;
    expect(await scan(await f.key(0), ticket.id)).toMatchObject({ status: true });
    expect(await scan(await f.key(0, { tickets: "VIP" }), ticket.id)).toMatchObject({ status: false, error: ERR.wrongType, date: "", location: "" });
  });

  it("a changed filter (PUT) applies to the next scan; a renamed type stays admitted", async () => {
    const f = await fixture({ types: ["Regular", "VIP"], counts: [1, 0] });
    const ticket = f.tickets[0]!;
    const key = await f.key(0, { tickets: "VIP" });
    expect(await scan(key, ticket.id)).toMatchObject({ status: false, error: ERR.wrongType });
    await expectJson(call("PUT", `/admin/events/${f.event.id}/scan-keys/${key}`, { body: { tickets: "Regular" } }), 200);
    await expectJson(call("PUT", `/admin/events/${f.event.id}/ticket-types/${f.types[0]!.id}`, { body: { name: "Standard" } }), 200);
    expect(await scan(key, ticket.id)).toMatchObject({ status: true });
  });
});

describe("level 0: entrance", () => {
  it("a repeat with the same key: 'This scan has already been done', the earlier entrance's date and location", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const key = await f.key(0, { location: "Door A" });
    const first = await scanAt(key, ticket.id);
    expectSuccess(f, ticket, 0, "Door A", first);
    await sleep(1100); // a later second, so that the repeat visibly shows the earlier date
    const again = await scan(key, ticket.id);
    expectRefusal(f, ticket, 0, again, ERR.done, { date: first.result.date, location: "Door A" });
  });

  it("a repeat at another level-0 key: refused, naming the first entrance's location, its date in this key's format", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const a = await f.key(0, { location: "Door A" });
    const b = await f.key(0, { location: "Door B", date_format: "d/m/Y H:i" });
    const first = await scanAt(a, ticket.id);
    const again = await scan(b, ticket.id);
    const dates = timedDates(first, SERVICE_TZ, (w) => `${w.d}/${w.m}/${w.Y} ${w.H}:${w.i}`);
    expect(dates).toContain(again.date);
    expectRefusal(f, ticket, 0, again, ERR.done, { date: again.date, location: "Door A" });
  });

  it("after a temporary leave (7): refused as already done, naming the entrance", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const entrance = await f.key(0, { location: "Entrance" });
    const [first] = await succeed(f, ticket, entrance, await f.key(7, { location: "Smoking area" }));
    expectRefusal(f, ticket, 0, await scan(entrance, ticket.id), ERR.done, { date: first!.date, location: "Entrance" });
  });

  it("after a re-entry (7, 8): refused as already done", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const entrance = await f.key(0, { location: "Entrance" });
    const [first] = await succeed(f, ticket, entrance, await f.key(7), await f.key(8));
    expectRefusal(f, ticket, 0, await scan(entrance, ticket.id), ERR.done, { date: first!.date, location: "Entrance" });
  });
});

describe("level 1: checkpoint", () => {
  it("without an entrance: 'No entrance scan performed', no date or location", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    expectRefusal(f, ticket, 1, await scan(await f.key(1), ticket.id), ERR.noEntrance, null);
  });

  it("after an entrance: succeeds with the checkpoint's location", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0));
    expectSuccess(f, ticket, 1, "Hall", await scanAt(await f.key(1, { location: "Hall" }), ticket.id));
  });

  it("a repeat at the same location: 'This scan has already been done' with that checkpoint scan's date and location", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const hall = await f.key(1, { location: "Hall" });
    await succeed(f, ticket, await f.key(0, { location: "Entrance" }));
    const first = await scanAt(hall, ticket.id);
    expectSuccess(f, ticket, 1, "Hall", first);
    expectRefusal(f, ticket, 1, await scan(hall, ticket.id), ERR.done, { date: first.result.date, location: "Hall" });
  });

  it("another location succeeds after a checkpoint elsewhere; each location then refuses its own repeat", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const hall = await f.key(1, { location: "Hall" });
    const stage = await f.key(1, { location: "Stage" });
    await succeed(f, ticket, await f.key(0));
    const [h] = await succeed(f, ticket, hall);
    const s = await scanAt(stage, ticket.id);
    expectSuccess(f, ticket, 1, "Stage", s);
    expect((await scan(hall, ticket.id)) as Json).toMatchObject({ status: false, error: ERR.done, location: "Hall", date: h!.date });
    expect((await scan(stage, ticket.id)) as Json).toMatchObject({ status: false, error: ERR.done, location: "Stage", date: s.result.date });
  });
});

describe("level 7: leave temporarily", () => {
  it("without an entrance: 'No entrance scan performed'", async () => {
    const f = await fixture();
    expectRefusal(f, f.tickets[0]!, 7, await scan(await f.key(7), f.tickets[0]!.id), ERR.noEntrance, null);
  });

  it("after an entrance: succeeds", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0));
    expectSuccess(f, ticket, 7, "Smoking area", await scanAt(await f.key(7, { location: "Smoking area" }), ticket.id));
  });

  it("twice in a row: 'Ticket already temporarily left the event' with the earlier leave's date and location", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const out = await f.key(7, { location: "Smoking area" });
    const otherOut = await f.key(7, { location: "Back gate" });
    await succeed(f, ticket, await f.key(0));
    const [left] = await succeed(f, ticket, out);
    expectRefusal(f, ticket, 7, await scan(out, ticket.id), ERR.away, { date: left!.date, location: "Smoking area" });
    expectRefusal(f, ticket, 7, await scan(otherOut, ticket.id), ERR.away, { date: left!.date, location: "Smoking area" });
  });
});

describe("level 8: re-enter", () => {
  it("without an entrance: 'No entrance scan performed'", async () => {
    const f = await fixture();
    expectRefusal(f, f.tickets[0]!, 8, await scan(await f.key(8), f.tickets[0]!.id), ERR.noEntrance, null);
  });

  it("after an entrance without a leave: 'Ticket already re-entered the event'", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0));
    const r = await scan(await f.key(8), ticket.id);
    expect(r).toMatchObject({ status: false, error: ERR.back });
    expect(Object.keys(r)).toEqual(REFUSAL_FIELDS);
  });

  it("after a leave: succeeds", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0), await f.key(7));
    expectSuccess(f, ticket, 8, "Re-entry", await scanAt(await f.key(8, { location: "Re-entry" }), ticket.id));
  });

  it("twice in a row: 'Ticket already re-entered the event' with the earlier re-entry's date and location", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const back = await f.key(8, { location: "Re-entry" });
    await succeed(f, ticket, await f.key(0), await f.key(7));
    const [entered] = await succeed(f, ticket, back);
    expectRefusal(f, ticket, 8, await scan(back, ticket.id), ERR.back, { date: entered!.date, location: "Re-entry" });
  });

  it("7 and 8 alternate over several rounds", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const out = await f.key(7);
    const back = await f.key(8);
    await succeed(f, ticket, await f.key(0));
    for (let round = 0; round < 3; round++) await succeed(f, ticket, out, back);
    expect(await scan(back, ticket.id)).toMatchObject({ status: false, error: ERR.back });
    await succeed(f, ticket, out);
    expect(await scan(out, ticket.id)).toMatchObject({ status: false, error: ERR.away });
  });
});

describe("level 9: exit", () => {
  it("without an entrance: 'No entrance scan performed'", async () => {
    const f = await fixture();
    expectRefusal(f, f.tickets[0]!, 9, await scan(await f.key(9), f.tickets[0]!.id), ERR.noEntrance, null);
  });

  it("after an entrance: succeeds", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0));
    expectSuccess(f, ticket, 9, "Exit", await scanAt(await f.key(9, { location: "Exit" }), ticket.id));
  });

  it("while temporarily away: succeeds", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0), await f.key(7));
    expect(await scan(await f.key(9), ticket.id)).toMatchObject({ status: true });
  });

  it.each([0, 1, 7, 8, 9])("after an exit, level %i: 'Ticket already left the event' with the exit's date and location", async (level) => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const exit = await f.key(9, { location: "Exit" });
    const entrance = await f.key(0, { location: "Entrance" });
    await succeed(f, ticket, entrance, await f.key(7));
    const [left] = await succeed(f, ticket, exit);
    const key = level === 9 ? exit : level === 0 ? entrance : await f.key(level);
    expectRefusal(f, ticket, level, await scan(key, ticket.id), ERR.left, { date: left!.date, location: "Exit" });
  });
});

describe("level 6: reset", () => {
  it("succeeds on a ticket never scanned", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    expectSuccess(f, ticket, 6, "Desk", await scanAt(await f.key(6, { location: "Desk" }), ticket.id));
  });

  it("succeeds after an exit, and the ticket can then enter again", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const entrance = await f.key(0, { location: "Entrance" });
    const reset = await f.key(6, { location: "Desk" });
    await succeed(f, ticket, entrance, await f.key(9));
    expectSuccess(f, ticket, 6, "Desk", await scanAt(reset, ticket.id));
    expectSuccess(f, ticket, 0, "Entrance", await scanAt(entrance, ticket.id));
    // Entered again: the once-only rule holds anew.
    expect(await scan(entrance, ticket.id)).toMatchObject({ status: false, error: ERR.done, location: "Entrance" });
  });

  it("twice in a row: both succeed", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const reset = await f.key(6);
    await succeed(f, ticket, await f.key(0), reset, reset);
  });

  it("clears the history: a checkpoint right after a reset needs a new entrance", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const hall = await f.key(1, { location: "Hall" });
    await succeed(f, ticket, await f.key(0), hall, await f.key(6));
    expect(await scan(hall, ticket.id)).toMatchObject({ status: false, error: ERR.noEntrance, date: "", location: "" });
    await succeed(f, ticket, await f.key(0), hall);
  });
});

describe("dates: the key's date_format in the event's time zone", () => {
  it("the default format, in the service zone when the event sets none", async () => {
    const f = await fixture();
    const t = await scanAt(await f.key(0), f.tickets[0]!.id);
    expect(t.result.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(timedDates(t, SERVICE_TZ)).toContain(t.result.date);
  });

  it("the event's own time zone (Asia/Tokyo), not the service's", async () => {
    const f = await fixture({ event: { timezone: "Asia/Tokyo" } });
    const t = await scanAt(await f.key(0), f.tickets[0]!.id);
    expect(timedDates(t, "Asia/Tokyo")).toContain(t.result.date);
    expect(timedDates(t, SERVICE_TZ)).not.toContain(t.result.date);
  });

  it("each key's own format, with escaped literals and other letters (d/m/Y \\a\\t H:i; D, j M y G:i:s)", async () => {
    const f = await fixture({ event: { timezone: "America/New_York" }, counts: [2] });
    const short = await f.key(0, { date_format: "d/m/Y \\a\\t H:i", location: "Short" });
    const long = await f.key(0, { date_format: "D, j M y G:i:s", location: "Long" });
    const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const longFormat: Formatter = (w) =>
      `${DAYS[new Date(Date.UTC(+w.Y, +w.m - 1, +w.d)).getUTCDay()]}, ${+w.d} ${MONTHS[+w.m - 1]} ${w.Y.slice(2)} ${+w.H}:${w.i}:${w.s}`;
    const a = await scanAt(short, f.tickets[0]!.id);
    expect(timedDates(a, "America/New_York", (w) => `${w.d}/${w.m}/${w.Y} at ${w.H}:${w.i}`)).toContain(a.result.date);
    const b = await scanAt(long, f.tickets[1]!.id);
    expect(timedDates(b, "America/New_York", longFormat)).toContain(b.result.date);
    // The repeat shows the earlier scan (made with the short key) in the long key's format.
    const again = await scan(long, f.tickets[0]!.id);
    expect(again).toMatchObject({ status: false, error: ERR.done, location: "Short" });
    expect(timedDates(a, "America/New_York", longFormat)).toContain(again.date);
  });

  it("a changed date_format (PUT) applies to the next answer", async () => {
    const f = await fixture();
    const key = await f.key(0);
    const first = await scanAt(key, f.tickets[0]!.id);
    await expectJson(call("PUT", `/admin/events/${f.event.id}/scan-keys/${key}`, { body: { date_format: "H:i \\o\\n d.m.Y" } }), 200);
    const again = await scan(key, f.tickets[0]!.id);
    expect(timedDates(first, SERVICE_TZ, (w) => `${w.H}:${w.i} on ${w.d}.${w.m}.${w.Y}`)).toContain(again.date);
  });
});

describe("seated events", () => {
  it("the seat text follows the type name in `type`, as on GET /admin/tickets, and in GET /scans/<id>", async () => {
    const f = await fixture({
      event: { seats_needed: true, seats: { number_of_seats: 0, seats_format: ", row %s seat %02d", linked_event: 0, seats_config: "A:1-3" } },
      counts: [2],
    });
    const key = await f.key(0, { location: "Seated door" });
    expect(f.tickets.map((t) => t.type).sort()).toEqual(["Regular, row A seat 01", "Regular, row A seat 02"]);
    for (const ticket of f.tickets) expectSuccess(f, ticket, 0, "Seated door", await scanAt(key, ticket.id));
    const view = await expectJson(getScans(key, f.tickets[0]!.id), 200);
    expect(view.ticket_type).toBe(f.tickets[0]!.type);
  });
});

describe("POST /scans: authentication", () => {
  it("no key: 401 rest_forbidden_api_key 'Invalid scan key'", async () => {
    const f = await fixture();
    const err = await expectError(postScan(null, { id: f.tickets[0]!.id }), 401, "rest_forbidden_api_key");
    expect(err.message).toBe("Invalid scan key");
  });

  it("the service API key, with or without administrator credentials: 401 'Invalid scan key'", async () => {
    const f = await fixture();
    const err = await expectError(postScan(API_KEY, { id: f.tickets[0]!.id }), 401, "rest_forbidden_api_key");
    expect(err.message).toBe("Invalid scan key");
    await expectError(call("POST", "/scans", { key: API_KEY, body: { id: f.tickets[0]!.id } }), 401, "rest_forbidden_api_key");
  });

  it.each([
    ["empty", ""],
    ["too short", "abc"],
    ["too long", "ABCDEFGHIJKLMNOPQ"],
    ["with symbols", "ABCDEFGH-JKLMNOP"],
    ["unknown but well formed", "Zz9Zz9Zz9Zz9Zz9Q"],
  ])("a %s key: 401 'Invalid scan key'", async (_label, key) => {
    const f = await fixture();
    const err = await expectError(postScan(key, { id: f.tickets[0]!.id }), 401, "rest_forbidden_api_key");
    expect(err.message).toBe("Invalid scan key");
  });

  it("a deleted scan key: 401 at once, even after it was used (and cached); nothing recorded", async () => {
    const f = await fixture({ counts: [2] });
    const key = await f.key(0);
    expect(await scan(key, f.tickets[0]!.id)).toMatchObject({ status: true });
    await expectJson(call("DELETE", `/admin/events/${f.event.id}/scan-keys/${key}`), 200);
    const err = await expectError(postScan(key, { id: f.tickets[1]!.id }), 401, "rest_forbidden_api_key");
    expect(err.message).toBe("Invalid scan key");
    await expectError(getScans(key, f.tickets[0]!.id), 401, "rest_forbidden_api_key");
    expect((await objectScans(f.event.id)).map((s) => s.ticket_id)).toEqual([f.tickets[0]!.id]);
  });

  it("a key of a deleted event: 401", async () => {
    const f = await fixture();
    const key = await f.key(0);
    expect(await scan(key, f.tickets[0]!.id)).toMatchObject({ status: true });
    await expectJson(call("DELETE", `/admin/events/${f.event.id}?force=true`), 200);
    await expectError(postScan(key, { id: f.tickets[0]!.id }), 401, "rest_forbidden_api_key");
  });

  it("a refused key records nothing", async () => {
    const f = await fixture();
    await expectError(postScan(API_KEY, { id: f.tickets[0]!.id }), 401, "rest_forbidden_api_key");
    await expectError(postScan(null, { id: f.tickets[0]!.id }), 401, "rest_forbidden_api_key");
    expect(await objectScans(f.event.id)).toEqual([]);
  });
});

describe("POST /scans: body validation", () => {
  it.each([
    ["no id", {}, "rest_missing_callback_param"],
    ["a number", { id: 123 }, "rest_invalid_param"],
    ["null", { id: null }, "rest_invalid_param"],
    ["an array", { id: ["x"] }, "rest_invalid_param"],
    ["an empty string", { id: "" }, "rest_invalid_param"],
    ["blanks", { id: "   " }, "rest_invalid_param"],
  ])("%s as id: 400 %s naming id", async (_label, body, code) => {
    const f = await fixture();
    const key = await f.key(0);
    const err = await expectError(postScan(key, body), 400, code);
    expect(Object.keys(err.data.params ?? {})).toEqual(["id"]);
    expect(await objectScans(f.event.id)).toEqual([]);
  });

  it("an unknown field beside a valid id: 400, the ticket is not scanned", async () => {
    const f = await fixture();
    const key = await f.key(0);
    const err = await expectError(postScan(key, { id: f.tickets[0]!.id, level: 6 }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toEqual(["level"]);
    expect(await objectScans(f.event.id)).toEqual([]);
    // The ticket's first real scan still succeeds.
    expect(await scan(key, f.tickets[0]!.id)).toMatchObject({ status: true });
  });

  it("malformed JSON: 400 rest_invalid_json; no body at all: 400; nothing recorded", async () => {
    const f = await fixture();
    const key = await f.key(0);
    await expectError(postScan(key, `{"id": "${f.tickets[0]!.id}"`), 400, "rest_invalid_json");
    const res = await call("POST", "/scans", { key, auth: null });
    expect(res.status).toBe(400);
    await res.text();
    expect(await objectScans(f.event.id)).toEqual([]);
  });

  it("a body that is not an object: 400", async () => {
    const f = await fixture();
    const key = await f.key(0);
    for (const body of [`"${f.tickets[0]!.id}"`, "[]", "null"]) {
      const res = await postScan(key, body);
      expect(res.status, body).toBe(400);
      await res.text();
    }
    expect(await objectScans(f.event.id)).toEqual([]);
  });
});

describe("GET /scans/<ticket_id>", () => {
  it("a ticket never scanned: the ticket's fields in the spec's order and an empty scans list", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const view = await expectJson(getScans(await f.key(0), ticket.id), 200);
    expect(Object.keys(view)).toEqual(TICKET_SCANS_FIELDS);
    expect(view).toEqual({
      order_id: f.order.id,
      qrcode: ticket.id,
      event_name: f.event.name,
      ticket_type: "Regular",
      name: f.buyer.name,
      email: f.buyer.email,
      scans: [],
    });
  });

  it("lists the successful scans oldest first, dates in the requesting key's format, refusals left out; any key of the event", async () => {
    const f = await fixture({ event: { timezone: "America/New_York" } });
    const ticket = f.tickets[0]!;
    const entrance = await f.key(0, { location: "Entrance" });
    const hall = await f.key(1, { location: "Hall" });
    const reader = await f.key(9, { location: "Exit", date_format: "d/m/Y H:i", tickets: "Regular" });
    const a = await scanAt(entrance, ticket.id);
    await scan(entrance, ticket.id); // refused, not listed
    const b = await scanAt(hall, ticket.id);
    const view = await expectJson(getScans(reader, ticket.id), 200);
    expect(Object.keys(view)).toEqual(TICKET_SCANS_FIELDS);
    expect(view.scans).toHaveLength(2);
    for (const s of view.scans) expect(Object.keys(s)).toEqual(["scan_level", "scan_date", "scan_location"]);
    expect(view.scans.map((s: Json) => [s.scan_level, s.scan_location])).toEqual([
      [0, "Entrance"],
      [1, "Hall"],
    ]);
    const short: Formatter = (w) => `${w.d}/${w.m}/${w.Y} ${w.H}:${w.i}`;
    expect(timedDates(a, "America/New_York", short)).toContain(view.scans[0].scan_date);
    expect(timedDates(b, "America/New_York", short)).toContain(view.scans[1].scan_date);
    // With the entrance key, in its default format: the same dates as the scans answered.
    const byEntrance = await expectJson(getScans(entrance, ticket.id), 200);
    expect(byEntrance.scans.map((s: Json) => s.scan_date)).toEqual([a.result.date, b.result.date]);
  });

  it("after a reset: the scans since the reset, the reset included", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const entrance = await f.key(0, { location: "Entrance" });
    await succeed(f, ticket, entrance, await f.key(1, { location: "Hall" }), await f.key(9, { location: "Exit" }), await f.key(6, { location: "Desk" }), entrance);
    const view = await expectJson(getScans(entrance, ticket.id), 200);
    expect(view.scans.map((s: Json) => [s.scan_level, s.scan_location])).toEqual([
      [6, "Desk"],
      [0, "Entrance"],
    ]);
  });

  it("another event's key: 404 scan_ticket_not_found 'Ticket not found'", async () => {
    const f = await fixture();
    const other = await fixture();
    await succeed(f, f.tickets[0]!, await f.key(0));
    const err = await expectError(getScans(await other.key(0), f.tickets[0]!.id), 404, "scan_ticket_not_found");
    expect(err.message).toBe("Ticket not found");
  });

  it("an unknown ticket, a deleted ticket: 404 scan_ticket_not_found", async () => {
    const f = await fixture();
    const key = await f.key(0);
    await succeed(f, f.tickets[0]!, key);
    await expectError(getScans(key, "NoSuchTicket0000"), 404, "scan_ticket_not_found");
    await expectJson(call("DELETE", `/admin/tickets/${f.order.id}`), 200);
    const err = await expectError(getScans(key, f.tickets[0]!.id), 404, "scan_ticket_not_found");
    expect(err.message).toBe("Ticket not found");
  });

  it("needs a scan key: none, the service key, an unknown key: 401 rest_forbidden_api_key", async () => {
    const f = await fixture();
    await expectError(getScans(null, f.tickets[0]!.id), 401, "rest_forbidden_api_key");
    await expectError(getScans(API_KEY, f.tickets[0]!.id), 401, "rest_forbidden_api_key");
    await expectError(call("GET", `/scans/${f.tickets[0]!.id}`), 401, "rest_forbidden_api_key");
    await expectError(getScans("Zz9Zz9Zz9Zz9Zz9Q", f.tickets[0]!.id), 401, "rest_forbidden_api_key");
  });
});

describe("concurrency: the object decides", () => {
  it("50 concurrent entrance scans of one ticket from 5 level-0 keys (10 each): exactly one status true", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await f.key(0, { location: `Door ${i}` }));
    // Each key once first, on another ticket-less id, so that the race is not only between cache misses.
    for (const k of keys) expect(await scan(k, "NoSuchTicket0000")).toMatchObject({ error: ERR.notFound });
    const results = await Promise.all(keys.flatMap((k) => times(10, () => scan(k, ticket.id))));
    const won = results.filter((r) => r.status === true);
    const lost = results.filter((r) => r.status !== true);
    expect(won, JSON.stringify(won)).toHaveLength(1);
    expect(lost).toHaveLength(49);
    const winner = won[0]!;
    expect(keys.map((_, i) => `Door ${i}`)).toContain(winner.location);
    for (const r of lost) {
      expect(r).toMatchObject({ status: false, error: ERR.done, location: winner.location, date: winner.date, qrcode: ticket.id });
    }
    expect((await objectScans(f.event.id)).map((s) => [s.ticket_id, s.level, s.location])).toEqual([[ticket.id, 0, winner.location]]);
    const rows = await d1ScansWhen(f.event.id, (r) => r.length >= 1);
    await sleep(500);
    expect((await d1Scans(f.event.id)).map((r) => [r.ticket_id, r.level, r.location])).toEqual([[ticket.id, 0, winner.location]]);
    expect(rows).toHaveLength(1);
  });

  it("50 concurrent exits and 50 concurrent leaves: one success each", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0));
    const leaves = [];
    for (let i = 0; i < 5; i++) leaves.push(await f.key(7, { location: `Out ${i}` }));
    const left = await Promise.all(leaves.flatMap((k) => times(10, () => scan(k, ticket.id))));
    expect(left.filter((r) => r.status)).toHaveLength(1);
    expect(left.filter((r) => !r.status).every((r) => r.error === ERR.away)).toBe(true);
    const exits = [];
    for (let i = 0; i < 5; i++) exits.push(await f.key(9, { location: `Exit ${i}` }));
    const exited = await Promise.all(exits.flatMap((k) => times(10, () => scan(k, ticket.id))));
    expect(exited.filter((r) => r.status)).toHaveLength(1);
    expect(exited.filter((r) => !r.status).every((r) => r.error === ERR.left)).toBe(true);
  });

  it("40 tickets scanned at once: each succeeds once; a second concurrent round all refused", async () => {
    const f = await fixture({ counts: [40] });
    expect(f.tickets).toHaveLength(40);
    const keys = [await f.key(0, { location: "Left lane" }), await f.key(0, { location: "Right lane" })];
    const first = await Promise.all(f.tickets.map((t, i) => scan(keys[i % 2]!, t.id)));
    expect(first.map((r) => r.status)).toEqual(times(40, () => true));
    expect(new Set(first.map((r) => r.qrcode))).toEqual(new Set(f.tickets.map((t) => t.id)));
    const second = await Promise.all(f.tickets.map((t, i) => scan(keys[(i + 1) % 2]!, t.id)));
    expect(second.map((r) => r.error)).toEqual(times(40, () => ERR.done));
    const rows = await d1ScansWhen(f.event.id, (r) => r.length >= 40);
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.ticket_id))).toEqual(new Set(f.tickets.map((t) => t.id)));
  });
});

describe("persistence to D1 (scans.record)", () => {
  it("a successful scan becomes one row with every column; refusals make none", async () => {
    const f = await fixture({ types: ["Regular", "VIP"], counts: [1, 1] });
    const ticket = f.tickets.find((t) => t.type === "Regular")!;
    const vip = f.tickets.find((t) => t.type === "VIP")!;
    const entrance = await f.key(0, { location: "Entrance" });
    const t = await scanAt(entrance, ticket.id);
    expect(t.result.status).toBe(true);
    // Refusals of every kind.
    await scan(entrance, ticket.id);
    await scan(entrance, "NoSuchTicket0000");
    await scan(await f.key(1, { tickets: "VIP" }), ticket.id);
    await scan(await f.key(8), ticket.id);
    await scan(await f.key(1), vip.id);
    // A later success: once its row is there, every earlier scan would have been written too.
    const later = await scanAt(await f.key(1, { location: "Hall" }), ticket.id);
    expect(later.result.status).toBe(true);
    const rows = await d1ScansWhen(f.event.id, (r) => r.length >= 2);
    await sleep(300);
    expect(await d1Scans(f.event.id)).toEqual(rows);
    expect(rows).toHaveLength(2);
    const regularType = f.types.find((x) => x.name === "Regular")!;
    expect(rows[0]).toEqual({
      event_id: f.event.id,
      seq: expect.any(Number),
      ticket_id: ticket.id,
      order_id: f.order.id,
      ticket_type_id: regularType.id,
      ticket_type: "Regular",
      level: 0,
      location: "Entrance",
      scanned_at: expect.any(Number),
      reloaded: 0,
    });
    expect(rows[0]!.scanned_at).toBeGreaterThanOrEqual(t.before);
    expect(rows[0]!.scanned_at).toBeLessThanOrEqual(t.after);
    expect(rows[1]).toMatchObject({ ticket_id: ticket.id, level: 1, location: "Hall" });
    expect(rows[1]!.seq).toBeGreaterThan(rows[0]!.seq);
    expect(rows[1]!.scanned_at).toBeGreaterThanOrEqual(later.before);
    // The consumer told the object D1 has both (just after its D1 batch, so perhaps a moment after the rows show).
    const held = await objectScansWhen(f.event.id, (h) => h.every((s) => s.synced === 1));
    expect(held.map((s) => [s.seq, s.synced])).toEqual(rows.map((r) => [r.seq, 1]));
  });

  it("a reset removes the ticket's earlier rows (not other tickets'); later scans are added after it", async () => {
    const f = await fixture({ counts: [2] });
    const [ticket, other] = f.tickets as [Ticket, Ticket];
    const entrance = await f.key(0, { location: "Entrance" });
    await succeed(f, ticket, entrance, await f.key(1, { location: "Hall" }));
    await succeed(f, other, entrance);
    const before = await d1ScansWhen(f.event.id, (r) => r.length >= 3);
    expect(before.map((r) => [r.ticket_id, r.level])).toEqual([
      [ticket.id, 0],
      [ticket.id, 1],
      [other.id, 0],
    ]);
    await succeed(f, ticket, await f.key(6, { location: "Desk" }));
    const afterReset = await d1ScansWhen(f.event.id, (r) => r.some((x) => x.level === 6));
    expect(afterReset.map((r) => [r.ticket_id, r.level, r.location])).toEqual([
      [other.id, 0, "Entrance"],
      [ticket.id, 6, "Desk"],
    ]);
    await succeed(f, ticket, entrance);
    const again = await d1ScansWhen(f.event.id, (r) => r.length >= 3);
    expect(again.map((r) => [r.ticket_id, r.level])).toEqual([
      [other.id, 0],
      [ticket.id, 6],
      [ticket.id, 0],
    ]);
  });

  it("a seated ticket's row carries the type text with the seat", async () => {
    const f = await fixture({
      event: { seats_needed: true, seats: { number_of_seats: 0, seats_format: ", row %s seat %02d", linked_event: 0, seats_config: "C:7-9" } },
    });
    await succeed(f, f.tickets[0]!, await f.key(0));
    const rows = await d1ScansWhen(f.event.id, (r) => r.length >= 1);
    expect(rows.map((r) => [r.ticket_type, r.ticket_type_id])).toEqual([["Regular, row C seat 07", f.types[0]!.id]]);
  });
});

describe("scans reach D1 at least once: sent again until the consumer acknowledges them", () => {
  type Outbox = { seq: number; synced: number; sent_at: number | null; sends: number }[];

  /** A queue that keeps what is sent instead of delivering it: a message lost on its way, until a test delivers it. */
  function holdingQueue() {
    const sent: unknown[] = [];
    const queue: ScanQueue = { send: async (body) => void sent.push(body) };
    return { sent, queue };
  }

  /**
   * Scans `ticket` with `key` in its event's object and at once sends it, as the alarm would, into `queue`. One call
   * into the object, so its own alarm (a second later) cannot send the scan first; once sent, that alarm leaves it
   * alone for SCAN_RESEND_MS.
   */
  async function scanAndSend(f: Fixture, key: string, ticket: Ticket, queue: ScanQueue): Promise<Json> {
    return runInDurableObject(eventObject(env, f.event.id), async (instance: EventObject, state) => {
      const answer = await instance.scan(key, ticket.id, 0);
      await sendDueScans(state.storage, queue, f.event.id, Date.now());
      return answer;
    });
  }

  const outbox = (eventId: number): Promise<Outbox> =>
    runInDurableObject(eventObject(env, eventId), (_i: EventObject, state) =>
      state.storage.sql.exec<Outbox[number]>(`SELECT seq, synced, sent_at, sends FROM scans ORDER BY seq`).toArray(),
    );

  /** Moves every scan's last send `ms` into the past, as if that much time had gone by since. */
  const age = (eventId: number, ms: number) =>
    runInDurableObject(eventObject(env, eventId), (_i: EventObject, state) => void state.storage.sql.exec(`UPDATE scans SET sent_at = sent_at - ?`, ms));

  /** Runs the object's alarm now, as the runtime would when it is due (setting one first when none is pending). */
  async function runAlarm(eventId: number): Promise<void> {
    const stub = eventObject(env, eventId);
    await runInDurableObject(stub, async (_i: EventObject, state) => {
      if ((await state.storage.getAlarm()) === null) await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
  }

  /** Hands message bodies to the worker's queue consumer as one batch; answers the batch's acks and retries. */
  async function deliver(...bodies: unknown[]) {
    const batch = createMessageBatch<unknown>(
      "ticketing-jobs",
      bodies.map((body, i) => ({ id: unique(`scans-${i}-`), timestamp: new Date(), attempts: 1, body })),
    );
    await worker.queue(batch, env);
    return getQueueResult(batch, createExecutionContext());
  }

  it("a lost message is sent again by a later alarm, once its resend delay passed, and the scan reaches D1", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const lost = holdingQueue();
    expect(await scanAndSend(f, await f.key(0, { location: "Lost door" }), ticket, lost.queue)).toMatchObject({ ok: true, result: { status: true } });
    expect(lost.sent).toHaveLength(1);
    const [held] = await outbox(f.event.id);
    expect(held).toMatchObject({ synced: 0, sends: 1 });

    // Before its resend delay an alarm leaves it alone (a healthy consumer is about to acknowledge it).
    await age(f.event.id, SCAN_RESEND_MS - 1_000);
    await runAlarm(f.event.id);
    expect(await outbox(f.event.id)).toEqual([{ ...held, sent_at: held!.sent_at! - (SCAN_RESEND_MS - 1_000) }]);
    // A rebuild from D1 replaces stock and tickets only: the scan is still waiting for its acknowledgement.
    await rebuildEventObject(depsFromEnv(env), f.event.id);
    expect(await outbox(f.event.id)).toMatchObject([{ seq: held!.seq, synced: 0, sends: 1 }]);

    // The message never arrived: the alarm after the delay sends the scan again, through the real queue.
    await age(f.event.id, 1_000);
    await runAlarm(f.event.id);
    const [again] = await outbox(f.event.id);
    expect(again!.sends).toBe(2);
    expect(again!.sent_at).toBeGreaterThan(held!.sent_at!);
    const rows = await d1ScansWhen(f.event.id, (r) => r.length >= 1);
    expect(rows.map((r) => [r.seq, r.ticket_id, r.level, r.location])).toEqual([[held!.seq, ticket.id, 0, "Lost door"]]);
    expect(await objectScansWhen(f.event.id, (h) => h[0]?.synced === 1)).toMatchObject([{ seq: held!.seq, synced: 1 }]);
  });

  it("written to D1 but not acknowledged, a scan stays unsynced and is sent again; the acknowledgement marks it synced", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const first = holdingQueue();
    await scanAndSend(f, await f.key(0), ticket, first.queue);
    const [seq] = (await outbox(f.event.id)).map((s) => s.seq);

    // The consumer wrote D1 and died before acknowledging.
    expect(await recordScans(depsFromEnv(env), first.sent[0] as ScansRecordJob)).toBe(1);
    expect((await d1Scans(f.event.id)).map((r) => r.seq)).toEqual([seq]);
    expect(await outbox(f.event.id)).toMatchObject([{ seq, synced: 0, sends: 1 }]);

    // So it is sent again, the same scan under the same seq.
    await age(f.event.id, SCAN_RESEND_MS);
    const second = holdingQueue();
    await runInDurableObject(eventObject(env, f.event.id), (_i: EventObject, state) => sendDueScans(state.storage, second.queue, f.event.id, Date.now()));
    expect(second.sent).toEqual(first.sent);
    expect(await outbox(f.event.id)).toMatchObject([{ seq, synced: 0, sends: 2 }]);

    // The consumer's run of the copy writes nothing new and acknowledges: only now is the scan synced.
    const result = await deliver(second.sent[0]);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await d1Scans(f.event.id)).map((r) => r.seq)).toEqual([seq]);
    expect(await outbox(f.event.id)).toMatchObject([{ seq, synced: 1, sends: 2 }]);
    // A late or stray acknowledgement (already synced, unknown seq) changes nothing.
    expect(await eventObject(env, f.event.id).scansRecorded([seq!, seq! + 1_000])).toBe(0);
    expect(await outbox(f.event.id)).toMatchObject([{ seq, synced: 1, sends: 2 }]);
  });

  it("a message delivered twice, in one batch and again later, writes one row and fires scan.created once", async () => {
    const name = unique("scan-twice-");
    await programStub(name);
    const created = await expectJson(
      call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: `secret-${name}`, topic: "scan.created" } }),
      201,
    );
    const hook = await expectJson(call("PUT", `/admin/webhooks/${created.id}`, { body: { enabled: true } }), 200);
    const f = await fixture({ event: { webhooks_needed: true } });
    const ticket = f.tickets[0]!;
    const held = holdingQueue();
    const { result } = await scanAndSend(f, await f.key(0), ticket, held.queue);
    const body = held.sent[0];

    const twice = await deliver(body, body);
    expect(twice.explicitAcks).toHaveLength(2);
    const later = await deliver(body);
    expect(later.explicitAcks).toHaveLength(1);

    expect(await d1Scans(f.event.id)).toHaveLength(1);
    const fired = await db
      .select({ body: webhookDeliveries.body })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, hook.id), eq(webhookDeliveries.topic, "scan.created")));
    expect(fired.map((d) => JSON.parse(d.body))).toEqual([{ ...result, event_id: f.event.id }]);
    expect(await outbox(f.event.id)).toMatchObject([{ synced: 1, sends: 1 }]);
  });

  it("once acknowledged, a scan is never sent again and the alarm no longer wakes for it", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const held = holdingQueue();
    await scanAndSend(f, await f.key(0), ticket, held.queue);
    await deliver(held.sent[0]);
    const [synced] = await outbox(f.event.id);
    expect(synced).toMatchObject({ synced: 1, sends: 1 });

    // Long after: an alarm sends nothing, and sets no other (the event has no hold waiting either).
    await age(f.event.id, 100 * SCAN_RESEND_MS);
    await runAlarm(f.event.id);
    expect(await outbox(f.event.id)).toEqual([{ ...synced, sent_at: synced!.sent_at! - 100 * SCAN_RESEND_MS }]);
    expect(await runInDurableObject(eventObject(env, f.event.id), (_i: EventObject, state) => state.storage.getAlarm())).toBeNull();
    expect(await d1Scans(f.event.id)).toHaveLength(1);
  });

  it("a send the queue refuses counts as made: the scan goes again after its resend delay, not at every alarm", async () => {
    const f = await fixture();
    const key = await f.key(0);
    const refusing: ScanQueue = { send: async () => Promise.reject(new Error("queue unavailable")) };
    const { failed, next, sentAt } = await runInDurableObject(eventObject(env, f.event.id), async (instance: EventObject, state) => {
      await instance.scan(key, f.tickets[0]!.id, 0);
      const now = Date.now();
      const failed = await sendDueScans(state.storage, refusing, f.event.id, now).then(
        () => null,
        (err: Error) => err.message,
      );
      return { failed, next: nextSendAt(state.storage.sql, now), sentAt: now };
    });
    expect(failed).toBe("queue unavailable");
    expect(await outbox(f.event.id)).toMatchObject([{ synced: 0, sends: 1, sent_at: sentAt }]);
    expect(next).toBe(sentAt + SCAN_RESEND_MS);
  });

  it("an object killed between recording a scan and setting its alarm sets the alarm when it starts again", async () => {
    const f = await fixture();
    const key = await f.key(0);
    const alarm = await runInDurableObject(eventObject(env, f.event.id), async (instance: EventObject, state) => {
      await instance.scan(key, f.tickets[0]!.id, 0);
      await state.storage.deleteAlarm();
      // The object as the runtime starts it again on the same storage.
      const started = Date.now();
      new EventObject(state, env);
      await state.blockConcurrencyWhile(async () => {});
      return { started, at: await state.storage.getAlarm() };
    });
    expect(alarm.at).toBeGreaterThanOrEqual(alarm.started);
    expect(alarm.at).toBeLessThanOrEqual(Date.now() + SCAN_FLUSH_MS);
  });

  it("an object whose scans predate the outbox (no sent_at, sends) gets them at start: its unsent scans go, the sent stay", async () => {
    const f = await fixture({ counts: [2] });
    const [sent, unsent] = f.tickets as [Ticket, Ticket];
    const key = await f.key(0);
    const held = holdingQueue();
    await scanAndSend(f, key, sent, held.queue);
    await deliver(held.sent[0]);
    const later = holdingQueue();
    const seqs = await runInDurableObject(eventObject(env, f.event.id), async (instance: EventObject, state) => {
      await instance.scan(key, unsent.id, 0);
      // As the object's table was before: its code then marked a scan synced once sent.
      state.storage.sql.exec(`ALTER TABLE scans DROP COLUMN sent_at`);
      state.storage.sql.exec(`ALTER TABLE scans DROP COLUMN sends`);
      // Made before the object's migrations were numbered (storage.ts): no bookkeeping (and no waiting list, migration
      // 2), so the migrations run as it starts.
      state.storage.sql.exec(`DROP TABLE _migrations`);
      state.storage.sql.exec(`DROP TABLE waiting`);
      migrateStorage(state.storage);
      await sendDueScans(state.storage, later.queue, f.event.id, Date.now());
      return state.storage.sql
        .exec<{ seq: number }>(`SELECT seq FROM scans ORDER BY seq`)
        .toArray()
        .map((r) => r.seq);
    });
    expect(later.sent).toMatchObject([{ kind: "scans.record", eventId: f.event.id, scans: [{ seq: seqs[1], ticketId: unsent.id }] }]);
    expect(await outbox(f.event.id)).toMatchObject([
      { seq: seqs[0], synced: 1, sent_at: null, sends: 0 },
      { seq: seqs[1], synced: 0, sends: 1 },
    ]);
  });

  it("an unacknowledged scan is sent again after SCAN_RESEND_MS, then after twice as long each time, up to 16 times that", async () => {
    const f = await fixture();
    const held = holdingQueue();
    await scanAndSend(f, await f.key(0), f.tickets[0]!, held.queue);
    const inObject = <T>(work: (state: DurableObjectState) => T | Promise<T>) =>
      runInDurableObject(eventObject(env, f.event.id), (_i: EventObject, state) => work(state));
    const resendAt = (now: number) => inObject((state) => sendDueScans(state.storage, held.queue, f.event.id, now));
    const gaps: number[] = [];
    for (let sends = 1; sends <= 6; sends++) {
      const { sent_at } = (await outbox(f.event.id))[0]!;
      // When the alarm is set to look again; at that moment, and not a millisecond before, the scan goes again.
      const next = (await inObject((state) => nextSendAt(state.storage.sql, sent_at!)))!;
      gaps.push(next - sent_at!);
      await resendAt(next - 1);
      expect((await outbox(f.event.id))[0]!.sends).toBe(sends);
      await resendAt(next);
      expect((await outbox(f.event.id))[0]).toMatchObject({ sends: sends + 1, sent_at: next });
    }
    expect(gaps).toEqual([1, 2, 4, 8, 16, 16].map((n) => n * SCAN_RESEND_MS));
    expect(held.sent).toHaveLength(7);
  });
});

describe("exit reload (reload_on_exit_needed)", () => {
  it("a successful exit gives one unit of event stock back: the object at once, D1 sold once the scan is written", async () => {
    const f = await fixture({ event: { stock: 10, reload_on_exit_needed: true }, counts: [2] });
    const ticket = f.tickets[0]!;
    const obj = eventObject(env, f.event.id);
    expect((await obj.remaining())!.event).toBe(8);
    expect(await eventSold(f.event.id)).toBe(2);
    const exit = await f.key(9, { location: "Exit" });
    await succeed(f, ticket, await f.key(0));
    expect((await obj.remaining())!.event).toBe(8);
    await succeed(f, ticket, exit);
    expect((await obj.remaining())!.event).toBe(9);
    // A refused exit gives nothing more.
    expect(await scan(exit, ticket.id)).toMatchObject({ status: false, error: ERR.left });
    expect((await obj.remaining())!.event).toBe(9);
    const rows = await d1ScansWhen(f.event.id, (r) => r.some((x) => x.level === 9));
    expect(rows.find((r) => r.level === 9)).toMatchObject({ reloaded: 1, ticket_id: ticket.id });
    expect(rows.find((r) => r.level === 0)).toMatchObject({ reloaded: 0 });
    expect(await eventSold(f.event.id)).toBe(1);
    // The unit given back can be sold again.
    const more = await orderFor(f, [9]);
    expect(more.tickets).toHaveLength(9);
    expect((await obj.remaining())!.event).toBe(0);
  });

  it("deleting an order after one of its tickets gave a unit back: D1 sold and the object still agree", async () => {
    const f = await fixture({ event: { stock: 10, reload_on_exit_needed: true }, counts: [2] });
    const other = await orderFor(f, [1]); // stays: 1 unit
    const obj = eventObject(env, f.event.id);
    expect((await obj.remaining())!.event).toBe(7);
    expect(await eventSold(f.event.id)).toBe(3);
    await succeed(f, f.tickets[0]!, await f.key(0), await f.key(9));
    await d1ScansWhen(f.event.id, (r) => r.some((x) => x.level === 9));
    expect(await eventSold(f.event.id)).toBe(2);
    expect((await obj.remaining())!.event).toBe(8);
    await expectJson(call("DELETE", `/admin/orders/${f.order.id}`), 200);
    // Only the other order's unit is still taken: the object says 9 remain, so D1 must count 1 sold.
    expect((await obj.remaining())!.event).toBe(9);
    expect(await eventSold(f.event.id), "D1 events.sold after deleting the order").toBe(1);
    expect(other.tickets).toHaveLength(1);
  });

  it("a rebuilt object (rebuildEventObject) keeps the unit a reloading exit gave back", async () => {
    const f = await fixture({ event: { stock: 10, reload_on_exit_needed: true }, counts: [2] });
    const obj = eventObject(env, f.event.id);
    await succeed(f, f.tickets[0]!, await f.key(0), await f.key(9));
    await d1ScansWhen(f.event.id, (r) => r.some((x) => x.level === 9));
    expect((await obj.remaining())!.event).toBe(9);
    expect(await eventSold(f.event.id)).toBe(1);
    await rebuildEventObject(depsFromEnv(env), f.event.id);
    // docs/stock.md: "A rebuilt object answers exactly as the live one did."
    expect((await obj.remaining())!.event, "remaining after the rebuild").toBe(9);
  });

  it("without reload_on_exit_needed an exit gives nothing back", async () => {
    const f = await fixture({ event: { stock: 10 }, counts: [2] });
    const ticket = f.tickets[0]!;
    const obj = eventObject(env, f.event.id);
    await succeed(f, ticket, await f.key(0), await f.key(9));
    expect((await obj.remaining())!.event).toBe(8);
    const rows = await d1ScansWhen(f.event.id, (r) => r.some((x) => x.level === 9));
    expect(rows.find((r) => r.level === 9)).toMatchObject({ reloaded: 0 });
    expect(await eventSold(f.event.id)).toBe(2);
  });
});

describe("scan.created", () => {
  async function scanHook(name: string): Promise<Json> {
    await programStub(name);
    const hook = await expectJson(
      call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: `secret-${name}`, topic: "scan.created" } }),
      201,
    );
    return expectJson(call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: true } }), 200);
  }

  it("is delivered once per successful scan, with the validation result and event_id; refusals send nothing", async () => {
    const name = unique("scan-created-");
    const hook = await scanHook(name);
    const f = await fixture({ event: { webhooks_needed: true } });
    const ticket = f.tickets[0]!;
    const entrance = await f.key(0, { location: "Entrance" });
    const exit = await f.key(9, { location: "Exit" });
    const first = await scan(entrance, ticket.id);
    expect(await scan(entrance, ticket.id)).toMatchObject({ status: false });
    expect(await scan(entrance, "NoSuchTicket0000")).toMatchObject({ status: false });
    const second = await scan(exit, ticket.id);
    expect(await scan(exit, ticket.id)).toMatchObject({ status: false });
    const got = await waitForRequests(name, 2, 15_000);
    expect(got).toHaveLength(2);
    await sleep(1500);
    const all = await receivedBy(name);
    expect(all).toHaveLength(2);
    const payloads = all.map((r) => JSON.parse(r.body) as Json).sort((a, b) => a.level - b.level);
    expect(payloads).toEqual([
      { ...first, event_id: f.event.id },
      { ...second, event_id: f.event.id },
    ]);
    for (const p of payloads) expect(Object.keys(p)).toEqual([...RESULT_FIELDS, "event_id"]);
    for (const r of all) {
      expect(r.headers["x-evt-webhook-topic"]).toBe("scan.created");
      expect(r.headers["x-evt-webhook-id"]).toBe(String(hook.id));
      // Fired from the queue consumer: the origin is PUBLIC_URL (unset in tests), not a request's
      // (docs/webhooks-and-email.md).
      expect(r.headers["x-evt-webhook-source"]).toMatch(/\/ticketing\/v1$/);
    }
  });

  it("nothing for an event without webhooks_needed", async () => {
    const name = unique("scan-created-off-");
    await scanHook(name);
    const off = await fixture({ event: { webhooks_needed: false } });
    await succeed(off, off.tickets[0]!, await off.key(0));
    await d1ScansWhen(off.event.id, (r) => r.length >= 1);
    // Control: an event that wants webhooks, scanned afterwards, does deliver.
    const on = await fixture({ event: { webhooks_needed: true } });
    await succeed(on, on.tickets[0]!, await on.key(0));
    await waitForRequests(name, 1, 15_000);
    await sleep(1000);
    const got = await receivedBy(name);
    expect(got.map((r) => JSON.parse(r.body).qrcode)).toEqual([on.tickets[0]!.id]);
  });
});

describe("GET /admin/tickets/<order_id> shows the scans (spec: Order tickets)", () => {
  it("each ticket's scans as {level, date, location} in the event's zone once they reached D1; empty for the others", async () => {
    const f = await fixture({ event: { timezone: "Asia/Tokyo" }, counts: [2] });
    const [ticket, unscanned] = f.tickets as [Ticket, Ticket];
    const a = await scanAt(await f.key(0, { location: "Entrance", date_format: "d/m/Y" }), ticket.id);
    const b = await scanAt(await f.key(1, { location: "Hall" }), ticket.id);
    expect([a.result.status, b.result.status]).toEqual([true, true]);
    await d1ScansWhen(f.event.id, (r) => r.length >= 2);
    const view = await expectJson(call("GET", `/admin/tickets/${f.order.id}`), 200);
    const mine = view.tickets.find((t: Json) => t.ticket_id === ticket.id);
    expect(mine.scans.map((s: Json) => [s.level, s.location])).toEqual([
      [0, "Entrance"],
      [1, "Hall"],
    ]);
    for (const s of mine.scans) expect(Object.keys(s).sort()).toEqual(["date", "level", "location"]);
    expect(timedDates(a, "Asia/Tokyo")).toContain(mine.scans[0].date);
    expect(timedDates(b, "Asia/Tokyo")).toContain(mine.scans[1].date);
    expect(view.tickets.find((t: Json) => t.ticket_id === unscanned.id).scans).toEqual([]);
  });
});

describe("scans.record: at least once, in any order", () => {
  /** A job of hand-made scans of `ticket` (seqs chosen here: the event's object records no scan in these tests). */
  function jobOf(f: Fixture, ticket: Ticket, scans: { seq: number; level: number; reloaded?: boolean }[]): ScansRecordJob {
    const at = Date.now();
    return {
      v: 1,
      kind: "scans.record",
      eventId: f.event.id,
      scans: scans.map((s) => ({
        seq: s.seq,
        ticketId: ticket.id,
        orderId: f.order.id,
        typeId: f.types[0]!.id,
        typeName: ticket.type,
        level: s.level,
        at: at + s.seq,
        location: `Loc ${s.seq}`,
        reloaded: s.reloaded ?? false,
        result: { ...ticketPart(f, ticket, s.level), status: true, date: "", location: `Loc ${s.seq}` },
      })),
    };
  }

  it("a job handled twice writes each scan once and lowers sold once for a reloading exit", async () => {
    const f = await fixture({ event: { stock: 10, reload_on_exit_needed: true }, counts: [2] });
    const ticket = f.tickets[0]!;
    const job = jobOf(f, ticket, [
      { seq: 1, level: 0 },
      { seq: 2, level: 9, reloaded: true },
    ]);
    const deps = depsFromEnv(env);
    expect(await recordScans(deps, job)).toBe(2);
    expect(await recordScans(deps, job)).toBe(0);
    expect((await d1Scans(f.event.id)).map((r) => [r.seq, r.level, r.reloaded])).toEqual([
      [1, 0, 0],
      [2, 9, 1],
    ]);
    expect(await eventSold(f.event.id)).toBe(1);
  });

  it("a reloading exit sent again after its ticket's reset was written (its row gone) gives no second unit back", async () => {
    const f = await fixture({ event: { stock: 10, reload_on_exit_needed: true }, counts: [2] });
    const ticket = f.tickets[0]!;
    const deps = depsFromEnv(env);
    const exit = jobOf(f, ticket, [
      { seq: 1, level: 0 },
      { seq: 2, level: 9, reloaded: true },
    ]);
    expect(await recordScans(deps, exit)).toBe(2);
    expect(await eventSold(f.event.id)).toBe(1);
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 3, level: 6 }]))).toBe(1);
    // The acknowledgement of the exit was lost: the object sends it again.
    expect(await recordScans(deps, exit)).toBe(0);
    expect((await d1Scans(f.event.id)).map((r) => [r.seq, r.level])).toEqual([[3, 6]]);
    expect(await eventSold(f.event.id)).toBe(1);
    const [order] = await db.select({ deductions: orders.deductions }).from(orders).where(eq(orders.id, f.order.id));
    expect(order!.deductions.reduce((n, d) => n + d.eventUnits, 0)).toBe(1);
  });

  it("a reloading exit whose first message was lost, arriving after its ticket's reset, gives its unit back once", async () => {
    const f = await fixture({ event: { stock: 10, reload_on_exit_needed: true }, counts: [2] });
    const ticket = f.tickets[0]!;
    const deps = depsFromEnv(env);
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 1, level: 0 }]))).toBe(1);
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 3, level: 6 }]))).toBe(1);
    const exit = jobOf(f, ticket, [{ seq: 2, level: 9, reloaded: true }]);
    // Not written (the reset removed the history it belongs to), but the object did give the unit back.
    expect(await recordScans(deps, exit)).toBe(0);
    expect(await eventSold(f.event.id)).toBe(1);
    expect(await recordScans(deps, exit)).toBe(0);
    expect(await eventSold(f.event.id)).toBe(1);
    expect((await d1Scans(f.event.id)).map((r) => [r.seq, r.level])).toEqual([[3, 6]]);
  });

  it("a scan older than a reset already written is not written; the reset removes what came before it", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const deps = depsFromEnv(env);
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 1, level: 0 }]))).toBe(1);
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 3, level: 6 }]))).toBe(1);
    // seq 2 arrives late: it belongs to the history the reset removed.
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 2, level: 1 }]))).toBe(0);
    expect(await recordScans(deps, jobOf(f, ticket, [{ seq: 4, level: 0 }]))).toBe(1);
    expect((await d1Scans(f.event.id)).map((r) => [r.seq, r.level])).toEqual([
      [3, 6],
      [4, 0],
    ]);
  });

  it("a reset and the scans before it in one job leave only the reset and what follows", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const written = await recordScans(
      depsFromEnv(env),
      jobOf(f, ticket, [
        { seq: 1, level: 0 },
        { seq: 2, level: 9 },
        { seq: 3, level: 6 },
        { seq: 4, level: 0 },
      ]),
    );
    expect((await d1Scans(f.event.id)).map((r) => [r.seq, r.level])).toEqual([
      [3, 6],
      [4, 0],
    ]);
    expect(written).toBeGreaterThanOrEqual(2);
  });
});

describe("scan key changes reach the object at once", () => {
  it("a key's level and location changed with PUT apply to the next scan", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const key = await f.key(0, { location: "Door" });
    await succeed(f, ticket, key);
    await expectJson(call("PUT", `/admin/events/${f.event.id}/scan-keys/${key}`, { body: { level: 9, location: "Way out" } }), 200);
    const t = await scanAt(key, ticket.id);
    expectSuccess(f, ticket, 9, "Way out", t);
  });

  it("a key created after the first scans works at once", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    await succeed(f, ticket, await f.key(0));
    const late = await f.key(1, { location: "Late hall" });
    expect(await scan(late, ticket.id)).toMatchObject({ status: true, location: "Late hall" });
  });

  it("the event's name and time zone changed with PUT show in the next answers", async () => {
    const f = await fixture();
    const ticket = f.tickets[0]!;
    const key = await f.key(0);
    const first = await scanAt(key, ticket.id);
    const name = unique("Renamed ");
    await expectJson(call("PUT", `/admin/events/${f.event.id}`, { body: { event_name: name, timezone: "Asia/Tokyo" } }), 200);
    const again = await scan(key, ticket.id);
    expect(again).toMatchObject({ event: name, status: false, error: ERR.done });
    expect(timedDates(first, "Asia/Tokyo")).toContain(again.date);
    expect((await expectJson(getScans(key, ticket.id), 200)).event_name).toBe(name);
  });
});

describe("the scan path reads nothing from D1", () => {
  /** env with a DB whose every query entry point is counted. */
  function countingEnv() {
    const calls: string[] = [];
    const counted = new Set(["prepare", "batch", "exec", "dump", "withSession"]);
    const DB = new Proxy(env.DB, {
      get(target, prop, _receiver) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (counted.has(String(prop))) {
          return (...args: unknown[]) => {
            calls.push(String(prop));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
    return { env: { ...env, DB } as typeof env, calls };
  }

  async function fetchWith(e: typeof env, req: Request): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await worker.fetch(req, e, ctx);
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    return new Response(text, { status: res.status, headers: res.headers });
  }

  it("the worker entry exports fetch, queue and scheduled", () => {
    expect(typeof worker.fetch).toBe("function");
    expect(typeof worker.queue).toBe("function");
    expect(typeof worker.scheduled).toBe("function");
  });

  it("once the key is cached: a success, a repeat and GET /scans/<id> make no D1 call; an unknown ticket one", async () => {
    const f = await fixture({ counts: [2] });
    const [warm, ticket] = f.tickets as [Ticket, Ticket];
    const key = await f.key(0, { location: "Counted door" });
    const { env: counting, calls } = countingEnv();

    // The counter really counts: the first use of the key reads it from D1.
    const first = await expectJson(fetchWith(counting, request("POST", "/scans", { key, auth: null, body: { id: warm.id } })), 200);
    expect(first).toMatchObject({ status: true });
    expect(calls.length, "the key lookup on a cache miss goes through the counted DB").toBeGreaterThan(0);
    calls.length = 0;

    const success = await expectJson(fetchWith(counting, request("POST", "/scans", { key, auth: null, body: { id: ticket.id } })), 200);
    expect(success).toMatchObject({ status: true, qrcode: ticket.id });
    const repeat = await expectJson(fetchWith(counting, request("POST", "/scans", { key, auth: null, body: { id: ticket.id } })), 200);
    expect(repeat).toMatchObject({ status: false, error: ERR.done });
    expect(calls, "D1 calls on the scan path").toEqual([]);
    // A ticket the object does not know is looked up once in D1, in case the object missed its order
    // (docs/reliability.md "Guarantees").
    const unknown = await expectJson(fetchWith(counting, request("POST", "/scans", { key, auth: null, body: { id: "NoSuchTicket0000" } })), 200);
    expect(unknown).toMatchObject({ status: false, error: ERR.notFound });
    expect(calls, "D1 calls for an unknown ticket").toHaveLength(1);
    calls.length = 0;

    const view = await expectJson(fetchWith(counting, request("GET", `/scans/${ticket.id}`, { key, auth: null })), 200);
    expect(view.scans).toHaveLength(1);
    expect(calls, "D1 calls on GET /scans/<id>").toEqual([]);
  });
});
