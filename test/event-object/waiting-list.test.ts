import { describe, expect, it } from "vitest";
import * as ledger from "../../src/event-object/stock-ledger";
import * as waiting from "../../src/event-object/waiting-list";
import { freshEventObject, inObject, ledgerConfig } from "../helpers/event-ledgers";

/**
 * The waiting list as the event object decides it (src/event-object/waiting-list.ts; decisions.md 15 "Selling like
 * the peers"), called inside a real object on its own storage: offers go to the first entries that fit, hold their
 * units as reservations, survive a rebuild from D1, end (used, expired, deleted) and hand their units on; what D1
 * must learn is sent until acknowledged. How the Worker reaches it is tested over HTTP in
 * test/features/waiting-list/waiting-list.test.ts.
 */

const NOW = 1_900_000_000_000;
const HOUR = 3_600_000;
const config = ledgerConfig({
  stock: 0,
  waitingListHours: 24,
  ticketTypes: [
    { id: "tA", name: "Standing", stockControl: true, stock: 3, isCounted: true },
    { id: "tB", name: "Seated", stockControl: true, stock: 1, isCounted: true },
  ],
});
const info = { orderId: 1, name: "Buyer", email: "buyer@example.com" };

/** Sells every unit of both types to one taken order. */
function sellOut(sql: SqlStorage, uid = "sold-all"): void {
  expect(ledger.reserve(sql, config, { uid, typeUnits: { tA: 3, tB: 1 }, eventUnits: 4, tickets: [] }, NOW + HOUR).ok).toBe(true);
  ledger.take(sql, uid, info);
}

const line = (sql: SqlStorage) => waiting.entries(sql).map((e) => [e.entryId, e.state]);

describe("offers", () => {
  it("go to the first entry that fits, per type, in the order they joined; the rest of what came back is on sale", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      expect(ledger.reserve(sql, config, { uid: "two", typeUnits: { tA: 2 }, eventUnits: 2, tickets: [] }, NOW + HOUR).ok).toBe(true);
      ledger.take(sql, "two", info);
      expect(ledger.reserve(sql, config, { uid: "one", typeUnits: { tA: 1, tB: 1 }, eventUnits: 2, tickets: [] }, NOW + HOUR).ok).toBe(true);
      ledger.take(sql, "one", info);
      for (const [entryId, typeId, units] of [
        [10, "tA", 3],
        [11, "tA", 1],
        [12, "tB", 1],
        [13, "tA", 1],
      ] as const) {
        waiting.enqueue(sql, { entryId, typeId, units });
      }
      // Nothing is free: nothing is offered.
      expect(waiting.offerFree(sql, config, NOW)).toBe(0);
      ledger.release(sql, "two");
      // Two units of tA came back: entry 10 wants three and keeps its place; 11 and 13 get one each.
      const made = waiting.offerFree(sql, config, NOW);
      return { made, line: line(sql), left: ledger.remaining(sql, config), offers: ledger.snapshot(sql).reservations.filter((r) => r.state === "offer") };
    });
    expect(after.made).toBe(2);
    expect(after.line).toEqual([
      [10, "waiting"],
      [11, "offered"],
      [12, "waiting"],
      [13, "offered"],
    ]);
    expect(after.left.types).toEqual({ tA: 0, tB: 0 });
    expect(after.offers).toEqual([
      { uid: "offer:11", typeUnits: { tA: 1 }, eventUnits: 1, state: "offer", deadline: NOW + 24 * HOUR },
      { uid: "offer:13", typeUnits: { tA: 1 }, eventUnits: 1, state: "offer", deadline: NOW + 24 * HOUR },
    ]);
  });

  it("are not made while the event has no waiting list, nor for a type the catalogue no longer has", async () => {
    const made = await inObject(freshEventObject(), (sql) => {
      waiting.enqueue(sql, { entryId: 1, typeId: "tA", units: 1 });
      waiting.enqueue(sql, { entryId: 2, typeId: "gone", units: 1 });
      return [waiting.offerFree(sql, { ...config, waitingListHours: 0 }, NOW), waiting.offerFree(sql, { ...config, ticketTypes: [] }, NOW)];
    });
    expect(made).toEqual([0, 0]);
  });

  it("an entry is put in line once: joining again, in whatever state, changes nothing", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      sellOut(sql);
      waiting.enqueue(sql, { entryId: 5, typeId: "tB", units: 1 });
      ledger.release(sql, "sold-all");
      waiting.offerFree(sql, config, NOW);
      expect(waiting.enqueue(sql, { entryId: 5, typeId: "tB", units: 1 })).toBe(false);
      return line(sql);
    });
    expect(after).toEqual([[5, "offered"]]);
  });
});

describe("an offer's units", () => {
  it("count as free only for an order placed through it; the order ends the offer and what it leaves goes to the next", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      sellOut(sql);
      waiting.enqueue(sql, { entryId: 1, typeId: "tA", units: 2 });
      waiting.enqueue(sql, { entryId: 2, typeId: "tA", units: 1 });
      ledger.release(sql, "sold-all");
      waiting.offerFree(sql, config, NOW);
      // 1 holds two, 2 holds one: nothing on sale.
      const stranger = ledger.reserve(sql, config, { uid: "stranger", typeUnits: { tA: 1 }, eventUnits: 1, tickets: [] }, NOW + HOUR);
      const other = ledger.reserve(sql, config, { uid: "other-offer", typeUnits: { tA: 3 }, eventUnits: 3, tickets: [], offer: 1 }, NOW + HOUR);
      // Entry 1 orders one of its two: the other is free again, and nobody else fits in line.
      const used = ledger.reserve(sql, config, { uid: "through-offer", typeUnits: { tA: 1 }, eventUnits: 1, tickets: [], offer: 1 }, NOW + HOUR);
      if (used.ok && used.offerUsed) waiting.markOrdered(sql, 1, "through-offer");
      waiting.offerFree(sql, config, NOW);
      return { stranger, other, used, line: line(sql), left: ledger.remaining(sql, config).types.tA };
    });
    expect(after.stranger).toEqual({ ok: false, failure: { kind: "type", typeId: "tA", remaining: 0 } });
    // The offer counts for its own two units only: three are more than that.
    expect(after.other).toEqual({ ok: false, failure: { kind: "type", typeId: "tA", remaining: 2 } });
    expect(after.used).toEqual({ ok: true, seats: [], offerUsed: true });
    expect(after.line).toEqual([
      [1, "ordered"],
      [2, "offered"],
    ]);
    expect(after.left).toBe(1);
  });

  it("come back when the offer expires or is deleted, and go to the next in line", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      sellOut(sql);
      for (const entryId of [1, 2, 3]) waiting.enqueue(sql, { entryId, typeId: "tB", units: 1 });
      ledger.release(sql, "sold-all");
      waiting.offerFree(sql, config, NOW);
      const first = line(sql);
      expect(waiting.expireOffers(sql, NOW + 24 * HOUR - 1)).toBe(0);
      expect(waiting.expireOffers(sql, NOW + 24 * HOUR)).toBe(1);
      waiting.offerFree(sql, config, NOW + 24 * HOUR);
      const second = line(sql);
      waiting.dequeue(sql, 2);
      waiting.offerFree(sql, config, NOW + 25 * HOUR);
      return { first, second, third: line(sql) };
    });
    expect(after.first).toEqual([
      [1, "offered"],
      [2, "waiting"],
      [3, "waiting"],
    ]);
    expect(after.second).toEqual([
      [1, "expired"],
      [2, "offered"],
      [3, "waiting"],
    ]);
    expect(after.third).toEqual([
      [1, "expired"],
      [3, "offered"],
    ]);
  });

  it("survive a rebuild from D1 (which knows only orders), still counted", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      sellOut(sql);
      waiting.enqueue(sql, { entryId: 7, typeId: "tB", units: 1 });
      ledger.release(sql, "sold-all");
      waiting.offerFree(sql, config, NOW);
      ledger.rebuild(sql, [{ uid: "d1-order", typeUnits: { tA: 3 }, eventUnits: 3, tickets: [], info, seatIndexes: [] }]);
      return {
        left: ledger.remaining(sql, config).types,
        uids: ledger
          .snapshot(sql)
          .reservations.map((r) => r.uid)
          .sort(),
      };
    });
    expect(after.uids).toEqual(["d1-order", "offer:7"]);
    expect(after.left).toEqual({ tA: 0, tB: 0 });
  });

  it("are never taken as an order's, so no alarm looks them up in D1", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      sellOut(sql);
      waiting.enqueue(sql, { entryId: 9, typeId: "tB", units: 1 });
      ledger.release(sql, "sold-all");
      waiting.offerFree(sql, config, NOW);
      return { taken: ledger.take(sql, "offer:9", info), holds: ledger.expiredHolds(sql, NOW + 48 * HOUR), takes: ledger.dueTakes(sql, NOW + 48 * HOUR) };
    });
    expect(after).toEqual({ taken: false, holds: [], takes: [] });
  });
});

describe("what D1 must learn", () => {
  it("is sent until acknowledged, the latest state of each entry; a later change is due again", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      sellOut(sql);
      waiting.enqueue(sql, { entryId: 1, typeId: "tB", units: 1 });
      expect(waiting.nextSendAt(sql, NOW)).toBeNull();
      ledger.release(sql, "sold-all");
      waiting.offerFree(sql, config, NOW);
      const due = waiting.nextSendAt(sql, NOW);
      const sent = waiting.takeDueUpdates(sql, NOW);
      const again = waiting.takeDueUpdates(sql, NOW + 1_000);
      const resent = waiting.takeDueUpdates(sql, NOW + 30_000);
      // The offer expired before D1 acknowledged it: the acknowledgement of `offered` leaves `expired` due.
      waiting.expireOffers(sql, NOW + 25 * HOUR);
      const acked = waiting.markSynced(sql, [{ entryId: 1, state: "offered" }]);
      const pending = waiting.takeDueUpdates(sql, NOW + 25 * HOUR);
      waiting.markSynced(sql, [{ entryId: 1, state: "expired" }]);
      return { due, sent, again, resent, acked, pending, done: waiting.nextSendAt(sql, NOW + 26 * HOUR) };
    });
    expect(after.due).toBe(NOW + 100);
    expect(after.sent).toEqual([{ entryId: 1, state: "offered", deadline: NOW + 24 * HOUR, orderUid: null }]);
    expect(after.again).toEqual([]);
    expect(after.resent).toHaveLength(1);
    expect(after.acked).toBe(0);
    expect(after.pending).toEqual([{ entryId: 1, state: "expired", deadline: null, orderUid: null }]);
    expect(after.done).toBeNull();
  });
});
