/**
 * PHP `date()`-style format patterns (an event's `event_date_format`, a scan key's `date_format`). Day and month
 * names are English, as PHP writes them, unless a language is asked for (the shop pages, decisions.md 15
 * "Languages"): then they come from Intl in that language, so no name tables are kept here but PHP's own.
 *
 * Supported letters: `d D j l N w z W F m M n t L Y y a A g G h H i s`. Any other ASCII letter is refused, so a
 * pattern that renders today keeps rendering the same way if more letters are supported later. Every other
 * character is literal; `\` makes the next character literal, whatever it is, and may not end the pattern.
 *
 * Everything is computed from the calendar date by arithmetic, so no time zone (the machine's or any other) plays
 * a part: the caller has already turned the instant into a wall clock.
 */
import type { WallClock } from "./time";

const SUPPORTED = new Set("dDjlNwzWFmMntLYyaAgGhHis");
const ASCII_LETTER = /^[A-Za-z]$/;

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const DAY_ABBREVIATIONS = DAY_NAMES.map((name) => name.slice(0, 3));
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const MONTH_ABBREVIATIONS = MONTH_NAMES.map((name) => name.slice(0, 3));
/** Days before the first of each month in a common year. */
const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A compiled pattern alternates literal text (even indices, possibly empty) and format letters (odd indices),
 * starting and ending with literal text; a string is the reason the pattern was refused.
 */
type Compiled = readonly string[] | string;

const MAX_CACHED = 128;
const cache = new Map<string, Compiled>();

function compile(pattern: string): Compiled {
  const tokens: string[] = [];
  let literal = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      if (++i === pattern.length) return "ends with a lone backslash";
      literal += pattern[i];
    } else if (SUPPORTED.has(ch)) {
      tokens.push(literal, ch);
      literal = "";
    } else if (ASCII_LETTER.test(ch)) {
      return `unsupported letter "${ch}"`;
    } else {
      literal += ch;
    }
  }
  tokens.push(literal);
  return tokens;
}

function compiled(pattern: string): Compiled {
  let result = cache.get(pattern);
  if (result === undefined) {
    result = compile(pattern);
    // Patterns come from a handful of stored settings; the bound only guards against a stream of distinct input.
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, result);
  }
  return result;
}

/**
 * null when the pattern is acceptable, else a short English reason naming the first offending letter, e.g.
 * 'unsupported letter "Q"' or 'ends with a lone backslash'.
 */
export function phpDateFormatProblem(pattern: string): string | null {
  const result = compiled(pattern);
  return typeof result === "string" ? result : null;
}

/**
 * Formats a wall clock with a pattern that phpDateFormatProblem accepted. `language` (a BCP 47 tag, `en` when
 * left out) names the days and months (D, l, F, M); English keeps PHP's names, every other letter is the same in
 * every language. A refused pattern is a programming error (patterns are checked when stored) and throws a RangeError.
 */
export function formatPhpDate(wall: WallClock, pattern: string, language = "en"): string {
  const tokens = compiled(pattern);
  if (typeof tokens === "string") throw new RangeError(`Invalid PHP date pattern ${JSON.stringify(pattern)}: ${tokens}`);
  let out = tokens[0]!;
  for (let i = 1; i < tokens.length; i += 2) out += field(wall, tokens[i]!, language) + tokens[i + 1]!;
  return out;
}

type NameLetter = "D" | "l" | "F" | "M";
const NAME_OPTIONS: Record<NameLetter, Intl.DateTimeFormatOptions> = {
  D: { weekday: "short" },
  l: { weekday: "long" },
  F: { month: "long" },
  M: { month: "short" },
};
const nameFormatters = new Map<string, Intl.DateTimeFormat>();

/**
 * A day's or month's name in a language other than English, as Intl writes it alone (the standalone form: `maart`,
 * `März`, `mar.`). Read from a fixed reference date in UTC (2023-01-01 was a Sunday), so the wall clock's own year,
 * however far off, plays no part.
 */
function intlName(letter: NameLetter, index: number, language: string): string {
  const key = `${language}|${letter}`;
  let f = nameFormatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(language, { ...NAME_OPTIONS[letter], timeZone: "UTC" });
    nameFormatters.set(key, f);
  }
  const isDay = letter === "D" || letter === "l";
  return f.format(new Date(isDay ? Date.UTC(2023, 0, 1 + index) : Date.UTC(2023, index, 1)));
}

function field(w: WallClock, letter: string, language: string): string {
  const english = language === "en";
  switch (letter) {
    case "d":
      return pad2(w.day);
    case "D":
      return english ? DAY_ABBREVIATIONS[weekday(w)]! : intlName("D", weekday(w), language);
    case "j":
      return String(w.day);
    case "l":
      return english ? DAY_NAMES[weekday(w)]! : intlName("l", weekday(w), language);
    case "N":
      return String(weekday(w) || 7);
    case "w":
      return String(weekday(w));
    case "z":
      return String(dayOfYear(w));
    case "W":
      return pad2(isoWeek(w));
    case "F":
      return english ? MONTH_NAMES[w.month - 1]! : intlName("F", w.month - 1, language);
    case "m":
      return pad2(w.month);
    case "M":
      return english ? MONTH_ABBREVIATIONS[w.month - 1]! : intlName("M", w.month - 1, language);
    case "n":
      return String(w.month);
    case "t":
      return String(w.month === 2 && isLeapYear(w.year) ? 29 : DAYS_IN_MONTH[w.month - 1]!);
    case "L":
      return isLeapYear(w.year) ? "1" : "0";
    case "Y":
      // As PHP: at least four digits, a minus sign before years BCE.
      return w.year < 0 ? "-" + String(-w.year).padStart(4, "0") : String(w.year).padStart(4, "0");
    case "y":
      return pad2(w.year % 100);
    case "a":
      return w.hour < 12 ? "am" : "pm";
    case "A":
      return w.hour < 12 ? "AM" : "PM";
    case "g":
      return String(w.hour % 12 || 12);
    case "G":
      return String(w.hour);
    case "h":
      return pad2(w.hour % 12 || 12);
    case "H":
      return pad2(w.hour);
    case "i":
      return pad2(w.minute);
    case "s":
      return pad2(w.second);
    default:
      // Unreachable: compile() only lets supported letters through.
      throw new RangeError(`Unsupported PHP date letter "${letter}"`);
  }
}

/** Two digits at least, as C's `%02d` (a negative number keeps its sign and is not padded further). */
function pad2(n: number): string {
  return n >= 0 && n < 10 ? "0" + n : String(n);
}

/** `a mod b` for a positive `b`, never negative. */
function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil), any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1; // counted from March 1st
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** 0 (Sunday) to 6 (Saturday); 1970-01-01 was a Thursday. */
function weekday(w: WallClock): number {
  return mod(daysFromCivil(w.year, w.month, w.day) + 4, 7);
}

/** 0 (January 1st) to 365. */
function dayOfYear(w: WallClock): number {
  return DAYS_BEFORE_MONTH[w.month - 1]! + (w.month > 2 && isLeapYear(w.year) ? 1 : 0) + w.day - 1;
}

/** The weekday (0 = Sunday) of December 31st of a year. */
function lastDayWeekday(y: number): number {
  return mod(y + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400), 7);
}

/** 53 when the year ends on a Thursday or the year before ends on a Wednesday (the year starts on a Thursday, or on
 * a Wednesday in a leap year); else 52. */
function isoWeeksInYear(year: number): number {
  return lastDayWeekday(year) === 4 || lastDayWeekday(year - 1) === 3 ? 53 : 52;
}

/** ISO-8601 week number, 1 to 53: week 1 holds the year's first Thursday, weeks start on Monday. */
function isoWeek(w: WallClock): number {
  const week = Math.floor((dayOfYear(w) + 1 - (weekday(w) || 7) + 10) / 7);
  if (week < 1) return isoWeeksInYear(w.year - 1);
  if (week > isoWeeksInYear(w.year)) return 1;
  return week;
}
