import { describe, expect, it } from "vitest";
import { admittedTypeIds, decideScan, decideTicketScan, SCAN_ERRORS, type ScanKeyRule, type ScanRecord, sinceLastReset } from "../../src/domain/scan-rules";

/**
 * The scan levels as one pure decision (decisions.md 6, 12 "Scans", 13 "Tickets, scans, messages"): `decideScan`
 * over a ticket's scans since its last reset, oldest first. 0 entrance once; 1 checkpoint after an entrance, once
 * per location; 7 / 8 leave and re-enter, alternating, after an entrance; 9 exit, after which only a reset
 * succeeds; 6 reset, always allowed. And which ticket types a key's filter admits (`admittedTypeIds`), and the one
 * decision over a ticket's whole history that the event object and the door app both make (`decideTicketScan`).
 */

let clock = 1_800_000_000_000;
/** A scan record at a fresh instant (so that records are told apart by their time as well as their level). */
function at(level: number, location = `L${level}`): ScanRecord {
  clock += 1000;
  return { level, at: clock, location };
}

const OK = { ok: true };
const refused = (error: string, earlier: ScanRecord | null) => ({ ok: false, error, earlier });

describe("the error texts", () => {
  it("are exactly the texts of decisions.md section 6", () => {
    expect(SCAN_ERRORS).toEqual({
      notFound: "Ticket not found",
      wrongType: "Invalid ticket for this entrance",
      noEntrance: "No entrance scan performed",
      left: "Ticket already left the event",
      done: "This scan has already been done",
      away: "Ticket already temporarily left the event",
      back: "Ticket already re-entered the event",
    });
  });
});

describe("level 0: entrance, once", () => {
  it("succeeds on a ticket never scanned", () => {
    expect(decideScan([], 0, "Door A")).toEqual(OK);
  });

  it("a second entrance at the same location is refused as done, naming the first", () => {
    const entrance = at(0, "Door A");
    expect(decideScan([entrance], 0, "Door A")).toEqual(refused(SCAN_ERRORS.done, entrance));
  });

  it("a second entrance at another location is refused too, naming the first entrance", () => {
    const entrance = at(0, "Door A");
    expect(decideScan([entrance], 0, "Door B")).toEqual(refused(SCAN_ERRORS.done, entrance));
  });

  it("after checkpoints the entrance named is still the entrance", () => {
    const entrance = at(0, "Door A");
    expect(decideScan([entrance, at(1, "Hall"), at(1, "Stage")], 0, "Door A")).toEqual(refused(SCAN_ERRORS.done, entrance));
  });

  it("after a temporary leave (7) is refused as done", () => {
    const entrance = at(0, "Door A");
    expect(decideScan([entrance, at(7)], 0, "Door A")).toEqual(refused(SCAN_ERRORS.done, entrance));
  });

  it("after a re-entry (7, 8) is refused as done", () => {
    const entrance = at(0, "Door A");
    expect(decideScan([entrance, at(7), at(8)], 0, "Door B")).toEqual(refused(SCAN_ERRORS.done, entrance));
  });
});

describe("level 1: checkpoint, after an entrance, once per location", () => {
  it("without an entrance: no entrance scan performed, nothing earlier named", () => {
    expect(decideScan([], 1, "Hall")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
  });

  it("succeeds after an entrance", () => {
    expect(decideScan([at(0)], 1, "Hall")).toEqual(OK);
  });

  it("a repeat at the same location is refused as done, naming that checkpoint scan", () => {
    const hall = at(1, "Hall");
    expect(decideScan([at(0), hall], 1, "Hall")).toEqual(refused(SCAN_ERRORS.done, hall));
  });

  it("succeeds at another location after a checkpoint elsewhere", () => {
    expect(decideScan([at(0), at(1, "Hall")], 1, "Stage")).toEqual(OK);
  });

  it("with checkpoints at several locations, a repeat names the scan of its own location", () => {
    const hall = at(1, "Hall");
    const stage = at(1, "Stage");
    expect(decideScan([at(0), hall, stage], 1, "Stage")).toEqual(refused(SCAN_ERRORS.done, stage));
    expect(decideScan([at(0), hall, stage], 1, "Hall")).toEqual(refused(SCAN_ERRORS.done, hall));
    expect(decideScan([at(0), hall, stage], 1, "Bar")).toEqual(OK);
  });

  it("location comparison is exact (case-sensitive)", () => {
    expect(decideScan([at(0), at(1, "Hall")], 1, "hall")).toEqual(OK);
  });

  it("succeeds while the ticket is temporarily away and after re-entry", () => {
    expect(decideScan([at(0), at(7)], 1, "Hall")).toEqual(OK);
    expect(decideScan([at(0), at(7), at(8)], 1, "Hall")).toEqual(OK);
  });

  it("an entrance scan at the checkpoint's location does not count as a checkpoint scan there", () => {
    expect(decideScan([at(0, "Hall")], 1, "Hall")).toEqual(OK);
  });
});

describe("level 7: leave temporarily, after an entrance", () => {
  it("without an entrance: no entrance scan performed", () => {
    expect(decideScan([], 7, "Gate")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
  });

  it("succeeds after an entrance", () => {
    expect(decideScan([at(0)], 7, "Gate")).toEqual(OK);
  });

  it("twice in a row: already temporarily left, naming the earlier leave", () => {
    const away = at(7, "Gate");
    expect(decideScan([at(0), away], 7, "Gate")).toEqual(refused(SCAN_ERRORS.away, away));
    expect(decideScan([at(0), away], 7, "Other gate")).toEqual(refused(SCAN_ERRORS.away, away));
  });

  it("a checkpoint in between does not end the leave", () => {
    const away = at(7, "Gate");
    expect(decideScan([at(0), away, at(1, "Hall")], 7, "Gate")).toEqual(refused(SCAN_ERRORS.away, away));
  });

  it("succeeds again after a re-entry", () => {
    expect(decideScan([at(0), at(7), at(8)], 7, "Gate")).toEqual(OK);
  });

  it("names the latest leave after several rounds", () => {
    const last = at(7, "Back gate");
    expect(decideScan([at(0), at(7), at(8), last], 7, "Gate")).toEqual(refused(SCAN_ERRORS.away, last));
  });
});

describe("level 8: re-enter, after a temporary leave", () => {
  it("without an entrance: no entrance scan performed", () => {
    expect(decideScan([], 8, "Gate")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
  });

  it("after an entrance without a leave: already re-entered, nothing earlier named", () => {
    expect(decideScan([at(0)], 8, "Gate")).toEqual(refused(SCAN_ERRORS.back, null));
  });

  it("succeeds after a leave", () => {
    expect(decideScan([at(0), at(7)], 8, "Gate")).toEqual(OK);
  });

  it("twice in a row: already re-entered, naming the earlier re-entry", () => {
    const back = at(8, "Gate");
    expect(decideScan([at(0), at(7), back], 8, "Gate")).toEqual(refused(SCAN_ERRORS.back, back));
  });

  it("alternates over several rounds", () => {
    const history: ScanRecord[] = [at(0)];
    for (let round = 0; round < 3; round++) {
      expect(decideScan(history, 7, "Gate")).toEqual(OK);
      history.push(at(7, "Gate"));
      expect(decideScan(history, 8, "Gate")).toEqual(OK);
      history.push(at(8, "Gate"));
    }
  });
});

describe("level 9: exit, after an entrance, then nothing but a reset", () => {
  it("without an entrance: no entrance scan performed", () => {
    expect(decideScan([], 9, "Exit")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
  });

  it("succeeds after an entrance", () => {
    expect(decideScan([at(0)], 9, "Exit")).toEqual(OK);
  });

  it("succeeds while temporarily away and after checkpoints and a re-entry", () => {
    expect(decideScan([at(0), at(7)], 9, "Exit")).toEqual(OK);
    expect(decideScan([at(0), at(1), at(7), at(8)], 9, "Exit")).toEqual(OK);
  });

  it.each([0, 1, 7, 8, 9])("after an exit, level %i: already left, naming the exit", (level) => {
    const exit = at(9, "Exit");
    expect(decideScan([at(0), exit], level, "Anywhere")).toEqual(refused(SCAN_ERRORS.left, exit));
  });

  it("after an exit, the exit text wins over the other refusals (level 1 at a scanned location, 7 after 7)", () => {
    const exit = at(9, "Exit");
    expect(decideScan([at(0), at(1, "Hall"), exit], 1, "Hall")).toEqual(refused(SCAN_ERRORS.left, exit));
    expect(decideScan([at(0), at(7), exit], 7, "Gate")).toEqual(refused(SCAN_ERRORS.left, exit));
  });
});

describe("level 6: reset, always allowed", () => {
  it.each([
    ["never scanned", []],
    ["entered", [0]],
    ["at a checkpoint", [0, 1]],
    ["temporarily away", [0, 7]],
    ["re-entered", [0, 7, 8]],
    ["exited", [0, 9]],
    ["reset already", [6]],
  ])("succeeds when the ticket is %s", (_label, levels) => {
    expect(
      decideScan(
        levels.map((l) => at(l)),
        6,
        "Desk",
      ),
    ).toEqual(OK);
  });

  it("a history that starts with the reset (the ledger's 'since the last reset') behaves as an empty one", () => {
    const reset = [at(6, "Desk")];
    expect(decideScan(reset, 0, "Door A")).toEqual(OK);
    expect(decideScan(reset, 1, "Hall")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
    expect(decideScan(reset, 7, "Gate")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
    expect(decideScan(reset, 8, "Gate")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
    expect(decideScan(reset, 9, "Exit")).toEqual(refused(SCAN_ERRORS.noEntrance, null));
  });

  it("after a reset and a new entrance, the new entrance is the one named", () => {
    const entrance = at(0, "Door B");
    expect(decideScan([at(6), entrance], 0, "Door A")).toEqual(refused(SCAN_ERRORS.done, entrance));
  });
});

describe("purity", () => {
  it("does not change the history it is given", () => {
    const history = [at(0), at(7)];
    const copy = structuredClone(history);
    decideScan(history, 8, "Gate");
    decideScan(history, 6, "Desk");
    decideScan(history, 9, "Exit");
    expect(history).toEqual(copy);
  });
});

describe("admittedTypeIds: the ticket types a key's filter admits", () => {
  const types = [
    { id: "va1", name: "Regular" },
    { id: "vb2", name: "VIP" },
    { id: "vc3", name: "Crew" },
  ];

  it("an empty filter admits every type: null, not a list (also types the event does not have)", () => {
    expect(admittedTypeIds([], types)).toBeNull();
    expect(admittedTypeIds([], [])).toBeNull();
  });

  it("maps the filter's names to the ids of the event's types, in the event's order of types", () => {
    expect(admittedTypeIds(["VIP"], types)).toEqual(["vb2"]);
    expect(admittedTypeIds(["Crew", "Regular"], types)).toEqual(["va1", "vc3"]);
    expect(admittedTypeIds(["Regular", "VIP", "Crew"], types)).toEqual(["va1", "vb2", "vc3"]);
  });

  it("compares names exactly (case-sensitive, no trimming); a name no type has admits nothing more", () => {
    expect(admittedTypeIds(["vip", " VIP", "VIP "], types)).toEqual([]);
    expect(admittedTypeIds(["Backstage", "VIP"], types)).toEqual(["vb2"]);
  });

  it("follows a rename: the filter names the type as it is called now, and the id stays", () => {
    const renamed = types.map((t) => (t.id === "va1" ? { ...t, name: "Standard" } : t));
    expect(admittedTypeIds(["Standard"], renamed)).toEqual(["va1"]);
    expect(admittedTypeIds(["Regular"], renamed)).toEqual([]);
  });

  it("does not change what it is given", () => {
    const filter = ["VIP"];
    const copy = structuredClone(types);
    admittedTypeIds(filter, types);
    expect(types).toEqual(copy);
    expect(filter).toEqual(["VIP"]);
  });
});

describe("sinceLastReset: the scans from the last reset on", () => {
  it("is the whole history when there is no reset", () => {
    const history = [at(0), at(7), at(8)];
    expect(sinceLastReset(history)).toEqual(history);
    expect(sinceLastReset([])).toEqual([]);
  });

  it("starts at the last reset, the reset included (it is a scan; GET /scans/<ticket_id> shows it)", () => {
    const reset = at(6, "Desk");
    const entrance = at(0, "Door B");
    expect(sinceLastReset([at(0), at(9), at(6), at(0), reset, entrance])).toEqual([reset, entrance]);
    expect(sinceLastReset([at(0), reset])).toEqual([reset]);
  });

  it("does not change the history it is given", () => {
    const history = [at(0), at(6), at(0)];
    const copy = structuredClone(history);
    sinceLastReset(history);
    expect(history).toEqual(copy);
  });
});

describe("decideTicketScan: one scan of a known ticket over its whole history", () => {
  const key = (over: Partial<ScanKeyRule> = {}): ScanKeyRule => ({ level: 0, location: "North gate", ticketTypeIds: null, ...over });
  const scan = (level: number, when: number, location = "North gate"): ScanRecord => ({ level, at: when, location });
  const decide = (k: ScanKeyRule, history: readonly ScanRecord[], ticketTypeId = "v11") => decideTicketScan({ ticketTypeId, history, key: k });

  it("applies the key's ticket types, by id", () => {
    expect(decide(key({ ticketTypeIds: ["v12"] }), [])).toEqual(refused(SCAN_ERRORS.wrongType, null));
    expect(decide(key({ ticketTypeIds: ["v12", "v11"] }), [])).toEqual(OK);
    expect(decide(key({ ticketTypeIds: ["v11"] }), [])).toEqual(OK);
    expect(decide(key({ ticketTypeIds: [] }), [])).toEqual(refused(SCAN_ERRORS.wrongType, null));
    expect(decide(key({ ticketTypeIds: null }), [], "any type at all")).toEqual(OK);
  });

  it("the type filter comes first: a wrong type is refused as such even when the levels would refuse too", () => {
    const exit = scan(9, 2000);
    expect(decide(key({ ticketTypeIds: ["v12"] }), [scan(0, 1000), exit])).toEqual(refused(SCAN_ERRORS.wrongType, null));
    expect(decide(key(), [scan(0, 1000), exit])).toEqual(refused(SCAN_ERRORS.left, exit));
  });

  it("refuses a second entrance with the earlier scan", () => {
    const earlier = scan(0, 1000);
    expect(decide(key(), [earlier])).toEqual(refused(SCAN_ERRORS.done, earlier));
  });

  it("counts only the scans since the last reset", () => {
    expect(decide(key(), [scan(0, 1000), scan(6, 2000)])).toEqual(OK);
    const again = scan(0, 3000);
    expect(decide(key(), [scan(0, 1000), scan(6, 2000), again])).toEqual(refused(SCAN_ERRORS.done, again));
    expect(decide(key({ level: 8 }), [scan(0, 1000), scan(7, 2000), scan(6, 3000)])).toEqual(refused(SCAN_ERRORS.noEntrance, null));
    const exit = scan(9, 5000);
    expect(decide(key({ level: 1 }), [scan(0, 1000), scan(9, 2000), scan(6, 3000), scan(0, 4000), exit, scan(6, 6000)])).toEqual(refused(SCAN_ERRORS.noEntrance, null));
    expect(decide(key({ level: 1 }), [scan(0, 1000), scan(6, 3000), scan(0, 4000), exit])).toEqual(refused(SCAN_ERRORS.left, exit));
  });

  it("a reset is always allowed, also after an exit and with nothing scanned", () => {
    expect(decide(key({ level: 6 }), [scan(0, 1000), scan(9, 2000)])).toEqual(OK);
    expect(decide(key({ level: 6 }), [])).toEqual(OK);
  });

  // The event object used to read the scans since the last reset with the reset, the door app without it: every
  // history of up to five scans, every level and two locations, get one answer either way (decideScan ignores
  // resets), so the trim is no rule of its own.
  it("answers the same over the whole history, over the scans from the last reset (reset included) and after it", () => {
    const levels = [0, 1, 6, 7, 8, 9];
    const histories: ScanRecord[][] = [[]];
    for (let length = 1; length <= 5; length++) {
      for (const h of histories.filter((x) => x.length === length - 1)) {
        for (const level of levels) histories.push([...h, scan(level, 1000 * length, length % 2 === 0 ? "Hall" : "North gate")]);
      }
    }
    expect(histories).toHaveLength(1 + 6 + 36 + 216 + 1296 + 7776);
    let differences = 0;
    for (const history of histories) {
      const lastReset = history.findLastIndex((s) => s.level === 6);
      const withReset = history.slice(Math.max(0, lastReset));
      const afterReset = history.slice(lastReset + 1);
      for (const level of levels) {
        for (const location of ["North gate", "Hall"]) {
          const k = key({ level, location });
          const whole = decide(k, history);
          if (!equal(whole, decideScan(withReset, level, location)) || !equal(whole, decideScan(afterReset, level, location))) differences++;
          if (!equal(whole, decide(k, withReset)) || !equal(whole, decide(k, afterReset))) differences++;
        }
      }
    }
    expect(differences).toBe(0);
  });

  it("does not change the history it is given", () => {
    const history = [scan(0, 1000), scan(6, 2000), scan(0, 3000)];
    const copy = structuredClone(history);
    decide(key({ level: 9 }), history);
    expect(history).toEqual(copy);
  });
});

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
