import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config";
import { signerFor } from "../../../src/lib/ticket-codes";
import { BASE, call, createUser, expectError, expectJson, unique, type CreatedUser } from "../../helpers/api";
import { createEvent, createScanKey } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, emailedConfirmLink, orderBody, placeOrder } from "../../helpers/orders";
import { waitKnown } from "../../helpers/offline-list";

/**
 * Sales and scan reports (ticketing-api.md "Sales and scan reports", "Reports"; decisions.md 4 `_embed`):
 * `GET /admin/events/<id>/sales[/group]` and `/scans[/group]`, and the `sales_totals` / `scan_totals` embeds of an
 * event. The main fixture is a group of three dated events and a passe-partout, with dashboard orders and customer
 * orders left open, paid, cancelled and booked for free, and scans at several locations and levels; every number is
 * worked out by hand below. Storage is shared with other files: every test makes its own events, orders and keys.
 */

type Json = Record<string, any>;

const signer = signerFor(loadConfig(env).ticketSigningKeys);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------------------
// Helpers

interface Ticket {
  id: string;
  eventId: number;
  type: string;
}

async function ticketsOf(orderId: number): Promise<Ticket[]> {
  const view = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return view.tickets.map((t: Json) => ({ id: t.ticket_id as string, eventId: t.event_id as number, type: t.ticket_type as string }));
}

/** A dashboard order (counts by type id, every type of the event named), optionally with an `amount`. */
async function dashboardOrder(eventId: number, typeIds: string[], counts: Record<string, number>, extra: Json = {}) {
  const order = await placeOrder(orderBody(eventId, typeIds, counts, { email: `${unique("rep")}@example.com`, ...extra }));
  return { order, tickets: await ticketsOf(order.id) };
}

function decide(checkoutUrl: string, action: "pay" | "cancel"): Promise<Response> {
  return exports.default.fetch(
    new Request(checkoutUrl, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` }),
  );
}

/** A customer order through the shop-front route, then paid, cancelled or left as it is. */
async function customerOrder(eventId: number, typeIds: string[], counts: Record<string, number>, then?: "pay" | "cancel") {
  const body = { name: "Shop Buyer", email: `${unique("shop")}@example.com`, tickets: typeIds.map((id) => ({ [id]: counts[id] ?? 0 })) };
  const order = await expectJson(call("POST", `/events/${eventId}/orders`, { auth: null, body }), 201);
  if (then) expect((await decide(order.payment.checkout_url, then)).status).toBe(303);
  const status = (await expectJson(call("GET", `/admin/orders/${order.id}`), 200)).payment_status;
  return { order, status, tickets: await ticketsOf(order.id) };
}

const get = (path: string, auth?: CreatedUser["credentials"]) => call("GET", path, auth ? { auth } : {});

/** A report, after checking it links to itself like every resource (decisions.md 14); answered without `_links`. */
async function report(path: string, auth?: CreatedUser["credentials"]) {
  const { _links, ...body } = await expectJson(get(path, auth), 200);
  expect(_links).toStrictEqual({ self: [{ href: `${BASE}${path}` }] });
  return body;
}

const sales = (id: number, auth?: CreatedUser["credentials"]) => report(`/admin/events/${id}/sales`, auth);
const salesGroup = (id: number, auth?: CreatedUser["credentials"]) => report(`/admin/events/${id}/sales/group`, auth);
const scans = (id: number, auth?: CreatedUser["credentials"]) => report(`/admin/events/${id}/scans`, auth);
const scansGroup = (id: number, auth?: CreatedUser["credentials"]) => report(`/admin/events/${id}/scans/group`, auth);

/** Scans that must succeed (with the plain id or the signed code). */
async function entered(key: string, code: string): Promise<void> {
  const result = await expectJson(call("POST", "/scans", { key, auth: null, body: { id: code } }), 200);
  expect(result, `scan of ${code}`).toMatchObject({ status: true });
}

async function refused(key: string, code: string): Promise<void> {
  const result = await expectJson(call("POST", "/scans", { key, auth: null, body: { id: code } }), 200);
  expect(result, `scan of ${code}`).toMatchObject({ status: false });
}

/** Scans reach D1 through the object's alarm and a queue: wait (bounded) until each event has its number of rows. */
async function waitScanRows(expected: Record<number, number>): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const counts: Record<number, number> = {};
    for (const id of Object.keys(expected).map(Number)) {
      counts[id] = (await env.DB.prepare(`SELECT count(*) AS n FROM scans WHERE event_id = ?`).bind(id).first<{ n: number }>())!.n;
    }
    if (Object.entries(expected).every(([id, n]) => counts[Number(id)] === n)) return;
    if (Date.now() > deadline) throw new Error(`scan rows ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`);
    await sleep(50);
  }
}

const key = async (eventId: number, level: number, location: string) => (await createScanKey(eventId, { level, location })).key as string;

/** A sales line: status, orders, charged amount, tickets, and per type [name, sold, orders, amount]. */
const line = (payment_status: string, total_orders: number, total_amount: number, total_tickets: number, types: [string, number, number, number][]) => ({
  payment_status,
  total_orders,
  total_amount,
  total_tickets,
  tickets: types.map(([ticket_type, sold, orders, amount]) => ({ ticket_type, sold, orders, amount })),
});

/** A scans line: type, tickets never scanned, then [location, level, scans]. */
const scanLine = (ticket_type: string, unscanned: number, rows: [string, number, number][]) => ({
  ticket_type,
  scans: [
    { scan_location: "", scan_level: 0, scan_total: unscanned },
    ...rows.map(([scan_location, scan_level, scan_total]) => ({ scan_location, scan_level, scan_total })),
  ],
});

// ---------------------------------------------------------------------------------------------------------------
// The group: E1, E2, E3 (select multiple dates) and P (passe-partout), all in one event_group.

interface GroupFixture {
  group: string;
  e1: number;
  e2: number;
  e3: number;
  p: number;
  outsider: number;
}

let fx: GroupFixture;

beforeAll(async () => {
  const group = unique("RG");
  const dated = (n: number) => createOrderEvent({ group_type: 2, event_group: group, event_date: `2099-06-0${n} 20:00:00` });
  const e1 = (await dated(1)).id;
  const e2 = (await dated(2)).id;
  const e3 = (await dated(3)).id;
  const p = (await createOrderEvent({ group_type: 3, event_group: group })).id;
  // An event of another group, whose orders must never show.
  const outsider = (await createOrderEvent({ group_type: 2, event_group: unique("OTHER") })).id;

  const adult1 = await createOrderType(e1, "Adult", { price: 25 });
  const child1 = await createOrderType(e1, "Child", { price: "12.50" });
  const adult2 = await createOrderType(e2, "Adult", { price: 30 });
  const free3 = await createOrderType(e3, "Free", { price: 0 });
  const pass = await createOrderType(p, "Pass", { price: 50 });
  const outsiderType = await createOrderType(outsider, "Adult", { price: 99 });
  const t1 = [adult1.id, child1.id];

  // E1: two dashboard orders (one with an amount below list price), customer orders paid, open and cancelled.
  const d1 = await dashboardOrder(e1, t1, { [adult1.id]: 2, [child1.id]: 1 }, { amount: "50.00" });
  expect(d1.order).toMatchObject({ total: 50, discount: 12.5, payment_status: "dashboard" });
  const d2 = await dashboardOrder(e1, t1, { [adult1.id]: 1 });
  const c1 = await customerOrder(e1, t1, { [child1.id]: 2 }, "pay");
  const c2 = await customerOrder(e1, t1, { [adult1.id]: 1 });
  const c3 = await customerOrder(e1, t1, { [adult1.id]: 3 }, "cancel");
  expect([c1.status, c2.status, c3.status]).toEqual(["paid", "open", "canceled"]);
  // E2: one dashboard order, one paid customer order.
  const d3 = await dashboardOrder(e2, [adult2.id], { [adult2.id]: 1 });
  const c4 = await customerOrder(e2, [adult2.id], { [adult2.id]: 2 }, "pay");
  // E3: a free customer order (booked).
  const c5 = await customerOrder(e3, [free3.id], { [free3.id]: 2 });
  expect(c5.status).toBe("booked");
  // P: a dashboard order of two passes, a paid customer order of one.
  const d4 = await dashboardOrder(p, [pass.id], { [pass.id]: 2 });
  const c6 = await customerOrder(p, [pass.id], { [pass.id]: 1 }, "pay");
  expect(c4.status).toBe("paid");
  expect(c6.status).toBe("paid");
  await dashboardOrder(outsider, [outsiderType.id], { [outsiderType.id]: 4 });

  // Tickets valid at each event.
  const of = (eventId: number, type: string, ...orders: { tickets: Ticket[] }[]) =>
    orders.flatMap((o) => o.tickets).filter((t) => t.eventId === eventId && t.type === type);
  const [a1, a2] = of(e1, "Adult", d1);
  const [a3] = of(e1, "Adult", d2);
  const [c1a] = of(e1, "Child", d1);
  const [c1b, c1c] = of(e1, "Child", c1);
  const passesAt = (eventId: number) => of(eventId, "Pass", d4, c6);
  expect([a1, a2, a3, c1a, c1b, c1c].every(Boolean)).toBe(true);
  expect(c2.tickets).toEqual([]);
  expect(c3.tickets).toEqual([]);
  // A passe-partout's tickets are at its children, none at P itself (decisions.md 15).
  for (const id of [e1, e2, e3]) expect(passesAt(id)).toHaveLength(3);
  expect(passesAt(p)).toEqual([]);
  const [p1, p2] = passesAt(e1);
  const [b1] = of(e2, "Adult", d3);
  const [b2] = of(e2, "Adult", c4);
  const [q1] = passesAt(e2);
  const [f1] = of(e3, "Free", c5);

  // E1 keys and scans.
  const north = await key(e1, 0, "North gate");
  const south = await key(e1, 0, "South gate");
  const vip = await key(e1, 1, "VIP lounge");
  const exit = await key(e1, 9, "Exit");
  const out = await key(e1, 7, "Terrace out");
  const back = await key(e1, 8, "Terrace in");
  await waitKnown(
    north,
    [a1, a2, a3, c1a, c1b, c1c, ...passesAt(e1)].map((t) => t!.id),
  );
  await entered(north, a1!.id);
  await entered(vip, a1!.id);
  await entered(exit, a1!.id);
  await entered(south, a2!.id);
  await entered(out, a2!.id);
  await entered(back, a2!.id);
  await entered(north, c1a!.id);
  await entered(north, c1b!.id);
  await entered(vip, c1b!.id);
  await entered(south, await signer.sign(e1, p1!.id));
  await entered(north, p2!.id);
  // Refusals are not scans: a repeat, a checkpoint without entrance, a scan after the exit.
  await refused(north, a1!.id);
  await refused(vip, c1c!.id);
  await refused(south, a1!.id);
  await refused(north, "NoSuchTicket0000");

  // E2: the same location name as at E1, and a checkpoint.
  const north2 = await key(e2, 0, "North gate");
  const balcony = await key(e2, 1, "Balcony");
  await waitKnown(
    north2,
    [b1, b2, q1].map((t) => t!.id),
  );
  await entered(north2, b1!.id);
  await entered(balcony, b1!.id);
  await entered(north2, b2!.id);
  await entered(north2, await signer.sign(e2, q1!.id));
  // E3: one free ticket in; no pass scanned.
  const main3 = await key(e3, 0, "Main");
  await waitKnown(main3, [f1!.id]);
  await entered(main3, f1!.id);
  // P: its own desk admits no pass: the passes are tickets of the children (a refusal is no scan).
  const desk = await key(p, 0, "Pass desk");
  await refused(desk, passesAt(e3)[0]!.id);

  await waitScanRows({ [e1]: 11, [e2]: 4, [e3]: 1, [p]: 0 });
  fx = { group, e1, e2, e3, p, outsider };
}, 120_000);

// ---------------------------------------------------------------------------------------------------------------

describe("GET /admin/events/<id>/sales", () => {
  it("E1: its orders per payment status (sorted), charged totals, and per type the tickets, orders and list amount", async () => {
    expect(await sales(fx.e1)).toStrictEqual({
      id: fx.e1,
      orders: [
        line("canceled", 1, 75, 3, [["Adult", 3, 1, 75]]),
        // 50.00 charged for 62.50 at list price, plus 25.00.
        line("dashboard", 2, 75, 4, [
          ["Adult", 3, 2, 75],
          ["Child", 1, 1, 12.5],
        ]),
        line("open", 1, 25, 1, [["Adult", 1, 1, 25]]),
        line("paid", 1, 25, 2, [["Child", 2, 1, 25]]),
      ],
    });
  });

  it("E2, E3 and the passe-partout each report their own orders only", async () => {
    expect(await sales(fx.e2)).toStrictEqual({
      id: fx.e2,
      orders: [line("dashboard", 1, 30, 1, [["Adult", 1, 1, 30]]), line("paid", 1, 60, 2, [["Adult", 2, 1, 60]])],
    });
    expect(await sales(fx.e3)).toStrictEqual({ id: fx.e3, orders: [line("booked", 1, 0, 2, [["Free", 2, 1, 0]])] });
    // The passe-partout's orders count where they were placed (not at the child events), with their own ticket count.
    expect(await sales(fx.p)).toStrictEqual({
      id: fx.p,
      orders: [line("dashboard", 1, 100, 2, [["Pass", 2, 1, 100]]), line("paid", 1, 50, 1, [["Pass", 1, 1, 50]])],
    });
  });

  it("_fields keeps only what is asked for", async () => {
    expect(await expectJson(get(`/admin/events/${fx.e2}/sales?_fields=id`), 200)).toStrictEqual({ id: fx.e2 });
    const orders = await expectJson(get(`/admin/events/${fx.e3}/sales?_fields=orders,nothing`), 200);
    expect(orders).toStrictEqual({ orders: [line("booked", 1, 0, 2, [["Free", 2, 1, 0]])] });
  });
});

describe("GET /admin/events/<id>/sales/group", () => {
  const groupSales = () => [
    line("booked", 1, 0, 2, [["Free", 2, 1, 0]]),
    line("canceled", 1, 75, 3, [["Adult", 3, 1, 75]]),
    line("dashboard", 4, 205, 7, [
      ["Adult", 4, 3, 105],
      ["Child", 1, 1, 12.5],
      ["Pass", 2, 1, 100],
    ]),
    line("open", 1, 25, 1, [["Adult", 1, 1, 25]]),
    line("paid", 3, 135, 5, [
      ["Adult", 2, 1, 60],
      ["Child", 2, 1, 25],
      ["Pass", 1, 1, 50],
    ]),
  ];

  it("sums every event of the group, whichever member is asked; never another group's orders", async () => {
    for (const id of [fx.e1, fx.e2, fx.e3, fx.p]) {
      const body = await salesGroup(id);
      expect(Object.keys(body)).toEqual(["event_group", "orders"]);
      expect(body, `asked through ${id}`).toStrictEqual({ event_group: fx.group, orders: groupSales() });
    }
  });

  it("an event in no group reports itself, with event_group ''", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Solo", { price: "7.25" });
    await dashboardOrder(event.id, [type.id], { [type.id]: 2 });
    const own = [line("dashboard", 1, 14.5, 2, [["Solo", 2, 1, 14.5]])];
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: own });
    expect(await salesGroup(event.id)).toStrictEqual({ event_group: "", orders: own });
    expect(await expectJson(get(`/admin/events/${event.id}/sales/group?_fields=event_group`), 200)).toStrictEqual({ event_group: "" });
  });
});

describe("GET /admin/events/<id>/scans", () => {
  it("E1: per type the tickets never scanned, then the scans per location and level", async () => {
    expect(await scans(fx.e1)).toStrictEqual({
      id: fx.e1,
      tickets: [
        scanLine("Adult", 1, [
          ["Exit", 9, 1],
          ["North gate", 0, 1],
          ["South gate", 0, 1],
          ["Terrace in", 8, 1],
          ["Terrace out", 7, 1],
          ["VIP lounge", 1, 1],
        ]),
        scanLine("Child", 1, [
          ["North gate", 0, 2],
          ["VIP lounge", 1, 1],
        ]),
        // The passe-partout's child tickets count here, under the pass's type name.
        scanLine("Pass", 1, [
          ["North gate", 0, 1],
          ["South gate", 0, 1],
        ]),
      ],
    });
  });

  it("E2, E3 and the passe-partout: their own valid tickets", async () => {
    expect(await scans(fx.e2)).toStrictEqual({
      id: fx.e2,
      tickets: [
        scanLine("Adult", 1, [
          ["Balcony", 1, 1],
          ["North gate", 0, 2],
        ]),
        scanLine("Pass", 2, [["North gate", 0, 1]]),
      ],
    });
    expect(await scans(fx.e3)).toStrictEqual({ id: fx.e3, tickets: [scanLine("Free", 1, [["Main", 0, 1]]), scanLine("Pass", 3, [])] });
    expect(await scans(fx.p)).toStrictEqual({ id: fx.p, tickets: [] });
  });

  it("_fields keeps only what is asked for", async () => {
    expect(await expectJson(get(`/admin/events/${fx.e3}/scans?_fields=id`), 200)).toStrictEqual({ id: fx.e3 });
    expect(await expectJson(get(`/admin/events/${fx.e3}/scans?_fields=tickets`), 200)).toStrictEqual({
      tickets: [scanLine("Free", 1, [["Main", 0, 1]]), scanLine("Pass", 3, [])],
    });
  });
});

describe("GET /admin/events/<id>/scans/group", () => {
  const groupScans = () => [
    scanLine("Adult", 2, [
      ["Balcony", 1, 1],
      ["Exit", 9, 1],
      // E1's North gate and E2's North gate add up.
      ["North gate", 0, 3],
      ["South gate", 0, 1],
      ["Terrace in", 8, 1],
      ["Terrace out", 7, 1],
      ["VIP lounge", 1, 1],
    ]),
    scanLine("Child", 1, [
      ["North gate", 0, 2],
      ["VIP lounge", 1, 1],
    ]),
    scanLine("Free", 1, [["Main", 0, 1]]),
    // Nine passes at the three children (none at P), three of them scanned.
    scanLine("Pass", 6, [
      ["North gate", 0, 2],
      ["South gate", 0, 1],
    ]),
  ];

  it("adds up every event of the group per type, location and level, whichever member is asked", async () => {
    for (const id of [fx.e1, fx.e2, fx.e3, fx.p]) {
      const body = await scansGroup(id);
      expect(Object.keys(body)).toEqual(["event_group", "tickets"]);
      expect(body, `asked through ${id}`).toStrictEqual({ event_group: fx.group, tickets: groupScans() });
    }
    expect(await expectJson(get(`/admin/events/${fx.e2}/scans/group?_fields=event_group`), 200)).toStrictEqual({ event_group: fx.group });
  });

  it("an event in no group reports itself, with event_group ''", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Solo");
    const { tickets } = await dashboardOrder(event.id, [type.id], { [type.id]: 3 });
    const gate = await key(event.id, 0, "Gate");
    await waitKnown(
      gate,
      tickets.map((t) => t.id),
    );
    await entered(gate, tickets[0]!.id);
    await waitScanRows({ [event.id]: 1 });
    const own = [scanLine("Solo", 2, [["Gate", 0, 1]])];
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: own });
    expect(await scansGroup(event.id)).toStrictEqual({ event_group: "", tickets: own });
  });
});

describe("_embed=sales_totals,scan_totals on GET /admin/events/<id>", () => {
  it("E1: totals over all statuses and over the final ones; valid tickets, scanned or not, and scans by level", async () => {
    const body = await expectJson(get(`/admin/events/${fx.e1}?_embed=sales_totals,scan_totals`), 200);
    expect(Object.keys(body._embedded).sort()).toEqual(["sales_totals", "scan_totals"]);
    expect(body._embedded.sales_totals).toStrictEqual([
      { total_orders: 5, total_amount: 200, total_tickets: 10, final: { total_orders: 3, total_amount: 100, total_tickets: 6 } },
    ]);
    expect(body._embedded.scan_totals).toStrictEqual([
      { tickets: 9, scanned_tickets: 6, unscanned_tickets: 3, total_scans: 11, scans_by_level: { "0": 6, "1": 2, "7": 1, "8": 1, "9": 1 } },
    ]);
    // The totals agree with the reports.
    const report = await sales(fx.e1);
    expect(report.orders.reduce((n: number, l: Json) => n + l.total_orders, 0)).toBe(5);
    const scanReport = await scans(fx.e1);
    expect(scanReport.tickets.reduce((n: number, l: Json) => n + l.scans[0].scan_total, 0)).toBe(3);
    expect(scanReport.tickets.reduce((n: number, l: Json) => n + l.scans.slice(1).reduce((m: number, s: Json) => m + s.scan_total, 0), 0)).toBe(11);
  });

  it("the passe-partout and E3", async () => {
    const p = await expectJson(get(`/admin/events/${fx.p}?_embed=sales_totals,scan_totals`), 200);
    expect(p._embedded).toStrictEqual({
      sales_totals: [{ total_orders: 2, total_amount: 150, total_tickets: 3, final: { total_orders: 2, total_amount: 150, total_tickets: 3 } }],
      // Its orders count at P (three units), their tickets at the children.
      scan_totals: [{ tickets: 0, scanned_tickets: 0, unscanned_tickets: 0, total_scans: 0, scans_by_level: {} }],
    });
    const e3 = await expectJson(get(`/admin/events/${fx.e3}?_embed=sales_totals,scan_totals`), 200);
    expect(e3._embedded).toStrictEqual({
      sales_totals: [{ total_orders: 1, total_amount: 0, total_tickets: 2, final: { total_orders: 1, total_amount: 0, total_tickets: 2 } }],
      scan_totals: [{ tickets: 5, scanned_tickets: 1, unscanned_tickets: 4, total_scans: 1, scans_by_level: { "0": 1 } }],
    });
  });

  it("_links name both as embeddable; _embed alone embeds them with the rest; one name embeds only that one", async () => {
    const plain = await expectJson(get(`/admin/events/${fx.e2}`), 200);
    expect(plain._embedded).toBeUndefined();
    expect(plain._links.sales_totals).toStrictEqual([{ embeddable: true, href: `${BASE}/admin/events/${fx.e2}/sales` }]);
    expect(plain._links.scan_totals).toStrictEqual([{ embeddable: true, href: `${BASE}/admin/events/${fx.e2}/scans` }]);

    const all = await expectJson(get(`/admin/events/${fx.e2}?_embed`), 200);
    expect(Object.keys(all._embedded).sort()).toEqual(["input_fields", "sales_totals", "scan_keys", "scan_totals", "ticket_types"]);
    expect(all._embedded.sales_totals).toStrictEqual([
      { total_orders: 2, total_amount: 90, total_tickets: 3, final: { total_orders: 2, total_amount: 90, total_tickets: 3 } },
    ]);
    expect(all._embedded.scan_totals).toStrictEqual([{ tickets: 6, scanned_tickets: 3, unscanned_tickets: 3, total_scans: 4, scans_by_level: { "0": 3, "1": 1 } }]);

    const one = await expectJson(get(`/admin/events/${fx.e2}?_embed=scan_totals`), 200);
    expect(Object.keys(one._embedded)).toEqual(["scan_totals"]);
  });

  it("an event without orders: zeros", async () => {
    const event = await createEvent({ event_name: unique("Empty ") });
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: [] });
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: [] });
    const body = await expectJson(get(`/admin/events/${event.id}?_embed=sales_totals,scan_totals`), 200);
    expect(body._embedded).toStrictEqual({
      sales_totals: [{ total_orders: 0, total_amount: 0, total_tickets: 0, final: { total_orders: 0, total_amount: 0, total_tickets: 0 } }],
      scan_totals: [{ tickets: 0, scanned_tickets: 0, unscanned_tickets: 0, total_scans: 0, scans_by_level: {} }],
    });
  });
});

describe("what the reports follow", () => {
  it("deleted tickets leave the scan report (sales stay); re-issued ones count unscanned; a deleted order leaves both", async () => {
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Regular", { price: 10 });
    const kept = await dashboardOrder(event.id, [type.id], { [type.id]: 2 });
    const reissued = await dashboardOrder(event.id, [type.id], { [type.id]: 2 });
    const gone = await dashboardOrder(event.id, [type.id], { [type.id]: 1 });
    const gate = await key(event.id, 0, "Gate");
    await waitKnown(
      gate,
      [...kept.tickets, ...reissued.tickets, ...gone.tickets].map((t) => t.id),
    );
    await entered(gate, kept.tickets[0]!.id);
    await entered(gate, reissued.tickets[0]!.id);
    await entered(gate, reissued.tickets[1]!.id);
    await entered(gate, gone.tickets[0]!.id);
    await waitScanRows({ [event.id]: 4 });
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: [scanLine("Regular", 1, [["Gate", 0, 4]])] });
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: [line("dashboard", 3, 50, 5, [["Regular", 5, 3, 50]])] });

    await expectJson(call("DELETE", `/admin/tickets/${reissued.order.id}`), 200);
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: [scanLine("Regular", 1, [["Gate", 0, 2]])] });
    // Tickets are not orders: the sale stands.
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: [line("dashboard", 3, 50, 5, [["Regular", 5, 3, 50]])] });

    await expectJson(call("POST", `/admin/tickets/${reissued.order.id}`), 201);
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: [scanLine("Regular", 3, [["Gate", 0, 2]])] });

    await expectJson(call("DELETE", `/admin/orders/${gone.order.id}`), 200);
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: [scanLine("Regular", 3, [["Gate", 0, 1]])] });
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: [line("dashboard", 2, 40, 4, [["Regular", 4, 2, 40]])] });
  });

  it("amounts are list prices (volume prices included) times the count; cents stay exact", async () => {
    const event = await createOrderEvent();
    const bulk = await createOrderType(event.id, "Bulk", { price: "10.10", volume_price: [{ "5": "8.05" }] });
    const odd = await createOrderType(event.id, "Odd", { price: "0.01" });
    const ids = [bulk.id, odd.id];
    await dashboardOrder(event.id, ids, { [bulk.id]: 5, [odd.id]: 3 });
    await dashboardOrder(event.id, ids, { [bulk.id]: 1 }, { amount: "9.99" });
    await dashboardOrder(event.id, ids, { [odd.id]: 7 });
    expect(await sales(event.id)).toStrictEqual({
      id: event.id,
      orders: [
        // Charged: 40.25 + 0.03, then 9.99 (for 10.10), then 0.07.
        line("dashboard", 3, 50.34, 16, [
          ["Bulk", 6, 2, 50.35],
          ["Odd", 10, 2, 0.1],
        ]),
      ],
    });
  });

  it("confirmation emails: an order awaiting its confirmation is listed but not final; once confirmed it is", async () => {
    const event = await createEvent({
      event_name: unique("RSVP "),
      confirmation_emails_needed: true,
      confirmation_timeout: 30,
      email_confirmation: { subject: "Confirmed", body: "<p>Thanks</p>", redirect: "https://shop.example/confirmed" },
    });
    const type = await createOrderType(event.id, "Guest", { price: 0 });
    const booked = await expectJson(
      call("POST", `/events/${event.id}/orders`, { auth: null, body: { name: "Ann Smith", email: `${unique("rsvp")}@example.com`, tickets: [{ [type.id]: 2 }] } }),
      201,
    );
    expect(booked.payment_status).toBe("booked");
    const unconfirmed = await expectJson(get(`/admin/events/${event.id}?_embed=sales_totals,scan_totals`), 200);
    expect(unconfirmed.sold).toBe(0);
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: [line("booked", 1, 0, 2, [["Guest", 2, 1, 0]])] });
    // Not final yet (nothing sold, no tickets): final counts nothing. (Soft, so that the confirmed half still runs.)
    expect
      .soft(unconfirmed._embedded.sales_totals)
      .toStrictEqual([{ total_orders: 1, total_amount: 0, total_tickets: 2, final: { total_orders: 0, total_amount: 0, total_tickets: 0 } }]);
    expect(unconfirmed._embedded.scan_totals[0].tickets).toBe(0);

    const res = await exports.default.fetch(new Request(await emailedConfirmLink(booked.id), { redirect: "manual" }));
    expect(res.status).toBe(302);
    const confirmed = await expectJson(get(`/admin/events/${event.id}?_embed=sales_totals,scan_totals`), 200);
    expect(confirmed.sold).toBe(2);
    expect(await sales(event.id)).toStrictEqual({ id: event.id, orders: [line("booked - confirmed", 1, 0, 2, [["Guest", 2, 1, 0]])] });
    expect(confirmed._embedded.sales_totals).toStrictEqual([
      { total_orders: 1, total_amount: 0, total_tickets: 2, final: { total_orders: 1, total_amount: 0, total_tickets: 2 } },
    ]);
    expect(confirmed._embedded.scan_totals[0]).toMatchObject({ tickets: 2, unscanned_tickets: 2 });
  });

  it("the type name as the ticket shows it, without the seat", async () => {
    const event = await createOrderEvent({
      seats_needed: true,
      seats: { number_of_seats: 0, seats_format: ", row %s seat %02d", linked_event: 0, seats_config: "C:7-9" },
    });
    const type = await createOrderType(event.id, "Regular");
    const { tickets } = await dashboardOrder(event.id, [type.id], { [type.id]: 2 });
    expect(tickets[0]!.type).toMatch(/^Regular, row C seat 0[789]$/);
    const gate = await key(event.id, 0, "Gate");
    await waitKnown(
      gate,
      tickets.map((t) => t.id),
    );
    await entered(gate, tickets[0]!.id);
    await waitScanRows({ [event.id]: 1 });
    expect(await scans(event.id)).toStrictEqual({ id: event.id, tickets: [scanLine("Regular", 1, [["Gate", 0, 1]])] });
    expect((await sales(event.id)).orders[0].tickets).toStrictEqual([{ ticket_type: "Regular", sold: 2, orders: 1, amount: 20 }]);
  });
});

describe("who may read reports", () => {
  it("an organizer reads its authorised events; the group reports cover only the events it may see", async () => {
    const org = await createUser("organizer", { authorised_events: [fx.e1, fx.e2] });
    const auth = org.credentials;
    expect(await sales(fx.e1, auth)).toStrictEqual(await sales(fx.e1));
    expect(await scans(fx.e2, auth)).toStrictEqual(await scans(fx.e2));
    expect(await salesGroup(fx.e1, auth)).toStrictEqual({
      event_group: fx.group,
      orders: [
        line("canceled", 1, 75, 3, [["Adult", 3, 1, 75]]),
        line("dashboard", 3, 105, 5, [
          ["Adult", 4, 3, 105],
          ["Child", 1, 1, 12.5],
        ]),
        line("open", 1, 25, 1, [["Adult", 1, 1, 25]]),
        line("paid", 2, 85, 4, [
          ["Adult", 2, 1, 60],
          ["Child", 2, 1, 25],
        ]),
      ],
    });
    expect(await scansGroup(fx.e2, auth)).toStrictEqual({
      event_group: fx.group,
      tickets: [
        scanLine("Adult", 2, [
          ["Balcony", 1, 1],
          ["Exit", 9, 1],
          ["North gate", 0, 3],
          ["South gate", 0, 1],
          ["Terrace in", 8, 1],
          ["Terrace out", 7, 1],
          ["VIP lounge", 1, 1],
        ]),
        scanLine("Child", 1, [
          ["North gate", 0, 2],
          ["VIP lounge", 1, 1],
        ]),
        scanLine("Pass", 3, [
          ["North gate", 0, 2],
          ["South gate", 0, 1],
        ]),
      ],
    });
    const embedded = await expectJson(get(`/admin/events/${fx.e1}?_embed=sales_totals`, auth), 200);
    expect(embedded._embedded.sales_totals[0].total_orders).toBe(5);
  });

  it("an organizer asking about an event it may not see: 403 rest_forbidden on every report", async () => {
    const org = await createUser("organizer", { authorised_events: [fx.e1] });
    for (const id of [fx.e3, fx.p, fx.outsider]) {
      for (const path of ["sales", "sales/group", "scans", "scans/group"]) {
        await expectError(get(`/admin/events/${id}/${path}`, org.credentials), 403, "rest_forbidden");
      }
    }
  });

  it("an unknown event is 404 rest_event_invalid_id; an id that cannot be one too", async () => {
    for (const path of ["sales", "sales/group", "scans", "scans/group"]) {
      await expectError(get(`/admin/events/987654321/${path}`), 404, "rest_event_invalid_id");
      await expectError(get(`/admin/events/abc/${path}`), 404, "rest_event_invalid_id");
    }
  });

  it("needs the API key and administrator credentials", async () => {
    for (const path of ["sales", "sales/group", "scans", "scans/group"]) {
      await expectError(call("GET", `/admin/events/${fx.e1}/${path}`, { key: null }), 401, "rest_forbidden_api_key");
      await expectError(call("GET", `/admin/events/${fx.e1}/${path}`, { auth: null }), 401, "rest_not_logged_in");
    }
  });

  it("is read-only: other methods are rest_no_route", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) await expectError(call(method, `/admin/events/${fx.e1}/sales`), 404, "rest_no_route");
  });
});
