import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/index";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { emails, waitingList, webhookDeliveries } from "../../../src/db/schema";
import type { EventObject } from "../../../src/event-object/event.do";
import { BASE, call, createUser, expectError, expectJson, request, unique } from "../../helpers/api";
import { programStub, stubUrl } from "../../helpers/stubs";
import { depsFromEnv } from "../../../src/platform/deps";
import { sweep } from "../../../src/cron";
import { deleteWaitingEntry, joinWaitingList } from "../../../src/features/waiting-list/waiting-list.service";
import type { EventRow } from "../../../src/db/rows";
import { events } from "../../../src/db/schema";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";

/**
 * The waiting list (decisions.md 15 "Selling like the peers"; docs/ordering.md "Waiting list"): joining through
 * `POST /events/<event_id>/waiting-list` and its rules, the organiser's list and deletes, and the offers the event's
 * object makes when units come back (an order deleted, stock raised, an offer expired or deleted), in the order the
 * entries joined, to the first that fit, each written to D1 with its email. Ordering through an offer is tested with
 * the shop page that does it (test/features/shop/shop-waiting-list.test.ts).
 */

type Json = Record<string, any>;

interface Sold {
  event: Json;
  type: Json;
  orders: number[];
}

/** An event with a waiting list and one type of `stock` units, all sold by dashboard orders of one unit each. */
async function soldOut(stock = 2, event: Json = {}): Promise<Sold> {
  const created = await createEvent({ event_name: unique("Waiting "), waiting_list_needed: true, add_dashboard_orders_needed: true, ...event });
  const type = await createTicketType(created.id, { name: "Standing", price: 0, stock_control: true, stock, maximum_to_order: 0 });
  const orders: number[] = [];
  for (let i = 0; i < stock; i++) {
    const order = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: created.id, name: "Early Bird", email: `early${i}@example.com`, tickets: [{ [type.id]: 1 }] } }),
      201,
    );
    orders.push(order.id);
  }
  return { event: created, type, orders };
}

const join = (eventId: number, body: Json, key: string | null = undefined as unknown as string) =>
  call("POST", `/events/${eventId}/waiting-list`, { body, auth: null, ...(key === undefined ? {} : { key }) });

const entry = (s: Sold, who: string, count = 1): Json => ({ name: who, email: `${who.toLowerCase()}@example.com`, ticket_type_id: s.type.id, count });

async function joined(s: Sold, who: string, count = 1): Promise<Json> {
  return expectJson(join(s.event.id, entry(s, who, count)), 201);
}

async function states(eventId: number): Promise<Record<string, string>> {
  const rows = await db.select().from(waitingList).where(eq(waitingList.eventId, eventId)).orderBy(asc(waitingList.id));
  return Object.fromEntries(rows.map((r) => [r.name, r.state]));
}

/** Waits until D1 shows the entries in these states (offers reach D1 through the object's outbox and the queue). */
async function settlesTo(eventId: number, expected: Record<string, string>): Promise<void> {
  await vi.waitFor(async () => expect(await states(eventId)).toEqual(expected), { timeout: 15_000, interval: 100 });
}

function objectOf(eventId: number): DurableObjectStub<EventObject> {
  return env.EVENTS.get(env.EVENTS.idFromName(`event:${eventId}`));
}

/** Lets the object's line catch up with D1 (each join tells it after its answer). */
async function lineOf(eventId: number) {
  return objectOf(eventId).waitingList();
}

const deleteOrder = (id: number) => expectJson(call("DELETE", `/admin/orders/${id}`), 200);

describe("joining the waiting list", () => {
  it("puts a buyer in line for a sold-out type: 201 with the entry; the organiser sees it waiting", async () => {
    const s = await soldOut();
    const res = await join(s.event.id, entry(s, "Ada", 2));
    const body = await expectJson(res, 201);
    expect(body).toEqual({
      id: expect.any(Number),
      event_id: s.event.id,
      ticket_type_id: s.type.id,
      name: "Ada",
      email: "ada@example.com",
      count: 2,
      state: "waiting",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/events/${s.event.id}/waiting-list/${body.id}`);
    const list = await expectJson(call("GET", `/admin/events/${s.event.id}/waiting-list`), 200);
    expect(list).toEqual([expect.objectContaining({ id: body.id, ticket_type: "Standing", state: "waiting", offered_at: "", offer_expires_at: "", order_id: null })]);
    await vi.waitFor(async () => expect(await lineOf(s.event.id)).toEqual([expect.objectContaining({ entryId: body.id, state: "waiting", units: 2 })]));
  });

  it("takes the publishable ordering key, and refuses a call without a key", async () => {
    const s = await soldOut(1);
    await expectError(join(s.event.id, entry(s, "Nokey"), null), 401, "rest_forbidden_api_key");
    const ctx = createExecutionContext();
    const req = request("POST", `/events/${s.event.id}/waiting-list`, { auth: null, key: "pk_test", body: entry(s, "Browser") });
    const viaShop = await worker.fetch(req, { ...env, ORDERING_KEY: "pk_test" } as typeof env, ctx);
    await waitOnExecutionContext(ctx);
    expect(viaShop.status).toBe(201);
  });

  it("refuses what it cannot do, each with its code, and writes nothing", async () => {
    const s = await soldOut(1);
    const closed = await createEvent({ event_name: unique("No list ") });
    const closedType = await createTicketType(closed.id, { name: "Seat", price: 0, stock_control: true, stock: 0 });
    await expectError(join(closed.id, { ...entry(s, "Closed"), ticket_type_id: closedType.id }), 400, "waiting_list_closed");
    await expectError(join(999_999_999, entry(s, "Nowhere")), 404, "rest_event_invalid_id");
    const unknownType = await expectError(join(s.event.id, { ...entry(s, "Typo"), ticket_type_id: "nope" }), 400, "rest_invalid_param");
    expect(unknownType.data.params).toEqual({ ticket_type_id: "is not a ticket type of this event" });
    await expectError(join(s.event.id, { ...entry(s, "Zero"), count: 0 }), 400, "rest_invalid_param");
    await expectError(join(s.event.id, { ...entry(s, "Bad"), email: "not-an-email" }), 400, "order_invalid_email");
    await expectError(join(s.event.id, { ...entry(s, "Noname"), name: "" }), 400, "order_missing_input");
    await expectError(join(s.event.id, { ...entry(s, "Extra"), surprise: 1 }), 400, "rest_invalid_param");
    // Units are on sale: order them instead.
    const open = await createEvent({ event_name: unique("Open "), waiting_list_needed: true });
    const openType = await createTicketType(open.id, { name: "Seat", price: 0, stock_control: true, stock: 5 });
    await expectError(join(open.id, { ...entry(s, "Early"), ticket_type_id: openType.id, count: 2 }), 409, "waiting_list_not_sold_out");
    // Not sold out for one, but for six: fewer than asked are left, so the buyer may wait for six.
    expect((await join(open.id, { ...entry(s, "Group"), ticket_type_id: openType.id, count: 6 })).status).toBe(201);
    expect(await states(s.event.id)).toEqual({});
    expect(await states(closed.id)).toEqual({});
  });

  it("keeps one entry per email and type, also when the same buyer joins ten times at once", async () => {
    const s = await soldOut(1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => join(s.event.id, { ...entry(s, "Eager"), email: "EAGER@example.com" })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    await expectError(join(s.event.id, entry(s, "Eager")), 409, "waiting_list_duplicate");
    expect(await states(s.event.id)).toEqual({ Eager: "waiting" });
  });
});

describe("offers", () => {
  it("offers units that come back to the first entry that fits, in the order they joined, with an email and a webhook", async () => {
    const s = await soldOut(2, { webhooks_needed: true });
    const name = unique("wl-offer-").replace(/\s/g, "");
    await programStub(name);
    const created = await expectJson(
      call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: "secret", topic: "waiting_list.offered" } }),
      201,
    );
    const hook = await expectJson(call("PUT", `/admin/webhooks/${created.id}`, { body: { enabled: true } }), 200);
    await joined(s, "Big", 2);
    const first = await joined(s, "First");
    await joined(s, "Second");
    await vi.waitFor(async () => expect(await lineOf(s.event.id)).toHaveLength(3));

    await deleteOrder(s.orders[0]!);
    // One unit came back: Big (two) does not fit and keeps its place; First gets it.
    await settlesTo(s.event.id, { Big: "waiting", First: "offered", Second: "waiting" });
    const row = await db.select().from(waitingList).where(eq(waitingList.id, first.id)).get();
    expect(row?.offerExpiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + 23 * 3600);
    const sent = await db.select().from(emails).where(eq(emails.to, "first@example.com"));
    const mine = sent.filter((e) => e.eventId === s.event.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toMatch(new RegExp(`/ticketing/v1/shop/${s.event.id}\\?offer=[A-Za-z0-9]{32}&amp;lang=en`));
    const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    expect(deliveries.map((d) => JSON.parse(d.body))).toEqual([expect.objectContaining({ id: first.id, state: "offered", ticket_type: "Standing" })]);
    // The unit is held for the offer: the type shows nothing left to anyone else.
    const form = await expectJson(call("GET", `/events/${s.event.id}/order-form`, { auth: null }), 200);
    expect(form.open).toBe(false);

    // The second unit comes back: now Big (two) still does not fit, so Second gets it.
    await deleteOrder(s.orders[1]!);
    await settlesTo(s.event.id, { Big: "waiting", First: "offered", Second: "offered" });
  });

  it("an offer not used by its end goes to the next in line, and its entry is expired", async () => {
    const s = await soldOut(1);
    const a = await joined(s, "Slow");
    await joined(s, "Next");
    await vi.waitFor(async () => expect(await lineOf(s.event.id)).toHaveLength(2));
    await deleteOrder(s.orders[0]!);
    await settlesTo(s.event.id, { Slow: "offered", Next: "waiting" });
    // The offer's end comes: moved to the past inside the object, then its alarm runs.
    const stub = objectOf(s.event.id);
    await runInDurableObject(stub, (_o: EventObject, state) => {
      state.storage.sql.exec(`UPDATE waiting SET deadline = 1 WHERE entry_id = ?`, a.id);
      state.storage.sql.exec(`UPDATE reservations SET deadline = 1 WHERE uid = ?`, `offer:${a.id}`);
    });
    await runDurableObjectAlarm(stub);
    await settlesTo(s.event.id, { Slow: "expired", Next: "offered" });
    const list = await expectJson(call("GET", `/admin/events/${s.event.id}/waiting-list`), 200);
    expect(list.map((e: Json) => [e.name, e.state])).toEqual([
      ["Slow", "expired"],
      ["Next", "offered"],
    ]);
  });

  it("raising the stock offers the new units; deleting an offered entry hands its units to the next", async () => {
    const s = await soldOut(1);
    const a = await joined(s, "Alpha");
    await joined(s, "Beta");
    await vi.waitFor(async () => expect(await lineOf(s.event.id)).toHaveLength(2));
    await expectJson(call("PUT", `/admin/events/${s.event.id}/ticket-types/${s.type.id}`, { body: { stock: 2 } }), 200);
    await settlesTo(s.event.id, { Alpha: "offered", Beta: "waiting" });
    const gone = await expectJson(call("DELETE", `/admin/events/${s.event.id}/waiting-list/${a.id}`), 200);
    expect(gone).toEqual({ deleted: true, previous: expect.objectContaining({ id: a.id, state: "offered" }) });
    await settlesTo(s.event.id, { Beta: "offered" });
    await expectError(call("DELETE", `/admin/events/${s.event.id}/waiting-list/${a.id}`), 404, "rest_waiting_list_entry_invalid_id");
  });

  it("makes no offers while the event's waiting list is off", async () => {
    const s = await soldOut(1);
    await joined(s, "Patient");
    await vi.waitFor(async () => expect(await lineOf(s.event.id)).toHaveLength(1));
    await expectJson(call("PUT", `/admin/events/${s.event.id}`, { body: { waiting_list_needed: false } }), 200);
    await deleteOrder(s.orders[0]!);
    const form = await vi.waitFor(async () => {
      const f = await expectJson(call("GET", `/events/${s.event.id}/order-form`, { auth: null }), 200);
      expect(f.open).toBe(true);
      return f;
    });
    expect(form.open).toBe(true);
    expect(await states(s.event.id)).toEqual({ Patient: "waiting" });
  });
});

describe("the organiser's list", () => {
  it("is paged, and only for users who may manage the event", async () => {
    const s = await soldOut(1);
    for (const who of ["One", "Two", "Three"]) await joined(s, who);
    const res = await call("GET", `/admin/events/${s.event.id}/waiting-list?per_page=2&page=2`);
    expect(res.headers.get("X-WP-Total")).toBe("3");
    expect((await expectJson(res, 200)).map((e: Json) => e.name)).toEqual(["Three"]);
    const stranger = await createUser("organizer");
    await expectError(call("GET", `/admin/events/${s.event.id}/waiting-list`, { auth: stranger.credentials }), 403, "rest_forbidden");
    const [first] = await expectJson(call("GET", `/admin/events/${s.event.id}/waiting-list`), 200);
    await expectError(call("DELETE", `/admin/events/${s.event.id}/waiting-list/${first.id}`, { auth: stranger.credentials }), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/events/${s.event.id}/waiting-list/${first.id}`, { auth: null }), 401, "rest_not_logged_in");
    expect(await states(s.event.id)).toEqual({ One: "waiting", Two: "waiting", Three: "waiting" });
  });
});

describe("a crash after the commit", () => {
  it("loses no join and no delete: the sweep tells the object what the lost call should have", async () => {
    const s = await soldOut(1);
    const event = (await db.select().from(events).where(eq(events.id, s.event.id)).get()) as EventRow;
    // A runtime that dies right after its batch: the work after the answer never runs.
    const crashed = { ...depsFromEnv(env, undefined, "http://ticketing.test"), defer: () => {} };
    const input = { name: "Lost", email: "lost@example.com", ticket_type_id: s.type.id, count: 1 };
    const lost = await joinWaitingList(crashed, event, input);
    await joinWaitingList(crashed, event, { ...input, name: "Later", email: "later@example.com" });
    expect(await lineOf(s.event.id)).toEqual([]);
    // Within half a minute the sweep leaves it to the call; after it, it tells the object, in the order they joined.
    const later = (seconds: number) => ({ ...depsFromEnv(env, undefined, "http://ticketing.test"), now: () => Math.floor(Date.now() / 1000) + seconds });
    await sweep(later(0), 1);
    expect(await lineOf(s.event.id)).toEqual([]);
    await sweep(later(31), 1);
    expect((await lineOf(s.event.id)).map((e) => [e.entryId, e.state])).toEqual([
      [lost.id, "waiting"],
      [lost.id + 1, "waiting"],
    ]);
    // The unit comes back: the first in line gets it.
    await deleteOrder(s.orders[0]!);
    await settlesTo(s.event.id, { Lost: "offered", Later: "waiting" });
    // The organiser deletes the offered entry and the runtime dies: D1 shows it gone, the object still holds it.
    await deleteWaitingEntry(crashed, s.event.id, lost.id);
    expect(await states(s.event.id)).toEqual({ Lost: "deleted", Later: "waiting" });
    await sweep(later(31), 1);
    await settlesTo(s.event.id, { Later: "offered" });
  });
});
