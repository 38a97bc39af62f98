/**
 * Seat plans (decisions.md 7): `seats_config` lists rows as `row:from-to` entries, handed out in that order (a range
 * may run down, `B:20-1`); `number_of_seats`, when above 0, keeps only that many of them. A seat's index is its
 * position in that order: the event object hands out the lowest free indexes, so released seats are reused first.
 */

export interface SeatRange {
  row: string;
  from: number;
  to: number;
}

export interface Seat {
  index: number;
  row: string;
  number: number;
}

export function parseSeatRanges(config: string): SeatRange[] {
  const ranges: SeatRange[] = [];
  for (const part of config.split(",")) {
    const m = /^\s*([^:,]+?)\s*:\s*(\d+)\s*-\s*(\d+)\s*$/.exec(part);
    if (m) ranges.push({ row: m[1]!, from: Number(m[2]), to: Number(m[3]) });
  }
  return ranges;
}

const rangeSize = (r: SeatRange) => Math.abs(r.to - r.from) + 1;

/** How many seats the plan has. */
export function seatCount(ranges: readonly SeatRange[], limit = 0): number {
  const all = ranges.reduce((n, r) => n + rangeSize(r), 0);
  return limit > 0 ? Math.min(all, limit) : all;
}

/** The seat at `index` of the plan (0-based, below `seatCount`). */
export function seatAt(ranges: readonly SeatRange[], index: number): Seat {
  if (!Number.isInteger(index) || index < 0) throw new RangeError(`seat ${index} is not a plan position`);
  let rest = index;
  for (const r of ranges) {
    const size = rangeSize(r);
    if (rest < size) return { index, row: r.row, number: r.from <= r.to ? r.from + rest : r.from - rest };
    rest -= size;
  }
  throw new RangeError(`seat ${index} is outside the plan`);
}

/** The seat text: `seats_format` with `%s` the row and `%d` (or zero-padded `%02d`) the seat number. */
export function seatText(format: string, seat: Pick<Seat, "row" | "number">): string {
  return format.replace(/%s|%02d|%d/g, (token) => (token === "%s" ? seat.row : token === "%02d" ? String(seat.number).padStart(2, "0") : String(seat.number)));
}

/**
 * A ticket's type as shown for it (PDF, scans, webhooks): the type name with its seat text appended exactly as
 * `seats_format` made it, since the format carries its own separator (`Gold` + `, row A seat 1`).
 */
export function ticketTypeLabel(ticket: { ticketTypeName: string; seat: string }): string {
  return ticket.ticketTypeName + ticket.seat;
}
