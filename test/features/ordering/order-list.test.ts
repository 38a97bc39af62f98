import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orders } from "../../../src/db/schema";
import { call, expectJson, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";

/**
 * The order list's deep pages (issue 21): a page's ids come from an index before its rows are read. The answers are
 * exactly those of the whole list sorted.
 */

type Json = Record<string, any>;

const EMAILS = [
  "Ann.Smith@Example.com",
  "ann.o'hara@example.org",
  'say."hi"@example.net',
  "bob_x%y*z@mail.example",
  "aaa-aaa@aa.example",
  "zoë.müller@example.de",
  "ÇA.VA@EXEMPLE.FR",
  "日本語メール@例え.jp",
  "near.and.or@not.example",
];

async function eventWithOrders(): Promise<{ eventId: number; ids: number[] }> {
  const event = await createEvent({ event_name: unique("Search "), add_dashboard_orders_needed: true });
  await createTicketType(event.id, { name: "Regular", price: 10 });
  const ids: number[] = [];
  for (const email of EMAILS) {
    // Written directly: some of these are no valid email for the order routes, which is beside the point here.
    const [row] = await db
      .insert(orders)
      .values({
        eventId: event.id,
        uid: crypto.randomUUID().replace(/-/g, "").padEnd(40, "0"),
        paymentStatus: "dashboard",
        name: "Searched",
        email,
        emailKey: email.toLowerCase(),
        createdAt: Math.floor(Date.now() / 1000),
      })
      .returning({ id: orders.id });
    ids.push(row!.id);
  }
  return { eventId: event.id, ids };
}

describe("GET /admin/orders, deep pages", () => {
  it("every page, in every order, holds the rows the whole sorted list holds there", async () => {
    const { eventId, ids } = await eventWithOrders();
    const byEmail = [...ids].sort((a, b) => {
      const [x, y] = [EMAILS[ids.indexOf(a)]!.toLowerCase(), EMAILS[ids.indexOf(b)]!.toLowerCase()];
      return x < y ? -1 : x > y ? 1 : a - b;
    });
    const orders: Record<string, number[]> = { id: ids, event_id: ids, email: byEmail };
    for (const [orderby, asc] of Object.entries(orders)) {
      for (const order of ["asc", "desc"]) {
        const all = order === "asc" ? asc : [...asc].reverse();
        for (let offset = 0; offset < all.length; offset += 4) {
          const res = await call("GET", `/admin/orders?event_id=${eventId}&orderby=${orderby}&order=${order}&per_page=4&offset=${offset}`);
          const page = (await expectJson<Json[]>(res, 200)).map((o) => o.id);
          expect(page, `${orderby} ${order} from ${offset}`).toEqual(all.slice(offset, offset + 4));
          expect(res.headers.get("X-WP-Total")).toBe(String(all.length));
        }
      }
    }
  });

  it("finds a page's ids in an index, not by reading every order (local D1's query plan)", async () => {
    const plan = async (query: string) => (await env.DB.prepare(`EXPLAIN QUERY PLAN ${query}`).all<{ detail: string }>()).results.map((r) => r.detail).join("; ");
    expect(await plan("SELECT id FROM orders ORDER BY id DESC LIMIT 10 OFFSET 5000")).toContain("COVERING INDEX orders_id");
    expect(await plan("SELECT id FROM orders WHERE event_id = 1 ORDER BY id LIMIT 10 OFFSET 5000")).toContain("COVERING INDEX orders_event");
    expect(await plan("SELECT id FROM orders ORDER BY email_key, id LIMIT 10 OFFSET 5000")).toContain("COVERING INDEX orders_email_key");
  });
});
