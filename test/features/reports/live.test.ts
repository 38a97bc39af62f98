import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, createUser, expectError, expectJson, unique } from "../../helpers/api";
import { createScanKey } from "../../helpers/catalogue";
import { waitKnown } from "../../helpers/offline-list";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";

/**
 * The console's live numbers (decisions.md 15 "The organiser console"): `GET /admin/events/<id>/live`, read from
 * the report counters and the five-minute entrance counters of migration 0031. Storage is shared with other files:
 * every test makes its own events, orders and keys.
 */

type Json = Record<string, any>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const live = (id: number) => expectJson(call("GET", `/admin/events/${id}/live`), 200);
const key = async (eventId: number, level: number, location: string) => (await createScanKey(eventId, { level, location })).key as string;

async function scan(key: string, ticketId: string): Promise<void> {
  const result = await expectJson(call("POST", "/scans", { key, auth: null, body: { id: ticketId } }), 200);
  expect(result, `scan of ${ticketId}`).toMatchObject({ status: true });
}

/** Scans reach D1 from the event object's outbox a second or two later: polls the answer (bounded) until `done`. */
async function liveWhen(id: number, done: (body: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = await live(id);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`live numbers never got there: ${JSON.stringify(body)}`);
    await sleep(100);
  }
}

const admittedInBuckets = (body: Json) => (body.admissions as Json[]).reduce((n, b) => n + b.admitted, 0);

async function ticketsOf(orderId: number): Promise<string[]> {
  const view = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return view.tickets.map((t: Json) => t.ticket_id as string);
}

/** An event with two types and two dashboard orders (3 Adult at 25, 2 Child at 12.50, one order charged 40). */
async function soldEvent() {
  const event = await createOrderEvent();
  const adult = await createOrderType(event.id, "Adult", { price: 25 });
  const child = await createOrderType(event.id, "Child", { price: "12.50" });
  const types = [adult.id, child.id];
  const first = await placeOrder(orderBody(event.id, types, { [adult.id]: 2, [child.id]: 2 }, { amount: "40.00" }));
  const second = await placeOrder(orderBody(event.id, types, { [adult.id]: 1 }));
  return { id: event.id, types, tickets: [...(await ticketsOf(first.id)), ...(await ticketsOf(second.id))] };
}

describe("GET /admin/events/<id>/live", () => {
  it("answers sales per type and in total, check-ins per location, and 36 empty five minutes before any scan", async () => {
    const event = await soldEvent();
    // An open customer order (not paid yet) is not sold.
    const tickets = event.types.map((id, i) => ({ [id]: i === 0 ? 4 : 0 }));
    const open = await expectJson(
      call("POST", `/events/${event.id}/orders`, { auth: null, body: { name: "Shop Buyer", email: `${unique("live")}@example.com`, tickets } }),
      201,
    );
    expect(open.payment_status).toBe("open");
    const body = await live(event.id);
    expect(body).toStrictEqual({
      id: event.id,
      currency: expect.any(String),
      sales: {
        ticket_types: [
          { ticket_type: "Adult", sold: 3, amount: 75 },
          { ticket_type: "Child", sold: 2, amount: 25 },
        ],
        total_orders: 2,
        total_tickets: 5,
        total_amount: 65,
        awaiting_confirmation: 0,
      },
      check_ins: { locations: [], admitted: 0, inside: null },
      admissions: expect.any(Array),
      _links: { self: [{ href: `${BASE}/admin/events/${event.id}/live` }] },
    });
    expect(body.admissions).toHaveLength(36);
    for (const b of body.admissions) expect(b).toStrictEqual({ start: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d[05]:00$/), admitted: 0 });
    // Oldest first, five minutes apart.
    const minutes = body.admissions.map((b: Json) => Date.parse(`${b.start.replace(" ", "T")}Z`) / 60_000);
    for (let i = 1; i < minutes.length; i++) expect(minutes[i] - minutes[i - 1]).toBe(5);
  });

  it("counts entrances per location and in its five minutes, inside once people leave, and a reset takes the entrance out", async () => {
    const event = await soldEvent();
    const north = await key(event.id, 0, "North gate");
    const south = await key(event.id, 0, "South gate");
    const checkpoint = await key(event.id, 1, "VIP lounge");
    await waitKnown(north, event.tickets);
    const [t1, t2, t3] = event.tickets as [string, string, string];
    await scan(north, t1);
    await scan(north, t2);
    await scan(south, t3);
    await scan(checkpoint, t1);
    let body = await liveWhen(event.id, (b) => b.check_ins.admitted === 3);
    expect(body.check_ins).toStrictEqual({
      locations: [
        { location: "North gate", admitted: 2 },
        { location: "South gate", admitted: 1 },
      ],
      admitted: 3,
      inside: null,
    });
    expect(admittedInBuckets(body)).toBe(3);
    // The entrances are in the current five minutes (or the one before, at a boundary).
    expect(body.admissions.slice(-2).reduce((n: number, b: Json) => n + b.admitted, 0)).toBe(3);

    // Away for a while, back, and gone: inside follows.
    const away = await key(event.id, 7, "Terrace out");
    const back = await key(event.id, 8, "Terrace in");
    const exit = await key(event.id, 9, "Exit");
    await scan(away, t1);
    body = await liveWhen(event.id, (b) => b.check_ins.inside !== null);
    expect(body.check_ins.inside).toBe(2);
    await scan(back, t1);
    await scan(exit, t2);
    body = await liveWhen(event.id, (b) => b.check_ins.inside === 2 && admittedInBuckets(b) === 3);
    expect(body.check_ins.admitted).toBe(3);

    // A reset deletes the ticket's earlier scans in D1: its entrance leaves its location and its five minutes.
    const reset = await key(event.id, 6, "Desk");
    await scan(reset, t3);
    body = await liveWhen(event.id, (b) => b.check_ins.admitted === 2);
    expect(body.check_ins.locations).toStrictEqual([{ location: "North gate", admitted: 2 }]);
    expect(admittedInBuckets(body)).toBe(2);
    const row = await env.DB.prepare("SELECT coalesce(sum(admitted), 0) AS n FROM scan_admissions WHERE event_id = ?").bind(event.id).first<{ n: number }>();
    expect(row!.n).toBe(2);
  });

  it("an organizer reads the events it may manage; another's is 403 rest_forbidden; an unknown one 404", async () => {
    const mine = await soldEvent();
    const other = await soldEvent();
    const org = await createUser("organizer", { authorised_events: [mine.id] });
    const body = await expectJson(call("GET", `/admin/events/${mine.id}/live`, { auth: org.credentials }), 200);
    expect(body.sales.total_tickets).toBe(5);
    await expectError(call("GET", `/admin/events/${other.id}/live`, { auth: org.credentials }), 403, "rest_forbidden");
    await expectError(call("GET", "/admin/events/987654321/live"), 404, "rest_event_invalid_id");
    await expectError(call("GET", "/admin/events/abc/live"), 404, "rest_event_invalid_id");
    await expectError(call("GET", `/admin/events/${mine.id}/live`, { auth: null }), 401, "rest_not_logged_in");
  });
});
