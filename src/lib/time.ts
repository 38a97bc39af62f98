/**
 * Wire date-times are `YYYY-MM-DD HH:MM:SS` wall-clock strings in a time zone (the service's `TIMEZONE`, or an
 * event's own); storage is UTC epoch seconds. This module converts between the two and nothing else.
 */

export const NEVER = "0000-00-00 00:00:00";

const WIRE_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const IANA_NAME = /^(UTC|[A-Z][A-Za-z_]+(\/[A-Za-z0-9_+-]+)+)$/;

/**
 * An IANA zone name in its standard spelling (`Europe/Amsterdam`, `UTC`). Offsets (`+01:00`), abbreviations
 * (`EST`) and other spellings (`europe/amsterdam`) are refused: an event stores and echoes what it was given.
 */
export function isValidTimeZone(timeZone: string): boolean {
  if (!IANA_NAME.test(timeZone)) return false;
  try {
    // ICU resolves aliases to its own canonical name (Asia/Kolkata -> Asia/Calcutta), so only a name that
    // differs from the resolved one by letter case alone is a misspelling.
    const resolved = formatter(timeZone).resolvedOptions().timeZone;
    return resolved === timeZone || resolved.toLowerCase() !== timeZone.toLowerCase();
  } catch {
    return false;
  }
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function formattedWallClock(epochMs: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(epochMs))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

const QUARTER_HOUR_MS = 15 * 60_000;
/** Offsets from UTC by zone and quarter hour; a few hundred cover every date a busy isolate shows. */
const offsets = new Map<string, number>();
const MAX_OFFSETS = 256;

/**
 * The wall clock in `timeZone` at the instant `epochMs`. Every zone's offset changes on a quarter hour (Chatham's
 * 2:45 is the oddest), so within one quarter hour the offset Intl gave for one instant holds for all: a door's
 * scans (each answer shows its time in the event's zone) format once a quarter hour instead of once a scan. Kept
 * per quarter, not only the last one asked about: an order's view shows both its own time and its event's date.
 */
export function wallClockAt(epochMs: number, timeZone: string): WallClock {
  const key = `${Math.floor(epochMs / QUARTER_HOUR_MS)} ${timeZone}`;
  let offsetMs = offsets.get(key);
  if (offsetMs === undefined) {
    const w = formattedWallClock(epochMs, timeZone);
    const asUtc = new Date(0);
    asUtc.setUTCFullYear(w.year, w.month - 1, w.day);
    asUtc.setUTCHours(w.hour, w.minute, w.second);
    offsetMs = asUtc.getTime() - Math.floor(epochMs / 1000) * 1000;
    if (offsets.size >= MAX_OFFSETS) offsets.delete(offsets.keys().next().value!);
    offsets.set(key, offsetMs);
  }
  const wall = new Date(epochMs + offsetMs);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function formatWallClock(w: WallClock): string {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

/** `YYYY-MM-DD HH:MM:SS` in `timeZone` for a stored UTC epoch-seconds value. */
export function formatDateTime(epochSeconds: number, timeZone: string): string {
  return formatWallClock(wallClockAt(epochSeconds * 1000, timeZone));
}

/** ISO 8601 with the zone's offset at that instant (`2026-12-31T20:00:00+01:00`), as schema.org dates are written. */
export function isoDateTimeWithOffset(epochSeconds: number, timeZone: string): string {
  const w = wallClockAt(epochSeconds * 1000, timeZone);
  const offsetMinutes = Math.round((Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) / 1000 - epochSeconds) / 60);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${formatWallClock(w).replace(" ", "T")}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** As formatDateTime, with `null` (never set) shown as `never` (`""` for optional dates, NEVER for counters). */
export function formatOptionalDateTime(epochSeconds: number | null, timeZone: string, never = ""): string {
  return epochSeconds === null ? never : formatDateTime(epochSeconds, timeZone);
}

/** The calendar fields of a wire date-time, or null when the text is not one or names no real date. */
export function parseWallClock(text: string): WallClock | null {
  const m = WIRE_DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  return { year, month, day, hour, minute, second };
}

export function isWireDateTime(text: string): boolean {
  return parseWallClock(text) !== null;
}

function utcMsOf(w: WallClock): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

/** Offset of `timeZone` from UTC at the instant `epochMs`, in milliseconds. */
function offsetAt(epochMs: number, timeZone: string): number {
  return utcMsOf(wallClockAt(epochMs, timeZone)) - epochMs;
}

/**
 * UTC epoch seconds of a wire date-time read in `timeZone`, or null when the text is not a valid date-time.
 * A wall time that occurs twice (clocks going back) is read as the first occurrence; one that does not exist
 * (clocks going forward) is moved forward by the size of the gap, as the clocks themselves do.
 */
export function parseDateTime(text: string, timeZone: string): number | null {
  const wall = parseWallClock(text);
  if (!wall) return null;
  const asUtc = utcMsOf(wall);
  const before = offsetAt(asUtc - 86_400_000, timeZone);
  const after = offsetAt(asUtc + 86_400_000, timeZone);
  // The larger offset first: of two instants showing the same wall time, it gives the earlier one.
  const candidates = before >= after ? [before, after] : [after, before];
  for (const offset of candidates) {
    const instant = asUtc - offset;
    if (utcMsOf(wallClockAt(instant, timeZone)) === asUtc) return Math.floor(instant / 1000);
  }
  return Math.floor((asUtc - Math.min(before, after)) / 1000);
}

/**
 * The calendar day (`YYYY-MM-DD`) in `timeZone` at an instant, and the UTC epoch seconds at which the next one
 * starts (its midnight, or the first instant after it where midnight does not exist).
 */
export function calendarDay(epochSeconds: number, timeZone: string): { day: string; nextStartsAt: number } {
  const w = wallClockAt(epochSeconds * 1000, timeZone);
  const next = new Date(Date.UTC(w.year, w.month - 1, w.day + 1));
  const nextMidnight = formatWallClock({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate(), hour: 0, minute: 0, second: 0 });
  return { day: formatWallClock(w).slice(0, 10), nextStartsAt: parseDateTime(nextMidnight, timeZone)! };
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
