import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { tickets } from "../../../src/db/schema";
import { formatDateTime } from "../../../src/lib/time";
import { call, createUser, expectError, expectJson, unique } from "../../helpers/api";
import { createInputField, createScanKey, db } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";
import { waitKnown } from "../../helpers/offline-list";

/**
 * The CSV exports (decisions.md 15 "The organiser console", docs/exports.md):
 * `GET /admin/events/<id>/exports/<orders|tickets|scans>.csv`. A small event with hostile names and field answers
 * is exported row by row (exact bytes); authority as every report of the event; 50,000 scans written straight to
 * D1 stream out whole. Storage is shared with other files: every test makes its own events, orders and users.
 */

type Json = Record<string, any>;

const TIMEZONE = "Europe/Amsterdam"; // the test service's TIMEZONE (vitest.config.ts)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Csv {
  res: Response;
  bytes: Uint8Array;
  /** The body after its BOM. */
  text: string;
}

async function exportOf(eventId: number, kind: string, auth?: Json): Promise<Csv> {
  const res = await call("GET", `/admin/events/${eventId}/exports/${kind}.csv`, auth ? { auth: auth as any } : {});
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  // TextDecoder drops a BOM by default: keep it, and check it is there.
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  expect(text.charCodeAt(0), "a UTF-8 BOM first").toBe(0xfeff);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return { res, bytes, text: text.slice(1) };
}

const lines = (...rows: string[]) => rows.map((r) => `${r}\r\n`).join("");

/** Scans reach D1 through the object's alarm and a queue: wait (bounded) until the event has `n` rows. */
async function waitScanRows(eventId: number, n: number): Promise<Json[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { results } = await env.DB.prepare("SELECT * FROM scans WHERE event_id = ? ORDER BY seq").bind(eventId).all<Json>();
    if (results.length === n) return results;
    if (Date.now() > deadline) throw new Error(`${results.length} scan rows, expected ${n}`);
    await sleep(50);
  }
}

describe("CSV exports of an event", () => {
  const fx: Json = {};

  beforeAll(async () => {
    const event = await createOrderEvent({ coupons_needed: true });
    const regular = await createOrderType(event.id, "Regular", { price: 12.5 });
    const vip = await createOrderType(event.id, "=VIP", { price: 40 });
    const company = await createInputField(event.id, { name: "Company" });
    const note = await createInputField(event.id, { name: "@Note" });
    const holder = await createInputField(event.id, { name: "Holder", is_personalised: true });
    const coupon = await expectJson(call("POST", "/admin/coupons", { body: { code: unique("Exp"), type: "percent", amount: 10 } }), 201);
    const types = [regular.id, vip.id];
    // A plain order, then one whose name and answers a spreadsheet would run or split.
    const plain = await placeOrder(
      orderBody(event.id, types, { [regular.id]: 2 }, { name: "Ann Smith", email: "ann@example.com", coupon: coupon.code, fields: { [company.id]: "ACME" } }),
    );
    const hostile = await placeOrder(
      orderBody(
        event.id,
        types,
        { [vip.id]: 1 },
        {
          name: '=HYPERLINK("http://evil.example","x")',
          email: "bo@example.com",
          fields: { [company.id]: '+31 20, "Big" Co\nLtd', [note.id]: "-2+3" },
        },
      ),
    );
    const ticketRows = await db.select().from(tickets).where(eq(tickets.eventId, event.id)).orderBy(tickets.createdAt);
    const ofOrder = (id: number) => ticketRows.filter((t) => t.orderId === id).map((t) => t.id);
    // Personalisation as the holder's form saves it (by field id), written straight to D1 for the fixture.
    const [hostileTicket] = ofOrder(hostile.id);
    await db
      .update(tickets)
      .set({ personalisation: { [holder.id]: "@Bob\tTabs" }, personalisedAt: Math.floor(Date.now() / 1000) })
      .where(eq(tickets.id, hostileTicket!));
    Object.assign(fx, { event, regular, vip, coupon, plain, hostile, plainTickets: ofOrder(plain.id), hostileTicket });
  });

  it("orders.csv: the header, one row per order, money as plain numbers, hostile text made inert", async () => {
    const { res, text } = await exportOf(fx.event.id, "orders");
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="event-${fx.event.id}-orders.csv"`);
    expect(fx.plain.total).toBe(22.5);
    expect(fx.plain.discount).toBe(2.5);
    expect(text).toBe(
      lines(
        "order_id,created_at,payment_status,custom_status,name,email,num_tickets,total,discount,currency,coupon,Company,'@Note",
        `${fx.plain.id},${fx.plain.created_at},dashboard,,Ann Smith,ann@example.com,2,22.50,2.50,EUR,${fx.coupon.code},ACME,`,
        `${fx.hostile.id},${fx.hostile.created_at},dashboard,,"'=HYPERLINK(""http://evil.example"",""x"")",bo@example.com,1,40.00,0.00,EUR,,"'+31 20, ""Big"" Co\nLtd",'-2+3`,
      ),
    );
    // The uid opens the customer's pages: never exported.
    expect(text).not.toContain(fx.plain.uid);
    expect(text).not.toContain(fx.hostile.uid);
  });

  it("tickets.csv: one row per ticket with its order's status, type, price and personalised fields", async () => {
    const { res, text } = await exportOf(fx.event.id, "tickets");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="event-${fx.event.id}-tickets.csv"`);
    const [a, b] = fx.plainTickets;
    const rows = text.split("\r\n");
    expect(rows[0]).toBe("ticket_id,order_id,payment_status,ticket_type,seat,price,currency,name,email,Holder");
    expect(rows.slice(1).sort()).toEqual(
      [
        "",
        `${a},${fx.plain.id},dashboard,Regular,,12.50,EUR,Ann Smith,ann@example.com,`,
        `${b},${fx.plain.id},dashboard,Regular,,12.50,EUR,Ann Smith,ann@example.com,`,
        `${fx.hostileTicket},${fx.hostile.id},dashboard,'=VIP,,40.00,EUR,"'=HYPERLINK(""http://evil.example"",""x"")",bo@example.com,'@Bob\tTabs`,
      ].sort(),
    );
    // In the order they were issued: the plain order's tickets first.
    expect(rows.slice(1, 3).sort()).toEqual([a, b].map((t) => `${t},${fx.plain.id},dashboard,Regular,,12.50,EUR,Ann Smith,ann@example.com,`).sort());
  });

  it("scans.csv: one row per scan, oldest first, with its time in the service's zone", async () => {
    const key = (await createScanKey(fx.event.id, { location: "-Side door", level: 0 })).key as string;
    const ids = [fx.hostileTicket, fx.plainTickets[0]];
    await waitKnown(key, ids);
    for (const id of ids) {
      const result = await expectJson(call("POST", "/scans", { key, auth: null, body: { id } }), 200);
      expect(result, JSON.stringify(result)).toMatchObject({ status: true });
    }
    const stored = await waitScanRows(fx.event.id, 2);
    const { res, text } = await exportOf(fx.event.id, "scans");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="event-${fx.event.id}-scans.csv"`);
    const at = (row: Json) => formatDateTime(Math.floor(row.scanned_at / 1000), TIMEZONE);
    expect(text).toBe(
      lines(
        "scanned_at,ticket_id,order_id,ticket_type,location,level",
        `${at(stored[0]!)},${fx.hostileTicket},${fx.hostile.id},'=VIP,'-Side door,0`,
        `${at(stored[1]!)},${fx.plainTickets[0]},${fx.plain.id},Regular,'-Side door,0`,
      ),
    );
  });

  it("an event without rows: the BOM and the header alone", async () => {
    const event = await createOrderEvent();
    expect((await exportOf(event.id, "orders")).text).toBe(
      lines("order_id,created_at,payment_status,custom_status,name,email,num_tickets,total,discount,currency,coupon"),
    );
    expect((await exportOf(event.id, "tickets")).text).toBe(lines("ticket_id,order_id,payment_status,ticket_type,seat,price,currency,name,email"));
    expect((await exportOf(event.id, "scans")).text).toBe(lines("scanned_at,ticket_id,order_id,ticket_type,location,level"));
  });

  it("authority as every report of the event: its organiser reads it; another's 403, an unknown event 404, no key or login 401", async () => {
    const own = await createUser("organizer", { authorised_events: [fx.event.id] });
    const other = await createOrderEvent();
    const stranger = await createUser("organizer", { authorised_events: [other.id] });
    for (const kind of ["orders", "tickets", "scans"]) {
      const path = `/admin/events/${fx.event.id}/exports/${kind}.csv`;
      expect((await exportOf(fx.event.id, kind, own.credentials)).text.length).toBeGreaterThan(0);
      await expectError(call("GET", path, { auth: stranger.credentials }), 403, "rest_forbidden");
      await expectError(call("GET", `/admin/events/987654321/exports/${kind}.csv`), 404, "rest_event_invalid_id");
      await expectError(call("GET", `/admin/events/abc/exports/${kind}.csv`), 404, "rest_event_invalid_id");
      await expectError(call("GET", path, { key: null }), 401, "rest_forbidden_api_key");
      await expectError(call("GET", path, { auth: null }), 401, "rest_not_logged_in");
    }
    await expectError(call("GET", `/admin/events/${fx.event.id}/exports/users.csv`), 404, "rest_no_route");
    await expectError(call("POST", `/admin/events/${fx.event.id}/exports/orders.csv`), 404, "rest_no_route");
  });

  it("50,000 orders, tickets and scans each stream out whole, in order, page by page, in reasonable time", async () => {
    const event = await createOrderEvent();
    const N = 50_000;
    // Written straight to D1, one statement each (a recursive count), as orders, issuing and the scan queue would.
    const count = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)";
    await env.DB.prepare(
      `${count} INSERT INTO orders (event_id, uid, payment_status, name, email, num_tickets, total_cents, currency, created_at)
       SELECT ?2, lower(hex(randomblob(20))), 'paid', 'Buyer ' || i, 'b' || i || '@example.com', 1, 1250, 'EUR', 1767225600 FROM n`,
    )
      .bind(N, event.id)
      .run();
    await env.DB.prepare(
      `INSERT INTO tickets (id, order_id, event_id, ticket_type_id, ticket_type_name)
       SELECT lower(hex(randomblob(8))), id, event_id, 'type', 'Regular' FROM orders WHERE event_id = ? ORDER BY id`,
    )
      .bind(event.id)
      .run();
    await env.DB.prepare(
      `${count} INSERT INTO scans (event_id, seq, ticket_id, order_id, ticket_type_id, ticket_type, level, location, scanned_at)
       SELECT ?2, i, 'T' || i, i, 'type', 'Regular', 0, 'Gate', 1767225600000 + i * 1000 FROM n`,
    )
      .bind(N, event.id)
      .run();
    const firstOrder = (await env.DB.prepare("SELECT min(id) AS id FROM orders WHERE event_id = ?").bind(event.id).first<{ id: number }>())!.id;
    const expectedFirst: Record<string, RegExp> = {
      orders: new RegExp(`^${firstOrder},2026-01-01 01:00:00,paid,,Buyer 1,b1@example.com,1,12.50,0.00,EUR,$`),
      tickets: new RegExp(`^[0-9a-f]{16},${firstOrder},paid,Regular,,,EUR,Buyer 1,b1@example.com$`),
      scans: new RegExp(`^${formatDateTime(1767225601, TIMEZONE)},T1,1,Regular,Gate,0$`),
    };
    for (const kind of ["orders", "tickets", "scans"]) {
      const started = Date.now();
      const res = await call("GET", `/admin/events/${event.id}/exports/${kind}.csv`);
      expect(res.status).toBe(200);
      // Read as a stream, counting rows as they come (not one buffer).
      const reader = res.body!.pipeThrough(new TextDecoderStream("utf-8", { fatal: true, ignoreBOM: true })).getReader();
      let rows = 0;
      let chunks = 0;
      let tail = "";
      let first = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks++;
        const parts = (tail + value).split("\r\n");
        tail = parts.pop()!;
        if (rows <= 1 && parts.length > 1 - rows) first = parts[1 - rows]!;
        rows += parts.length;
      }
      expect(tail, kind).toBe("");
      expect(rows, kind).toBe(N + 1);
      expect(first, kind).toMatch(expectedFirst[kind]!);
      expect(chunks, `${kind}: written page by page`).toBeGreaterThan(10);
      expect(Date.now() - started, kind).toBeLessThan(30_000);
    }
  }, 180_000);
});
