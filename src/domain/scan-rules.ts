/**
 * The scan levels (decisions.md 6, 12 and 13), as one pure decision over a ticket's whole history (`decideTicketScan`,
 * which the event object and the door app both decide with): the key's type filter, then the scans since the last
 * reset:
 *   0 entrance, once;  1 checkpoint, after an entrance, once per location;  7 leave for a while and 8 re-enter,
 *   alternating, after an entrance;  9 exit, after which nothing succeeds but a reset;  6 reset, always allowed,
 *   removes the ticket's earlier scans.
 * A refusal names its reason and, where one exists, the earlier scan it refers to (whose date and location the
 * answer shows).
 */

export interface ScanRecord {
  level: number;
  /** Epoch milliseconds. */
  at: number;
  location: string;
}

export const SCAN_ERRORS = {
  notFound: "Ticket not found",
  wrongType: "Invalid ticket for this entrance",
  noEntrance: "No entrance scan performed",
  left: "Ticket already left the event",
  done: "This scan has already been done",
  away: "Ticket already temporarily left the event",
  back: "Ticket already re-entered the event",
} as const;

/**
 * The ticket type ids a scan key admits (decisions.md 6): its filter names the event's types, and scans compare ids,
 * so a type renamed after its tickets were sold still passes its keys. Null when the filter is empty: every ticket
 * passes, also one whose type is not among `types` (a passe-partout's ticket at a child event carries the pass's type).
 * The event object decides scans with it, and a door phone gets it (`GET /scan-keys/self`) to decide them offline.
 */
export function admittedTypeIds(filter: readonly string[], types: readonly { id: string; name: string }[]): string[] | null {
  if (filter.length === 0) return null;
  return types.filter((t) => filter.includes(t.name)).map((t) => t.id);
}

/**
 * The scan validation result of the spec (with `error` when refused): what the event object answers, and what a door
 * phone reads back (src/door-app).
 */
export interface ScanResult {
  order_id: number;
  qrcode: string;
  event: string;
  name: string;
  email: string;
  level: number;
  type: string;
  status: boolean;
  date: string;
  location: string;
  error?: string;
}

export type ScanDecision = { ok: true } | { ok: false; error: string; earlier: ScanRecord | null };

const refuse = (error: string, earlier: ScanRecord | null = null): ScanDecision => ({ ok: false, error, earlier });

/**
 * A ticket's scans from its last reset on, the reset included (it is a scan, and `GET /scans/<ticket_id>` shows it;
 * docs/scanning.md "Levels"), oldest first; the whole history when it has no reset.
 */
export function sinceLastReset<T extends ScanRecord>(history: readonly T[]): T[] {
  const lastReset = history.findLastIndex((s) => s.level === 6);
  return lastReset < 0 ? [...history] : history.slice(lastReset);
}

/** A scan key as a scan is decided with it: its level and location, and the type ids it admits (null: every type). */
export interface ScanKeyRule {
  level: number;
  location: string;
  ticketTypeIds: readonly string[] | null;
}

/**
 * One scan of a known ticket with `key` (decisions.md 6, 12, 13): refused when the key's filter does not admit the
 * ticket's type, else the level rules over the scans since the ticket's last reset. `history`: the ticket's whole
 * history of successful scans, oldest first; a history already trimmed to its last reset (reset included or not)
 * gets the same answer, as `decideScan` ignores resets.
 */
export function decideTicketScan(input: { ticketTypeId: string; history: readonly ScanRecord[]; key: ScanKeyRule }): ScanDecision {
  const { ticketTypeId, history, key } = input;
  if (key.ticketTypeIds !== null && !key.ticketTypeIds.includes(ticketTypeId)) return refuse(SCAN_ERRORS.wrongType);
  return decideScan(sinceLastReset(history), key.level, key.location);
}

/** `history`: the ticket's scans since its last reset (resets themselves are ignored), oldest first. */
export function decideScan(history: readonly ScanRecord[], level: number, location: string): ScanDecision {
  if (level === 6) return { ok: true };
  const scans = history.filter((s) => s.level !== 6);
  const exit = scans.find((s) => s.level === 9);
  if (exit) return refuse(SCAN_ERRORS.left, exit);
  const entrance = scans.find((s) => s.level === 0);
  if (level === 0) return entrance ? refuse(SCAN_ERRORS.done, entrance) : { ok: true };
  if (!entrance) return refuse(SCAN_ERRORS.noEntrance);
  if (level === 1) {
    const here = scans.find((s) => s.level === 1 && s.location === location);
    return here ? refuse(SCAN_ERRORS.done, here) : { ok: true };
  }
  const lastMove = scans.filter((s) => s.level === 7 || s.level === 8).at(-1);
  if (level === 7) return lastMove?.level === 7 ? refuse(SCAN_ERRORS.away, lastMove) : { ok: true };
  if (level === 8) return lastMove?.level === 7 ? { ok: true } : refuse(SCAN_ERRORS.back, lastMove ?? null);
  return { ok: true }; // 9: an exit after the entrance, from inside or while away
}
