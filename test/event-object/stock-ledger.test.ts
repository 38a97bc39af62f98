import { describe, expect, it } from "vitest";
import * as ledger from "../../src/event-object/stock-ledger";
import { freshEventObject, inObject, ledgerConfig, ledgerTicketId } from "../helpers/event-ledgers";

/**
 * The stock ledger (src/event-object/stock-ledger.ts) called inside a real event object on its own storage
 * (decisions.md 5.6, 13 "Holds and takes"; docs/stock.md): the answers and the rows they leave. How the Worker reaches
 * it (holds, confirms, the alarm) is tested over HTTP in test/features/ordering/stock.test.ts.
 */

const DEADLINE = 1_900_000_000_000;
const config = ledgerConfig({
  stock: 10,
  ticketTypes: [
    { id: "vlim", name: "Limited", stockControl: true, stock: 3, isCounted: true },
    { id: "vfree", name: "Open", stockControl: false, stock: 0, isCounted: true },
  ],
});
const info = { orderId: 41, name: "Ada Lovelace", email: "ada@example.com" };

type ReservationRow = { uid: string; type_units: string; event_units: number; state: string; deadline: number | null; learn_at: number | null };
type TicketRow = { id: string; uid: string; type_id: string; type_name: string; order_id: number | null; name: string | null; email: string | null };

function rows(sql: SqlStorage) {
  return {
    reservations: sql.exec<ReservationRow>(`SELECT uid, type_units, event_units, state, deadline, learn_at FROM reservations ORDER BY uid`).toArray(),
    totals: sql.exec<{ key: string; units: number }>(`SELECT key, units FROM totals WHERE units <> 0 ORDER BY key`).toArray(),
    tickets: sql.exec<TicketRow>(`SELECT id, uid, type_id, type_name, order_id, name, email FROM tickets ORDER BY id`).toArray(),
    seats: sql.exec<{ seat: number; uid: string }>(`SELECT seat, uid FROM seats ORDER BY seat`).toArray(),
  };
}

const request = (uid: string, typeUnits: Record<string, number>, over: Partial<ledger.ReservationRequest> = {}): ledger.ReservationRequest => ({
  uid,
  typeUnits,
  eventUnits: Object.values(typeUnits).reduce((a, b) => a + b, 0),
  tickets: [],
  ...over,
});

describe("a hold", () => {
  it("within stock is held: the reservation, the running totals and its tickets are written", async () => {
    const object = freshEventObject();
    const ticket = { id: ledgerTicketId(), typeId: "vlim", typeName: "Limited" };
    const after = await inObject(object, (sql) => {
      expect(ledger.reserve(sql, config, request("order-a", { vlim: 2, vfree: 1 }, { tickets: [ticket] }), DEADLINE)).toEqual({ ok: true, seats: [] });
      expect(ledger.remaining(sql, config)).toEqual({ event: 7, types: { vlim: 1, vfree: null } });
      return rows(sql);
    });
    expect(after.reservations).toEqual([
      { uid: "order-a", type_units: JSON.stringify({ vlim: 2, vfree: 1 }), event_units: 3, state: "held", deadline: DEADLINE, learn_at: null },
    ]);
    expect(after.totals).toEqual([
      { key: "event", units: 3 },
      { key: "type:vfree", units: 1 },
      { key: "type:vlim", units: 2 },
    ]);
    // A ticket of a hold knows no order yet: it is not valid for scanning until the take (scan-ledger.ts).
    expect(after.tickets).toEqual([{ id: ticket.id, uid: "order-a", type_id: "vlim", type_name: "Limited", order_id: null, name: null, email: null }]);
  });

  it("a final order's hold notes when to look it up in D1", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-final", { vlim: 1 }, { final: true }), DEADLINE, DEADLINE - 89_750);
      return { rows: rows(sql), toLearn: ledger.holdsToLearn(sql, DEADLINE), nextLearnAt: ledger.nextLearnAt(sql) };
    });
    expect(after.rows.reservations[0]).toMatchObject({ state: "held", learn_at: DEADLINE - 89_750 });
    expect(after.toLearn).toEqual(["order-final"]);
    expect(after.nextLearnAt).toBe(DEADLINE - 89_750);
  });

  it("asked again for the same order (a retry) answers success once more and counts nothing twice", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      expect(ledger.reserve(sql, config, request("order-a", { vlim: 2 }), DEADLINE).ok).toBe(true);
      expect(ledger.reserve(sql, config, request("order-a", { vlim: 2 }), DEADLINE + 5)).toEqual({ ok: true, seats: [] });
      return rows(sql);
    });
    expect(after.reservations).toHaveLength(1);
    expect(after.reservations[0]!.deadline).toBe(DEADLINE);
    expect(after.totals).toEqual([
      { key: "event", units: 2 },
      { key: "type:vlim", units: 2 },
    ]);
  });
});

describe("over stock", () => {
  it("a ticket type's limit refuses, naming the type and what is left, and writes nothing", async () => {
    await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-a", { vlim: 2 }), DEADLINE);
      const before = rows(sql);
      expect(
        ledger.reserve(sql, config, request("order-b", { vlim: 2 }, { tickets: [{ id: ledgerTicketId(), typeId: "vlim", typeName: "Limited" }] }), DEADLINE),
      ).toEqual({
        ok: false,
        failure: { kind: "type", typeId: "vlim", remaining: 1 },
      });
      expect(rows(sql)).toEqual(before);
      // Exactly what is left still fits.
      expect(ledger.reserve(sql, config, request("order-c", { vlim: 1 }), DEADLINE).ok).toBe(true);
      expect(ledger.reserve(sql, config, request("order-d", { vlim: 1 }), DEADLINE)).toEqual({ ok: false, failure: { kind: "type", typeId: "vlim", remaining: 0 } });
    });
  });

  it("the event's limit refuses after the types allowed it; a type without stock control is never refused by its own", async () => {
    await inObject(freshEventObject(), (sql) => {
      expect(ledger.reserve(sql, config, request("order-a", { vfree: 9 }), DEADLINE).ok).toBe(true);
      const before = rows(sql);
      expect(ledger.reserve(sql, config, request("order-b", { vfree: 2 }), DEADLINE)).toEqual({ ok: false, failure: { kind: "event", remaining: 1 } });
      expect(rows(sql)).toEqual(before);
      expect(ledger.remaining(sql, config)).toEqual({ event: 1, types: { vlim: 3, vfree: null } });
    });
  });

  it("a type the object's catalogue does not know answers stale (the Worker pushes the catalogue and asks again)", async () => {
    await inObject(freshEventObject(), (sql) => {
      expect(ledger.reserve(sql, config, request("order-a", { vnew: 1 }), DEADLINE)).toEqual({ ok: false, failure: { kind: "stale" } });
      expect(rows(sql).reservations).toEqual([]);
    });
  });
});

describe("release", () => {
  it("gives the units back and forgets the order's tickets; releasing again changes nothing", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-a", { vlim: 3 }, { tickets: [{ id: ledgerTicketId(), typeId: "vlim", typeName: "Limited" }] }), DEADLINE);
      ledger.reserve(sql, config, request("order-b", { vfree: 1 }), DEADLINE);
      expect(ledger.reserve(sql, config, request("order-c", { vlim: 1 }), DEADLINE).ok).toBe(false);
      expect(ledger.release(sql, "order-a")).toBe(true);
      expect(ledger.release(sql, "order-a")).toBe(false);
      expect(ledger.release(sql, "no-such-order")).toBe(false);
      expect(ledger.remaining(sql, config)).toEqual({ event: 9, types: { vlim: 3, vfree: null } });
      expect(ledger.reserve(sql, config, request("order-c", { vlim: 3 }), DEADLINE).ok).toBe(true);
      return rows(sql);
    });
    expect(after.reservations.map((r) => r.uid)).toEqual(["order-b", "order-c"]);
    expect(after.tickets).toEqual([]);
  });

  it("of a taken order gives its units back too (cancelled, refunded, deleted)", async () => {
    await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-a", { vlim: 3 }), DEADLINE);
      ledger.take(sql, "order-a", info, null);
      expect(ledger.release(sql, "order-a")).toBe(true);
      expect(ledger.remaining(sql, config)).toEqual({ event: 10, types: { vlim: 3, vfree: null } });
      expect(rows(sql).reservations).toEqual([]);
    });
  });
});

describe("take: the order reached D1", () => {
  it("a final order's hold becomes a take without deadline, and its tickets learn their order", async () => {
    const ticket = { id: ledgerTicketId(), typeId: "vlim", typeName: "Limited" };
    const after = await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-a", { vlim: 1 }, { tickets: [ticket], final: true }), DEADLINE, DEADLINE - 89_750);
      expect(ledger.take(sql, "order-a", info, null)).toBe(true);
      return { rows: rows(sql), expired: ledger.expiredHolds(sql, DEADLINE + 1), toLearn: ledger.holdsToLearn(sql, DEADLINE + 1) };
    });
    expect(after.rows.reservations).toEqual([
      { uid: "order-a", type_units: JSON.stringify({ vlim: 1 }), event_units: 1, state: "taken", deadline: null, learn_at: null },
    ]);
    expect(after.rows.tickets).toEqual([
      { id: ticket.id, uid: "order-a", type_id: "vlim", type_name: "Limited", order_id: 41, name: "Ada Lovelace", email: "ada@example.com" },
    ]);
    // A take is no hold: neither expired nor to be looked up, and it still counts against stock.
    expect(after.expired).toEqual([]);
    expect(after.toLearn).toEqual([]);
    expect(after.rows.totals).toEqual([
      { key: "event", units: 1 },
      { key: "type:vlim", units: 1 },
    ]);
  });

  it("an open order's take keeps its payment deadline, when it is due for expiry", async () => {
    await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-open", { vlim: 1 }), DEADLINE);
      expect(ledger.take(sql, "order-open", info, DEADLINE + 600_000)).toBe(true);
      expect(ledger.dueTakes(sql, DEADLINE + 599_999)).toEqual([]);
      expect(ledger.dueTakes(sql, DEADLINE + 600_000)).toEqual(["order-open"]);
      expect(ledger.nextDeadline(sql)).toBe(DEADLINE + 600_000);
    });
  });

  it("of an order the object holds nothing for answers false and writes nothing", async () => {
    await inObject(freshEventObject(), (sql) => {
      expect(ledger.take(sql, "never-held", info, null)).toBe(false);
      expect(rows(sql)).toEqual({ reservations: [], totals: [], tickets: [], seats: [] });
    });
  });
});

describe("a unit given back by a reloading exit (returnUnit)", () => {
  it("gives one event unit back per call while the order has any, and a later release gives back only the rest", async () => {
    await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, config, request("order-a", { vfree: 2 }), DEADLINE);
      ledger.take(sql, "order-a", info, null);
      expect(ledger.returnUnit(sql, "order-a")).toBe(true);
      expect(ledger.remaining(sql, config).event).toBe(9);
      expect(ledger.returnUnit(sql, "order-a")).toBe(true);
      expect(ledger.returnUnit(sql, "order-a")).toBe(false);
      expect(ledger.remaining(sql, config).event).toBe(10);
      expect(rows(sql).reservations[0]!.event_units).toBe(0);
      expect(ledger.release(sql, "order-a")).toBe(true);
      expect(ledger.remaining(sql, config).event).toBe(10);
      expect(ledger.returnUnit(sql, "no-such-order")).toBe(false);
    });
  });
});

describe("seats", () => {
  const seated = ledgerConfig({
    seatRanges: [
      { row: "A", from: 1, to: 2 },
      { row: "B", from: 10, to: 9 },
    ],
    seatCount: 4,
    ticketTypes: [{ id: "vseat", name: "Seated", stockControl: false, stock: 0, isCounted: true }],
  });

  it("a seat is held once: the lowest free plan positions, none twice, and a full plan refuses", async () => {
    const after = await inObject(freshEventObject(), (sql) => {
      expect(ledger.reserve(sql, seated, request("order-a", { vseat: 3 }, { seats: 3 }), DEADLINE)).toEqual({
        ok: true,
        seats: [
          { index: 0, row: "A", number: 1 },
          { index: 1, row: "A", number: 2 },
          { index: 2, row: "B", number: 10 },
        ],
      });
      const before = rows(sql);
      expect(ledger.reserve(sql, seated, request("order-b", { vseat: 2 }, { seats: 2 }), DEADLINE)).toEqual({ ok: false, failure: { kind: "seats" } });
      expect(rows(sql)).toEqual(before);
      expect(ledger.reserve(sql, seated, request("order-c", { vseat: 1 }, { seats: 1 }), DEADLINE)).toEqual({ ok: true, seats: [{ index: 3, row: "B", number: 9 }] });
      return rows(sql);
    });
    expect(after.seats).toEqual([
      { seat: 0, uid: "order-a" },
      { seat: 1, uid: "order-a" },
      { seat: 2, uid: "order-a" },
      { seat: 3, uid: "order-c" },
    ]);
  });

  it("a retry answers the seats already held; a release frees them for the next order, lowest first", async () => {
    await inObject(freshEventObject(), (sql) => {
      ledger.reserve(sql, seated, request("order-a", { vseat: 2 }, { seats: 2 }), DEADLINE);
      ledger.reserve(sql, seated, request("order-b", { vseat: 1 }, { seats: 1 }), DEADLINE);
      expect(ledger.reserve(sql, seated, request("order-a", { vseat: 2 }, { seats: 2 }), DEADLINE)).toEqual({
        ok: true,
        seats: [
          { index: 0, row: "A", number: 1 },
          { index: 1, row: "A", number: 2 },
        ],
      });
      ledger.release(sql, "order-a");
      expect(ledger.reserve(sql, seated, request("order-c", { vseat: 3 }, { seats: 3 }), DEADLINE)).toEqual({
        ok: true,
        seats: [
          { index: 0, row: "A", number: 1 },
          { index: 1, row: "A", number: 2 },
          { index: 3, row: "B", number: 9 },
        ],
      });
      expect(rows(sql).seats.map((s) => s.uid)).toEqual(["order-c", "order-c", "order-b", "order-c"]);
    });
  });
});
