import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectJson } from "../../helpers/api";
import { eventWithOddEmailOrders, ODD_EMAILS } from "../../helpers/odd-email-orders";

/**
 * The order list's deep pages (docs/ordering.md "Order list and search"): a page's ids come from an index before its
 * rows are read. The answers are exactly those of the whole list sorted.
 */

type Json = Record<string, any>;

describe("GET /admin/orders, deep pages", () => {
  it("every page, in every order, holds the rows the whole sorted list holds there", async () => {
    const { eventId, ids } = await eventWithOddEmailOrders();
    const byEmail = [...ids].sort((a, b) => {
      const [x, y] = [ODD_EMAILS[ids.indexOf(a)]!.toLowerCase(), ODD_EMAILS[ids.indexOf(b)]!.toLowerCase()];
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
