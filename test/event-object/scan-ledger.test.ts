import { describe, expect, it } from "vitest";
import type { ScanKeyConfig } from "../../src/event-object/event-config";
import * as scans from "../../src/event-object/scan-ledger";
import * as ledger from "../../src/event-object/stock-ledger";
import { SCAN_ERRORS, type ScanResult } from "../../src/domain/scan-rules";
import { freshEventObject, inObject, ledgerConfig, ledgerTicketId } from "../helpers/event-ledgers";

/**
 * The scan ledger (src/event-object/scan-ledger.ts) called inside a real event object on its own storage, the way
 * pretix's tests/base/test_checkin.py calls perform_checkin (decisions.md 6, 12 "Scans", 13; docs/scanning.md): the
 * answer of each scan and the rows it leaves. Its tickets come from the stock ledger as the object's own calls make
 * them. The level rules alone are tested in test/domain/scan-rules.test.ts, the scan paths over HTTP in
 * test/features/scanning/scans.routes.test.ts.
 */

/** 2026-06-01 18:30:00 UTC; each scan of a test a minute later than the one before. */
const T0 = Date.UTC(2026, 5, 1, 18, 30, 0);
const minute = (n: number) => T0 + n * 60_000;
const shown = (n: number) => `2026-06-01 18:${String(30 + n).padStart(2, "0")}:00`;

const key = (level: number, location: string, tickets: string[] = []): ScanKeyConfig => ({
  key: `key${level}${location.replace(/\W/g, "")}`.padEnd(16, "x").slice(0, 16),
  level,
  tickets,
  dateFormat: "Y-m-d H:i:s",
  location,
});
const ENTRANCE = key(0, "North gate");
const HALL = key(1, "Hall");
const LEAVE = key(7, "Smoking area");
const REENTER = key(8, "Smoking area back");
const EXIT = key(9, "Exit");
const RESET = key(6, "Desk");

const config = ledgerConfig({
  eventName: "Ledger concert",
  reloadOnExit: true,
  ticketTypes: [
    { id: "vreg", name: "Regular", stockControl: false, stock: 0, isCounted: true },
    { id: "vvip", name: "VIP", stockControl: false, stock: 0, isCounted: true },
  ],
  scanKeys: [ENTRANCE, HALL, LEAVE, REENTER, EXIT, RESET],
});
const info = { orderId: 57, name: "Grace Hopper", email: "grace@example.com" };

/** A ticket of type `typeId` held for an order, and, unless `inD1` is false, taken: its order reached D1. */
function ticketOf(sql: SqlStorage, typeId = "vreg", inD1 = true): string {
  const id = ledgerTicketId();
  const uid = `order-${id}`;
  const typeName = typeId === "vvip" ? "VIP" : "Regular";
  ledger.reserve(sql, config, { uid, typeUnits: { [typeId]: 1 }, eventUnits: 1, tickets: [{ id, typeId, typeName }] }, T0 + 90_000);
  if (inD1) ledger.take(sql, uid, info, null);
  return id;
}

/** Scans `ticketId` with `scanKey` at minute `n`; an exit gives a unit back through the stock ledger, as the object does. */
const scanAt = (sql: SqlStorage, scanKey: ScanKeyConfig, ticketId: string, n: number) =>
  scans.scan(sql, config, scanKey, ticketId, minute(n), (uid) => ledger.returnUnit(sql, uid));

type ScanRow = { ticket_id: string; type_id: string; level: number; at: number; location: string; reloaded: number; result: string; synced: number };
const scanRows = (sql: SqlStorage, ticketId: string) =>
  sql.exec<ScanRow>(`SELECT ticket_id, type_id, level, at, location, reloaded, result, synced FROM scans WHERE ticket_id = ? ORDER BY seq`, ticketId).toArray();
const levelsOf = (sql: SqlStorage, ticketId: string) => scanRows(sql, ticketId).map((r) => r.level);

/** The answer for the ticket with `scanKey`, in the spec's field order. */
function answer(ticketId: string, scanKey: ScanKeyConfig, status: boolean, date: string, location: string, error?: string): ScanResult {
  return {
    order_id: 57,
    qrcode: ticketId,
    event: "Ledger concert",
    name: "Grace Hopper",
    email: "grace@example.com",
    level: scanKey.level,
    type: "Regular",
    status,
    date,
    location,
    ...(error === undefined ? {} : { error }),
  };
}

describe("admit", () => {
  it("an entrance is admitted, recorded with its answer and unsynced, and handed back for the outbox", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      const outcome = scanAt(sql, ENTRANCE, id, 0);
      const admitted = answer(id, ENTRANCE, true, shown(0), "North gate");
      expect(outcome.result).toEqual(admitted);
      expect(Object.keys(outcome.result)).toEqual(["order_id", "qrcode", "event", "name", "email", "level", "type", "status", "date", "location"]);
      expect(outcome.recorded).toMatchObject({
        ticketId: id,
        orderId: 57,
        typeId: "vreg",
        typeName: "Regular",
        level: 0,
        at: minute(0),
        location: "North gate",
        reloaded: false,
      });
      expect(scanRows(sql, id)).toEqual([
        { ticket_id: id, type_id: "vreg", level: 0, at: minute(0), location: "North gate", reloaded: 0, result: JSON.stringify(admitted), synced: 0 },
      ]);
    });
  });
});

describe("already scanned", () => {
  it("a second entrance is refused as done with the earlier scan's date and location, and records nothing", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      scanAt(sql, ENTRANCE, id, 0);
      const elsewhere = { ...ENTRANCE, key: "otherentrancekey", location: "South gate" };
      expect(scanAt(sql, elsewhere, id, 1)).toEqual({ result: answer(id, elsewhere, false, shown(0), "North gate", SCAN_ERRORS.done), recorded: null });
      expect(levelsOf(sql, id)).toEqual([0]);
    });
  });

  it("a checkpoint needs an entrance, and is refused as done at its own location with that scan", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      expect(scanAt(sql, HALL, id, 0).result).toEqual(answer(id, HALL, false, "", "", SCAN_ERRORS.noEntrance));
      scanAt(sql, ENTRANCE, id, 1);
      expect(scanAt(sql, HALL, id, 2).result.status).toBe(true);
      expect(scanAt(sql, HALL, id, 3).result).toEqual(answer(id, HALL, false, shown(2), "Hall", SCAN_ERRORS.done));
      expect(levelsOf(sql, id)).toEqual([0, 1]);
    });
  });
});

describe("exit and re-entry levels", () => {
  it("7 and 8 alternate after an entrance; a second 8 names the earlier re-entry; after the exit only a reset succeeds", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      expect(scanAt(sql, LEAVE, id, 0).result).toEqual(answer(id, LEAVE, false, "", "", SCAN_ERRORS.noEntrance));
      scanAt(sql, ENTRANCE, id, 1);
      expect(scanAt(sql, REENTER, id, 2).result).toEqual(answer(id, REENTER, false, "", "", SCAN_ERRORS.back));
      expect(scanAt(sql, LEAVE, id, 3).result.status).toBe(true);
      expect(scanAt(sql, LEAVE, id, 4).result).toEqual(answer(id, LEAVE, false, shown(3), "Smoking area", SCAN_ERRORS.away));
      expect(scanAt(sql, REENTER, id, 5).result.status).toBe(true);
      expect(scanAt(sql, REENTER, id, 6).result).toEqual(answer(id, REENTER, false, shown(5), "Smoking area back", SCAN_ERRORS.back));
      expect(scanAt(sql, ENTRANCE, id, 7).result).toEqual(answer(id, ENTRANCE, false, shown(1), "North gate", SCAN_ERRORS.done));
      const exit = scanAt(sql, EXIT, id, 8);
      expect(exit.result).toEqual(answer(id, EXIT, true, shown(8), "Exit"));
      for (const [n, k] of [ENTRANCE, HALL, LEAVE, REENTER, EXIT].entries()) {
        expect(scanAt(sql, k, id, 9 + n).result).toEqual(answer(id, k, false, shown(8), "Exit", SCAN_ERRORS.left));
      }
      expect(levelsOf(sql, id)).toEqual([0, 7, 8, 9]);
    });
  });

  it("an exit with reload_on_exit_needed gives one unit of the order back, once, and says so in its row", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      expect(ledger.remaining(sql, { ...config, stock: 5 }).event).toBe(4);
      scanAt(sql, ENTRANCE, id, 0);
      expect(scanAt(sql, EXIT, id, 1).recorded).toMatchObject({ level: 9, reloaded: true });
      expect(ledger.remaining(sql, { ...config, stock: 5 }).event).toBe(5);
      expect(scanAt(sql, EXIT, id, 2).recorded).toBeNull();
      expect(ledger.remaining(sql, { ...config, stock: 5 }).event).toBe(5);
      expect(scanRows(sql, id).map((r) => r.reloaded)).toEqual([0, 1]);
    });
  });
});

describe("reset", () => {
  it("is allowed after an exit and clears the history: a checkpoint needs a new entrance, which is admitted", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      scanAt(sql, ENTRANCE, id, 0);
      scanAt(sql, EXIT, id, 1);
      expect(scanAt(sql, RESET, id, 2).result).toEqual(answer(id, RESET, true, shown(2), "Desk"));
      expect(scanAt(sql, HALL, id, 3).result).toEqual(answer(id, HALL, false, "", "", SCAN_ERRORS.noEntrance));
      expect(scanAt(sql, ENTRANCE, id, 4).result).toEqual(answer(id, ENTRANCE, true, shown(4), "North gate"));
      expect(scanAt(sql, ENTRANCE, id, 5).result).toEqual(answer(id, ENTRANCE, false, shown(4), "North gate", SCAN_ERRORS.done));
      // The object keeps every scan (D1 deletes those before the reset); the history shows the reset on.
      expect(levelsOf(sql, id)).toEqual([0, 9, 6, 0]);
      expect(scans.ticketScans(sql, id)).toEqual({
        orderId: 57,
        ticketId: id,
        typeName: "Regular",
        name: "Grace Hopper",
        email: "grace@example.com",
        scans: [
          { level: 6, at: minute(2), location: "Desk" },
          { level: 0, at: minute(4), location: "North gate" },
        ],
      });
    });
  });

  it("a reset with nothing scanned is allowed, and is the history", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      expect(scanAt(sql, RESET, id, 0).result.status).toBe(true);
      expect(scans.ticketScans(sql, id)?.scans).toEqual([{ level: 6, at: minute(0), location: "Desk" }]);
    });
  });
});

describe("the key's type filter", () => {
  it("refuses a ticket of a type the key does not admit, with no date or location, and records nothing", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql, "vreg");
      const vipOnly = key(0, "VIP door", ["VIP"]);
      expect(scanAt(sql, vipOnly, id, 0)).toEqual({ result: answer(id, vipOnly, false, "", "", SCAN_ERRORS.wrongType), recorded: null });
      expect(scanRows(sql, id)).toEqual([]);
      expect(scanAt(sql, vipOnly, ticketOf(sql, "vvip"), 1).result.status).toBe(true);
      expect(scanAt(sql, key(0, "Both doors", ["VIP", "Regular"]), id, 2).result.status).toBe(true);
    });
  });

  it("compares type ids: a key naming the type's new name admits a ticket sold before the rename", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql, "vreg");
      const renamed = { ...config, ticketTypes: config.ticketTypes.map((t) => (t.id === "vreg" ? { ...t, name: "Standard" } : t)) };
      expect(scans.scan(sql, renamed, key(0, "North gate", ["Standard"]), id, minute(0), () => false).result.status).toBe(true);
      expect(scans.scan(sql, renamed, key(1, "Hall", ["Regular"]), id, minute(1), () => false).result.error).toBe(SCAN_ERRORS.wrongType);
    });
  });
});

describe("tickets the object does not hold as valid", () => {
  const unknown = (scanKey: ScanKeyConfig): ScanResult => ({
    order_id: 0,
    qrcode: "",
    event: "Ledger concert",
    name: "",
    email: "",
    level: scanKey.level,
    type: "",
    status: false,
    date: "",
    location: "",
    error: SCAN_ERRORS.notFound,
  });

  it("an unknown ticket keeps every field, empty, with the event's name and the key's level, and records nothing", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ledgerTicketId();
      expect(scanAt(sql, ENTRANCE, id, 0)).toEqual({ result: unknown(ENTRANCE), recorded: null });
      expect(scanAt(sql, RESET, id, 1)).toEqual({ result: unknown(RESET), recorded: null });
      expect(scans.ticketScans(sql, id)).toBeNull();
      expect(sql.exec(`SELECT count(*) AS n FROM scans`).one().n).toBe(0);
    });
  });

  it("a ticket whose order has not reached D1 (held, not taken) is not found until the take", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql, "vreg", false);
      expect(scanAt(sql, ENTRANCE, id, 0)).toEqual({ result: unknown(ENTRANCE), recorded: null });
      expect(scans.ticketScans(sql, id)).toBeNull();
      expect(scanRows(sql, id)).toEqual([]);
      ledger.take(sql, `order-${id}`, info, null);
      expect(scanAt(sql, ENTRANCE, id, 1).result).toEqual(answer(id, ENTRANCE, true, shown(1), "North gate"));
    });
  });

  it("a ticket whose order was released is not found any more", async () => {
    await inObject(freshEventObject(), (sql) => {
      const id = ticketOf(sql);
      scanAt(sql, ENTRANCE, id, 0);
      ledger.release(sql, `order-${id}`);
      expect(scanAt(sql, HALL, id, 1)).toEqual({ result: unknown(HALL), recorded: null });
    });
  });
});
