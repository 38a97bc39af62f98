import { describe, expect, it } from "vitest";
import { parseSeatRanges, seatAt, seatCount, seatText, ticketTypeLabel, type SeatRange } from "../../src/domain/seat-plan";

/**
 * The pure seat-plan functions (decisions.md 7 "Seats"): `seats_config` parsed into ranges (`row:from-to`, a range
 * may run down), the plan's size with and without the `number_of_seats` cap, the seat at a plan position, and the
 * seat text made with `seats_format`.
 */

const plan = (config: string) => parseSeatRanges(config);

describe("parseSeatRanges", () => {
  it("reads row:from-to entries in order", () => {
    expect(plan("A:1-10,B:1-20")).toEqual([
      { row: "A", from: 1, to: 10 },
      { row: "B", from: 1, to: 20 },
    ]);
  });

  it("allows spaces around entries, colons and dashes, and inside a row name", () => {
    expect(plan(" A : 1 - 3 ,  B:4-5 , Balcony left:7-8 ")).toEqual([
      { row: "A", from: 1, to: 3 },
      { row: "B", from: 4, to: 5 },
      { row: "Balcony left", from: 7, to: 8 },
    ]);
  });

  it("keeps a descending range as written", () => {
    expect(plan("B:20-18")).toEqual([{ row: "B", from: 20, to: 18 }]);
  });

  it("keeps a one-seat range and numbers with leading zeros as numbers", () => {
    expect(plan("C:5-5,D:007-009")).toEqual([
      { row: "C", from: 5, to: 5 },
      { row: "D", from: 7, to: 9 },
    ]);
  });

  it("gives nothing for an empty configuration and skips unreadable entries", () => {
    expect(plan("")).toEqual([]);
    expect(plan("   ")).toEqual([]);
    expect(plan("A 1-10")).toEqual([]);
    expect(plan("A:1-10,garbage,B:x-3,C:1-2")).toEqual([
      { row: "A", from: 1, to: 10 },
      { row: "C", from: 1, to: 2 },
    ]);
  });
});

describe("seatCount", () => {
  const ranges = plan("A:1-10,B:20-18,C:5-5");

  it("counts every seat of every range, descending ones included", () => {
    expect(seatCount(ranges)).toBe(14);
    expect(seatCount(plan("B:20-1"))).toBe(20);
    expect(seatCount([])).toBe(0);
  });

  it("caps the plan at number_of_seats when above 0", () => {
    expect(seatCount(ranges, 0)).toBe(14);
    expect(seatCount(ranges, 5)).toBe(5);
    expect(seatCount(ranges, 14)).toBe(14);
    expect(seatCount(ranges, 1)).toBe(1);
  });

  it("a cap above the plan's size changes nothing", () => {
    expect(seatCount(ranges, 100)).toBe(14);
    expect(seatCount([], 10)).toBe(0);
  });
});

describe("seatAt", () => {
  const ranges: SeatRange[] = plan("A:1-3,B:20-18,C:7-7");

  it("walks the first range up from its start", () => {
    expect(seatAt(ranges, 0)).toEqual({ index: 0, row: "A", number: 1 });
    expect(seatAt(ranges, 1)).toEqual({ index: 1, row: "A", number: 2 });
    expect(seatAt(ranges, 2)).toEqual({ index: 2, row: "A", number: 3 });
  });

  it("continues in the next range at the boundary, running down a descending range", () => {
    expect(seatAt(ranges, 3)).toEqual({ index: 3, row: "B", number: 20 });
    expect(seatAt(ranges, 4)).toEqual({ index: 4, row: "B", number: 19 });
    expect(seatAt(ranges, 5)).toEqual({ index: 5, row: "B", number: 18 });
  });

  it("reaches the last seat of the plan", () => {
    expect(seatAt(ranges, 6)).toEqual({ index: 6, row: "C", number: 7 });
  });

  it("every position below the count is a distinct seat, in plan order", () => {
    const all = plan("A:1-10,B:10-1,C:3-4");
    const seats = Array.from({ length: seatCount(all) }, (_, i) => seatAt(all, i));
    expect(seats.map((s) => `${s.row}${s.number}`)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `A${i + 1}`),
      ...Array.from({ length: 10 }, (_, i) => `B${10 - i}`),
      "C3",
      "C4",
    ]);
    expect(new Set(seats.map((s) => `${s.row}${s.number}`)).size).toBe(22);
  });

  it("throws outside the plan", () => {
    expect(() => seatAt(ranges, 7)).toThrow(RangeError);
    expect(() => seatAt(ranges, 100)).toThrow(RangeError);
    expect(() => seatAt([], 0)).toThrow(RangeError);
  });

  it("throws for a negative position", () => {
    // A negative position is no seat of the plan.
    expect(() => seatAt(ranges, -1)).toThrow(RangeError);
  });
});

describe("seatText", () => {
  const a1 = { row: "A", number: 1 };
  const b12 = { row: "B", number: 12 };

  it("puts the row for %s and the number for %d", () => {
    expect(seatText("Row %s seat %d", a1)).toBe("Row A seat 1");
    expect(seatText("Row %s seat %d", b12)).toBe("Row B seat 12");
    expect(seatText("%s%d", b12)).toBe("B12");
  });

  it("pads the number to two digits for %02d, and leaves longer numbers whole", () => {
    expect(seatText("Row %s, seat %02d", a1)).toBe("Row A, seat 01");
    expect(seatText("Row %s, seat %02d", b12)).toBe("Row B, seat 12");
    expect(seatText("%s-%02d", { row: "C", number: 123 })).toBe("C-123");
  });

  it("keeps a row name with spaces and the rest of the format as written", () => {
    expect(seatText("(%s / %d)", { row: "Balcony left", number: 7 })).toBe("(Balcony left / 7)");
  });
});

describe("ticketTypeLabel", () => {
  it("appends the seat text as the format made it (the format carries its own separator); without a seat the type name alone", () => {
    expect(ticketTypeLabel({ ticketTypeName: "Gold", seat: seatText(", row %s seat %d", { row: "A", number: 1 }) })).toBe("Gold, row A seat 1");
    expect(ticketTypeLabel({ ticketTypeName: "Regular", seat: " Row A, seat 01" })).toBe("Regular Row A, seat 01");
    expect(ticketTypeLabel({ ticketTypeName: "Regular", seat: "" })).toBe("Regular");
  });
});
