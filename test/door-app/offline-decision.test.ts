import { describe, expect, it } from "vitest";
import { SCAN_ERRORS, type ScanRecord } from "../../src/domain/scan-rules";
import type { KeyConfig, ListEntry } from "../../src/door-app/door-types";
import { decideOffline } from "../../src/door-app/offline-decision";

/**
 * The door app's offline decision (docs/door-app.md): what it adds to the event object's decision, which it shares
 * (`decideTicketScan` in src/domain/scan-rules.ts, tested in test/domain/scan-rules.test.ts): the kept list, and the
 * key's type filter and the phone's own scans handed to that decision (whose trim to the last reset they check here
 * through the door's own types).
 */

const key = (over: Partial<KeyConfig> = {}): KeyConfig => ({
  event_id: 7,
  event_name: "Concert",
  level: 0,
  location: "North gate",
  date_format: "Y-m-d H:i:s",
  tickets: "",
  ticket_type_ids: null,
  ...over,
});
const ticket: ListEntry = { ticket_id: "AAAAAAAAAAAAAAAA", order_id: 3, ticket_type: "General, row 4", ticket_type_id: "v11", name: "Ada" };
const scan = (level: number, at: number, location = "North gate"): ScanRecord => ({ level, at, location });

describe("decideOffline", () => {
  it("admits a listed ticket the phone has not scanned", () => {
    expect(decideOffline(key(), ticket, [])).toEqual({ admitted: true, ticket });
  });

  it("refuses a ticket the kept list lacks as not found", () => {
    expect(decideOffline(key(), null, [])).toEqual({ admitted: false, ticket: null, error: SCAN_ERRORS.notFound, earlier: null });
  });

  it("applies the key's ticket types, by id (the list's type text carries the seat)", () => {
    expect(decideOffline(key({ ticket_type_ids: ["v12"] }), ticket, [])).toEqual({ admitted: false, ticket, error: SCAN_ERRORS.wrongType, earlier: null });
    expect(decideOffline(key({ ticket_type_ids: ["v12", "v11"] }), ticket, []).admitted).toBe(true);
    expect(decideOffline(key({ ticket_type_ids: ["v11"] }), ticket, []).admitted).toBe(true);
    expect(decideOffline(key({ ticket_type_ids: [] }), ticket, []).admitted).toBe(false);
  });

  it("refuses a second entrance with the earlier scan, as the event object does", () => {
    const earlier = scan(0, 1000);
    expect(decideOffline(key(), ticket, [earlier])).toEqual({ admitted: false, ticket, error: SCAN_ERRORS.done, earlier });
  });

  it("counts only the scans since the last reset", () => {
    expect(decideOffline(key(), ticket, [scan(0, 1000), scan(6, 2000)]).admitted).toBe(true);
    expect(decideOffline(key(), ticket, [scan(0, 1000), scan(6, 2000), scan(0, 3000)]).admitted).toBe(false);
    expect(decideOffline(key({ level: 8 }), ticket, [scan(0, 1000), scan(7, 2000), scan(6, 3000)])).toMatchObject({ admitted: false, error: SCAN_ERRORS.noEntrance });
  });
});
