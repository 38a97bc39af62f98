import { describe, expect, it } from "vitest";
import { formatPhpDate, phpDateFormatProblem } from "../../src/lib/php-date";
import type { WallClock } from "../../src/lib/time";

const SUPPORTED = "dDjlNwzWFmMntLYyaAgGhHis";
const ASCII_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const wall = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0): WallClock => ({
  year,
  month,
  day,
  hour,
  minute,
  second,
});

/** Tuesday 5 March 2024, 14:05:09 (day 64 of a leap year, ISO week 10). */
const SAMPLE = wall(2024, 3, 5, 14, 5, 9);

describe("phpDateFormatProblem", () => {
  it("accepts the defaults and every supported letter, alone and together", () => {
    expect(phpDateFormatProblem("Y-m-d H:i")).toBeNull();
    expect(phpDateFormatProblem("Y-m-d H:i:s")).toBeNull();
    expect(phpDateFormatProblem(SUPPORTED)).toBeNull();
    for (const letter of SUPPORTED) expect(phpDateFormatProblem(letter), letter).toBeNull();
  });

  it("refuses every other ASCII letter, naming it", () => {
    const unsupported = [...ASCII_LETTERS].filter((letter) => !SUPPORTED.includes(letter));
    expect(unsupported).toHaveLength(52 - 24);
    for (const letter of unsupported) {
      const reason = `unsupported letter "${letter}"`;
      expect(phpDateFormatProblem(letter), letter).toBe(reason);
      expect(phpDateFormatProblem(`Y-m-d ${letter} H:i`), letter).toBe(reason);
      expect(() => formatPhpDate(SAMPLE, `d ${letter}`), letter).toThrow(RangeError);
    }
  });

  it("names the first offending letter", () => {
    expect(phpDateFormatProblem("Y-m-d Q T")).toBe('unsupported letter "Q"');
    expect(phpDateFormatProblem("d.m.Y \\Q T")).toBe('unsupported letter "T"');
  });

  it("accepts any escaped character, unsupported letters included", () => {
    expect(phpDateFormatProblem("\\Q\\T\\U\\e")).toBeNull();
    expect(phpDateFormatProblem("H\\hi")).toBeNull();
    expect(phpDateFormatProblem("\\\\")).toBeNull();
    expect(phpDateFormatProblem("\\é")).toBeNull();
  });

  it("refuses a trailing lone backslash", () => {
    expect(phpDateFormatProblem("\\")).toBe("ends with a lone backslash");
    expect(phpDateFormatProblem("Y-m-d\\")).toBe("ends with a lone backslash");
    expect(phpDateFormatProblem("Y\\\\\\")).toBe("ends with a lone backslash");
    expect(phpDateFormatProblem("Y\\\\")).toBeNull();
    expect(() => formatPhpDate(SAMPLE, "Y\\")).toThrow(/ends with a lone backslash/);
  });

  it("accepts punctuation, spaces, digits, non-ASCII letters and the empty pattern", () => {
    expect(phpDateFormatProblem(" -/:.,;()[]{}'\"#%&*+=_|<>?!@~`^$0123456789")).toBeNull();
    expect(phpDateFormatProblem("é ü ß ÿ Ω 日本 🎫")).toBeNull();
    expect(phpDateFormatProblem("")).toBeNull();
  });

  it("gives the same answer for a repeated pattern", () => {
    expect(phpDateFormatProblem("Y-m-d X")).toBe('unsupported letter "X"');
    expect(phpDateFormatProblem("Y-m-d X")).toBe('unsupported letter "X"');
    expect(phpDateFormatProblem("Y-m-d")).toBeNull();
    expect(phpDateFormatProblem("Y-m-d")).toBeNull();
  });
});

describe("formatPhpDate", () => {
  it("formats the defaults", () => {
    expect(formatPhpDate(SAMPLE, "Y-m-d H:i")).toBe("2024-03-05 14:05");
    expect(formatPhpDate(SAMPLE, "Y-m-d H:i:s")).toBe("2024-03-05 14:05:09");
    expect(formatPhpDate(wall(1999, 12, 31, 23, 59, 59), "Y-m-d H:i:s")).toBe("1999-12-31 23:59:59");
    expect(formatPhpDate(wall(2025, 1, 1), "Y-m-d H:i:s")).toBe("2025-01-01 00:00:00");
  });

  it("formats every supported letter at once", () => {
    expect(formatPhpDate(SAMPLE, [...SUPPORTED].join("|"))).toBe("05|Tue|5|Tuesday|2|2|64|10|March|03|Mar|3|31|1|2024|24|pm|PM|2|14|02|14|05|09");
  });

  it("formats days of the month: d and j", () => {
    expect(formatPhpDate(wall(2024, 3, 1), "d j")).toBe("01 1");
    expect(formatPhpDate(wall(2024, 3, 9), "d j")).toBe("09 9");
    expect(formatPhpDate(wall(2024, 3, 10), "d j")).toBe("10 10");
    expect(formatPhpDate(wall(2024, 3, 31), "d j")).toBe("31 31");
  });

  it("formats weekdays: D, l, N and w", () => {
    // 2024-03-04 was a Monday.
    const expected = ["Mon Monday 1 1", "Tue Tuesday 2 2", "Wed Wednesday 3 3", "Thu Thursday 4 4", "Fri Friday 5 5", "Sat Saturday 6 6", "Sun Sunday 7 0"];
    for (const [i, text] of expected.entries()) expect(formatPhpDate(wall(2024, 3, 4 + i), "D l N w")).toBe(text);
    expect(formatPhpDate(wall(1970, 1, 1), "l")).toBe("Thursday");
    expect(formatPhpDate(wall(2000, 1, 1), "l")).toBe("Saturday");
    expect(formatPhpDate(wall(1900, 1, 1), "l")).toBe("Monday");
    expect(formatPhpDate(wall(1, 1, 1), "l")).toBe("Monday"); // proleptic Gregorian
    expect(formatPhpDate(wall(2038, 1, 19), "l")).toBe("Tuesday");
  });

  it("formats the day of the year: z from 0", () => {
    expect(formatPhpDate(wall(2023, 1, 1), "z")).toBe("0");
    expect(formatPhpDate(wall(2023, 2, 1), "z")).toBe("31");
    expect(formatPhpDate(wall(2023, 3, 1), "z")).toBe("59");
    expect(formatPhpDate(wall(2024, 3, 1), "z")).toBe("60");
    expect(formatPhpDate(wall(2023, 12, 31), "z")).toBe("364");
    expect(formatPhpDate(wall(2024, 12, 31), "z")).toBe("365");
    expect(formatPhpDate(wall(1900, 12, 31), "z")).toBe("364");
    expect(formatPhpDate(wall(2000, 12, 31), "z")).toBe("365");
  });

  it("formats the ISO-8601 week: W, two digits, across year boundaries", () => {
    expect(formatPhpDate(wall(2021, 1, 3), "W")).toBe("53"); // Sunday: last week of 2020
    expect(formatPhpDate(wall(2021, 1, 4), "W")).toBe("01");
    expect(formatPhpDate(wall(2020, 12, 31), "W")).toBe("53");
    expect(formatPhpDate(wall(2024, 12, 29), "W")).toBe("52");
    expect(formatPhpDate(wall(2024, 12, 30), "W")).toBe("01"); // Monday: first week of 2025
    expect(formatPhpDate(wall(2024, 12, 31), "W")).toBe("01");
    expect(formatPhpDate(wall(2025, 12, 28), "W")).toBe("52");
    expect(formatPhpDate(wall(2025, 12, 29), "W")).toBe("01");
    expect(formatPhpDate(wall(2026, 1, 1), "W")).toBe("01"); // Thursday
    expect(formatPhpDate(wall(2026, 12, 31), "W")).toBe("53");
    expect(formatPhpDate(wall(2027, 1, 1), "W")).toBe("53"); // Friday: last week of 2026
    expect(formatPhpDate(wall(2027, 1, 3), "W")).toBe("53");
    expect(formatPhpDate(wall(2027, 1, 4), "W")).toBe("01");
    expect(formatPhpDate(wall(2023, 1, 1), "W")).toBe("52"); // Sunday: last week of 2022
    expect(formatPhpDate(wall(2024, 1, 1), "W")).toBe("01");
    expect(formatPhpDate(wall(2024, 1, 8), "W")).toBe("02");
    expect(formatPhpDate(wall(2024, 3, 5), "W")).toBe("10");
  });

  it("formats months: F, m, M, n", () => {
    const names = ["January", "February", "March", "April", "May", "June"];
    const more = ["July", "August", "September", "October", "November", "December"];
    [...names, ...more].forEach((name, i) => {
      const month = i + 1;
      expect(formatPhpDate(wall(2024, month, 15), "F|m|M|n")).toBe(`${name}|${String(month).padStart(2, "0")}|${name.slice(0, 3)}|${month}`);
    });
  });

  it("formats days in the month: t", () => {
    const common = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    for (const [i, days] of common.entries()) expect(formatPhpDate(wall(2023, i + 1, 1), "t")).toBe(String(days));
    expect(formatPhpDate(wall(2024, 2, 1), "t")).toBe("29");
    expect(formatPhpDate(wall(2000, 2, 10), "t")).toBe("29");
    expect(formatPhpDate(wall(1900, 2, 10), "t")).toBe("28");
  });

  it("formats leap years: L", () => {
    expect(formatPhpDate(wall(2000, 6, 1), "L")).toBe("1");
    expect(formatPhpDate(wall(1900, 6, 1), "L")).toBe("0");
    expect(formatPhpDate(wall(2024, 6, 1), "L")).toBe("1");
    expect(formatPhpDate(wall(2023, 6, 1), "L")).toBe("0");
    expect(formatPhpDate(wall(2100, 6, 1), "L")).toBe("0");
    expect(formatPhpDate(wall(2000, 2, 29), "Y-m-d D z")).toBe("2000-02-29 Tue 59");
    expect(formatPhpDate(wall(2024, 2, 29), "Y-m-d D z")).toBe("2024-02-29 Thu 59");
  });

  it("formats years: Y with at least four digits, y with two", () => {
    expect(formatPhpDate(wall(2024, 1, 1), "Y y")).toBe("2024 24");
    expect(formatPhpDate(wall(2009, 1, 1), "Y y")).toBe("2009 09");
    expect(formatPhpDate(wall(2000, 1, 1), "Y y")).toBe("2000 00");
    expect(formatPhpDate(wall(999, 1, 1), "Y y")).toBe("0999 99");
    expect(formatPhpDate(wall(5, 1, 1), "Y y")).toBe("0005 05");
    expect(formatPhpDate(wall(0, 1, 1), "Y y")).toBe("0000 00");
    expect(formatPhpDate(wall(12345, 1, 1), "Y y")).toBe("12345 45");
  });

  it("formats hours in both clocks, with 00:xx as 12 am and 12:xx as 12 pm", () => {
    const g = [12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    for (let hour = 0; hour < 24; hour++) {
      const half = hour < 12 ? "am" : "pm";
      expect(formatPhpDate(wall(2024, 3, 5, hour, 30), "g|h|G|H|a|A"), String(hour)).toBe(
        [g[hour], String(g[hour]).padStart(2, "0"), hour, String(hour).padStart(2, "0"), half, half.toUpperCase()].join("|"),
      );
    }
    expect(formatPhpDate(wall(2024, 3, 5, 0, 5), "g:i a")).toBe("12:05 am");
    expect(formatPhpDate(wall(2024, 3, 5, 12, 5), "g:i a")).toBe("12:05 pm");
    expect(formatPhpDate(wall(2024, 3, 5, 11, 59, 59), "h:i:s A")).toBe("11:59:59 AM");
    expect(formatPhpDate(wall(2024, 3, 5, 23, 59, 59), "h:i:s A")).toBe("11:59:59 PM");
  });

  it("formats minutes and seconds: i and s, two digits", () => {
    expect(formatPhpDate(wall(2024, 3, 5, 8, 0, 0), "i s")).toBe("00 00");
    expect(formatPhpDate(wall(2024, 3, 5, 8, 7, 3), "i s")).toBe("07 03");
    expect(formatPhpDate(wall(2024, 3, 5, 8, 59, 59), "i s")).toBe("59 59");
  });

  it("makes an escaped character literal", () => {
    expect(formatPhpDate(SAMPLE, "\\Y")).toBe("Y");
    expect(formatPhpDate(SAMPLE, "\\\\")).toBe("\\");
    expect(formatPhpDate(SAMPLE, "\\\\Y")).toBe("\\2024");
    expect(formatPhpDate(SAMPLE, "H\\hi")).toBe("14h05");
    expect(formatPhpDate(SAMPLE, "\\T\\o\\d\\a\\y \\i\\s l")).toBe("Today is Tuesday");
    expect(formatPhpDate(SAMPLE, "\\-\\:\\é")).toBe("-:é");
    expect(formatPhpDate(SAMPLE, "d\\\\m")).toBe("05\\03");
  });

  it("keeps punctuation, spaces, digits and non-ASCII text", () => {
    expect(formatPhpDate(SAMPLE, "d/m/Y – H:i")).toBe("05/03/2024 – 14:05");
    expect(formatPhpDate(SAMPLE, "j. F Y, H.i")).toBe("5. March 2024, 14.05");
    expect(formatPhpDate(SAMPLE, "Y年n月j日 · é ü 🎫")).toBe("2024年3月5日 · é ü 🎫");
    expect(formatPhpDate(SAMPLE, "  (d) [m] {Y} 007  ")).toBe("  (05) [03] {2024} 007  ");
    expect(formatPhpDate(SAMPLE, "")).toBe("");
    expect(formatPhpDate(SAMPLE, "-- 1, 2, 3! --")).toBe("-- 1, 2, 3! --");
  });

  it("gives the same text for a repeated pattern, interleaved with others", () => {
    const other = wall(2027, 1, 1, 0, 0, 0);
    expect(formatPhpDate(SAMPLE, "D W")).toBe("Tue 10");
    expect(formatPhpDate(other, "D W")).toBe("Fri 53");
    expect(formatPhpDate(other, "Y")).toBe("2027");
    expect(formatPhpDate(SAMPLE, "D W")).toBe("Tue 10");
  });

  it("agrees with a Date-based reference for every day from 1999 to 2031", () => {
    const DAY_MS = 86_400_000;
    const start = Date.UTC(1999, 0, 1);
    const end = Date.UTC(2031, 11, 31);
    const mismatches: string[] = [];
    let days = 0;
    for (let ms = start; ms <= end; ms += DAY_MS, days++) {
      const date = new Date(ms);
      const year = date.getUTCFullYear();
      const month = date.getUTCMonth() + 1;
      const day = date.getUTCDate();
      const w = date.getUTCDay();
      const n = w || 7;
      const z = (ms - Date.UTC(year, 0, 1)) / DAY_MS;
      // ISO week: the week (Monday to Sunday) belongs to the year of its Thursday.
      const thursday = new Date(ms + (4 - n) * DAY_MS);
      const week = Math.floor((thursday.getTime() - Date.UTC(thursday.getUTCFullYear(), 0, 1)) / DAY_MS / 7) + 1;
      const t = new Date(Date.UTC(year, month, 0)).getUTCDate();
      const leap = new Date(Date.UTC(year, 1, 29)).getUTCMonth() === 1 ? 1 : 0;
      const expected = [w, n, z, String(week).padStart(2, "0"), t, leap, day, month].join(" ");
      const actual = formatPhpDate(wall(year, month, day), "w N z W t L j n");
      if (actual !== expected) mismatches.push(`${year}-${month}-${day}: ${actual} != ${expected}`);
    }
    expect(days).toBe(12053);
    expect(mismatches).toEqual([]);
  });
});

describe("formatPhpDate in a language (decisions.md 15 'Languages')", () => {
  it("writes day and month names in the language asked, everything else as in English", () => {
    expect(formatPhpDate(SAMPLE, "l j F Y, H:i", "en")).toBe("Tuesday 5 March 2024, 14:05");
    expect(formatPhpDate(SAMPLE, "l j F Y, H:i", "nl")).toBe("dinsdag 5 maart 2024, 14:05");
    expect(formatPhpDate(SAMPLE, "l j F Y, H:i", "de")).toBe("Dienstag 5 März 2024, 14:05");
    expect(formatPhpDate(SAMPLE, "l j F Y, H:i", "fr")).toBe("mardi 5 mars 2024, 14:05");
    expect(formatPhpDate(SAMPLE, "l j F Y, H:i", "es")).toBe("martes 5 marzo 2024, 14:05");
  });

  it("writes the short names (D, M) as the language abbreviates them", () => {
    expect(formatPhpDate(SAMPLE, "D j M", "en")).toBe("Tue 5 Mar");
    expect(formatPhpDate(SAMPLE, "D j M", "nl")).toBe("di 5 mrt");
    expect(formatPhpDate(SAMPLE, "D j M", "de")).toBe("Di 5 Mär");
    expect(formatPhpDate(SAMPLE, "D j M", "fr")).toBe("mar. 5 mars");
    expect(formatPhpDate(SAMPLE, "D j M", "es")).toBe("mar 5 mar");
  });

  it("names every month and weekday in each language, and English stays PHP's names", () => {
    const months = (lang: string) => Array.from({ length: 12 }, (_, i) => formatPhpDate(wall(2024, i + 1, 1), "F", lang));
    expect(months("nl")).toEqual(["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"]);
    expect(months("es")[11]).toBe("diciembre");
    // 2024-01-01 was a Monday.
    const days = (lang: string) => Array.from({ length: 7 }, (_, i) => formatPhpDate(wall(2024, 1, i + 1), "l", lang));
    expect(days("de")).toEqual(["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]);
    expect(days("fr")[6]).toBe("dimanche");
    for (const lang of ["en", undefined]) expect(formatPhpDate(SAMPLE, [...SUPPORTED].join("|"), lang)).toBe(formatPhpDate(SAMPLE, [...SUPPORTED].join("|")));
  });
});
