import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectJson, unique } from "../../helpers/api";
import { eventWithOddEmailOrders, ODD_EMAILS } from "../../helpers/odd-email-orders";

/**
 * The order list's search (docs/ordering.md "Order list and search"): `search` is a case-insensitive substring of the
 * email (decisions.md 13), found through the trigram index of migration 0025 from 3 characters on and by reading
 * every order's email below that. The answers are exactly those of a substring test over every order.
 */

type Json = Record<string, any>;

async function search(eventId: number, needle: string): Promise<{ ids: number[]; total: string | null }> {
  const res = await call("GET", `/admin/orders?event_id=${eventId}&per_page=100&search=${encodeURIComponent(needle)}`);
  const body = await expectJson<Json[]>(res, 200);
  return { ids: body.map((o) => o.id as number), total: res.headers.get("X-WP-Total") };
}

describe("GET /admin/orders?search=", () => {
  it("answers exactly what a case-insensitive substring test answers, at every length", async () => {
    const { eventId, ids } = await eventWithOddEmailOrders();
    const needles = new Set<string>(["", "x", "zz", "nobody@nowhere", '"', '""', "*", "%", "_", "NEAR", "AND", "OR", "NOT", "(", ")", ":", "^", "a\u0000b", "aaaa"]);
    for (const email of ODD_EMAILS) {
      const chars = [...email];
      for (let length = 1; length <= 5; length++) {
        for (let start = 0; start + length <= chars.length; start += 3) needles.add(chars.slice(start, start + length).join(""));
      }
      needles.add(email);
      needles.add(email.toUpperCase());
      // Its start and its end run together: every piece of it is in the email, the whole is not (the index is asked
      // for the pieces; the email itself decides).
      needles.add(chars.slice(0, 4).join("") + chars.slice(-5).join(""));
      needles.add(`${email}!`);
    }
    for (const needle of needles) {
      const wanted = ids.filter((_, i) => ODD_EMAILS[i]!.toLowerCase().includes(needle.toLowerCase()));
      const found = await search(eventId, needle);
      expect(found.ids, `search ${JSON.stringify(needle)}`).toEqual(needle === "" ? ids : wanted);
      expect(found.total, `search ${JSON.stringify(needle)}`).toBe(String(needle === "" ? ids.length : wanted.length));
    }
  });

  it("follows an order's new email, and forgets a deleted order", async () => {
    const { eventId, ids } = await eventWithOddEmailOrders();
    const tag = unique("moved").toLowerCase();
    await expectJson(call("PUT", `/admin/orders/${ids[0]}`, { body: { email: `${tag}@Example.com` } }), 200);
    expect((await search(eventId, tag)).ids).toEqual([ids[0]]);
    expect((await search(eventId, "ann.smith")).ids).toEqual([]);
    await expectJson(call("DELETE", `/admin/orders/${ids[0]}`), 200);
    expect((await search(eventId, tag)).ids).toEqual([]);
    expect((await search(eventId, "example")).total).toBe("6");
  });

  it("looks a search of 3 or more characters up in the trigram index (local D1's query plan)", async () => {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN SELECT id FROM orders WHERE id IN (SELECT rowid FROM orders_search WHERE orders_search MATCH '"abc"')`).all<{
      detail: string;
    }>();
    expect(plan.results.map((r) => r.detail).join("; ")).toContain("orders_search VIRTUAL TABLE");
  });
});
