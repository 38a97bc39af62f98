import { describe, expect, it } from "vitest";
import {
  NEVER,
  calendarDay,
  formatDateTime,
  formatOptionalDateTime,
  isValidTimeZone,
  isWireDateTime,
  parseDateTime,
  parseWallClock,
  wallClockAt,
} from "../../src/lib/time";

/** Epoch seconds of a UTC calendar time (month 1-12). */
const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

const AMS = "Europe/Amsterdam";
const NYC = "America/New_York";

describe("formatDateTime", () => {
  it("formats UTC epoch seconds as YYYY-MM-DD HH:MM:SS", () => {
    expect(formatDateTime(0, "UTC")).toBe("1970-01-01 00:00:00");
    expect(formatDateTime(utc(2024, 2, 29, 13, 5, 9), "UTC")).toBe("2024-02-29 13:05:09");
    expect(formatDateTime(-1, "UTC")).toBe("1969-12-31 23:59:59");
  });

  it("shows the wall clock of the zone, winter and summer", () => {
    expect(formatDateTime(utc(2024, 1, 15, 12), AMS)).toBe("2024-01-15 13:00:00");
    expect(formatDateTime(utc(2024, 7, 15, 12), AMS)).toBe("2024-07-15 14:00:00");
    expect(formatDateTime(utc(2024, 1, 15, 12), NYC)).toBe("2024-01-15 07:00:00");
    expect(formatDateTime(utc(2024, 7, 15, 12), NYC)).toBe("2024-07-15 08:00:00");
    expect(formatDateTime(0, "Asia/Kolkata")).toBe("1970-01-01 05:30:00");
  });

  it("shows midnight as 00, never 24", () => {
    expect(formatDateTime(utc(2024, 1, 1, 23), AMS)).toBe("2024-01-02 00:00:00");
    expect(formatDateTime(utc(2024, 1, 1), "UTC")).toBe("2024-01-01 00:00:00");
    expect(formatDateTime(utc(2024, 1, 2, 5), NYC)).toBe("2024-01-02 00:00:00");
  });

  it("crosses the date line with the zone", () => {
    expect(formatDateTime(utc(2024, 12, 31, 22), "Pacific/Kiritimati")).toBe("2025-01-01 12:00:00");
    expect(formatDateTime(utc(2024, 1, 1, 5), "Pacific/Pago_Pago")).toBe("2023-12-31 18:00:00");
  });

  it("pads four-digit years", () => {
    expect(formatDateTime(utc(9999, 12, 31, 23, 59, 59), "UTC")).toBe("9999-12-31 23:59:59");
  });
});

describe("formatOptionalDateTime", () => {
  it("shows null as the empty string by default", () => {
    expect(formatOptionalDateTime(null, AMS)).toBe("");
  });

  it("shows null as the given never value (counters, webhooks)", () => {
    expect(NEVER).toBe("0000-00-00 00:00:00");
    expect(formatOptionalDateTime(null, "UTC", NEVER)).toBe("0000-00-00 00:00:00");
  });

  it("formats a set value as formatDateTime does", () => {
    expect(formatOptionalDateTime(0, "UTC")).toBe("1970-01-01 00:00:00");
    expect(formatOptionalDateTime(utc(2024, 7, 15, 12), AMS, NEVER)).toBe("2024-07-15 14:00:00");
  });
});

describe("parseDateTime", () => {
  it("reads a wire date-time in UTC", () => {
    expect(parseDateTime("1970-01-01 00:00:00", "UTC")).toBe(0);
    expect(parseDateTime("2024-02-29 13:05:09", "UTC")).toBe(utc(2024, 2, 29, 13, 5, 9));
    expect(parseDateTime("1969-12-31 23:59:59", "UTC")).toBe(-1);
    expect(parseDateTime("9999-12-31 23:59:59", "UTC")).toBe(utc(9999, 12, 31, 23, 59, 59));
  });

  it("reads the wall clock of the zone", () => {
    expect(parseDateTime("2024-01-15 13:00:00", AMS)).toBe(utc(2024, 1, 15, 12));
    expect(parseDateTime("2024-07-15 14:00:00", AMS)).toBe(utc(2024, 7, 15, 12));
    expect(parseDateTime("2024-01-15 07:00:00", NYC)).toBe(utc(2024, 1, 15, 12));
    expect(parseDateTime("2024-07-15 08:00:00", NYC)).toBe(utc(2024, 7, 15, 12));
    expect(parseDateTime("1970-01-01 05:30:00", "Asia/Kolkata")).toBe(0);
  });

  it("reads the same text as different instants in different zones", () => {
    const text = "2024-06-01 12:00:00";
    expect(parseDateTime(text, "UTC")! - parseDateTime(text, AMS)!).toBe(2 * 3600);
    expect(parseDateTime(text, NYC)! - parseDateTime(text, "UTC")!).toBe(4 * 3600);
  });

  describe("clocks going back (a wall time that occurs twice)", () => {
    it("reads Amsterdam's repeated 02:30 as the first occurrence (still summer time)", () => {
      const first = utc(2024, 10, 27, 0, 30); // 02:30 CEST
      const second = utc(2024, 10, 27, 1, 30); // 02:30 CET
      expect(formatDateTime(first, AMS)).toBe("2024-10-27 02:30:00");
      expect(formatDateTime(second, AMS)).toBe("2024-10-27 02:30:00");
      expect(parseDateTime("2024-10-27 02:30:00", AMS)).toBe(first);
    });

    it("reads the edges of Amsterdam's repeated hour", () => {
      expect(parseDateTime("2024-10-27 01:59:59", AMS)).toBe(utc(2024, 10, 26, 23, 59, 59));
      expect(parseDateTime("2024-10-27 02:00:00", AMS)).toBe(utc(2024, 10, 27, 0, 0));
      expect(parseDateTime("2024-10-27 02:59:59", AMS)).toBe(utc(2024, 10, 27, 0, 59, 59));
      expect(parseDateTime("2024-10-27 03:00:00", AMS)).toBe(utc(2024, 10, 27, 2, 0));
    });

    it("reads New York's repeated 01:30 as the first occurrence (still daylight time)", () => {
      const first = utc(2024, 11, 3, 5, 30); // 01:30 EDT
      const second = utc(2024, 11, 3, 6, 30); // 01:30 EST
      expect(formatDateTime(first, NYC)).toBe("2024-11-03 01:30:00");
      expect(formatDateTime(second, NYC)).toBe("2024-11-03 01:30:00");
      expect(parseDateTime("2024-11-03 01:30:00", NYC)).toBe(first);
      expect(parseDateTime("2024-11-03 02:00:00", NYC)).toBe(utc(2024, 11, 3, 7));
    });
  });

  describe("clocks going forward (a wall time that does not exist)", () => {
    it("moves Amsterdam's missing 02:30 forward by the gap, to 03:30 summer time", () => {
      const parsed = parseDateTime("2024-03-31 02:30:00", AMS);
      expect(parsed).toBe(utc(2024, 3, 31, 1, 30));
      expect(formatDateTime(parsed!, AMS)).toBe("2024-03-31 03:30:00");
    });

    it("reads the edges of Amsterdam's missing hour", () => {
      expect(parseDateTime("2024-03-31 01:59:59", AMS)).toBe(utc(2024, 3, 31, 0, 59, 59));
      expect(parseDateTime("2024-03-31 02:00:00", AMS)).toBe(utc(2024, 3, 31, 1, 0));
      expect(parseDateTime("2024-03-31 02:59:59", AMS)).toBe(utc(2024, 3, 31, 1, 59, 59));
      expect(parseDateTime("2024-03-31 03:00:00", AMS)).toBe(utc(2024, 3, 31, 1, 0));
    });

    it("moves New York's missing 02:30 forward by the gap, to 03:30 daylight time", () => {
      const parsed = parseDateTime("2024-03-10 02:30:00", NYC);
      expect(parsed).toBe(utc(2024, 3, 10, 7, 30));
      expect(formatDateTime(parsed!, NYC)).toBe("2024-03-10 03:30:00");
    });

    it("moves a gap of half an hour by half an hour (Lord Howe Island)", () => {
      // 2024-10-06 02:00 +10:30 becomes 02:30 +11:00.
      const parsed = parseDateTime("2024-10-06 02:15:00", "Australia/Lord_Howe");
      expect(formatDateTime(parsed!, "Australia/Lord_Howe")).toBe("2024-10-06 02:45:00");
    });
  });

  it("round-trips through 2024 in zones with DST, except the second pass of a repeated hour", () => {
    // Every 3 hours through the year, and every 15 minutes on the days around each change of the clocks.
    const changes: Record<string, number[]> = {
      UTC: [],
      [AMS]: [utc(2024, 3, 31), utc(2024, 10, 27)],
      [NYC]: [utc(2024, 3, 10), utc(2024, 11, 3)],
      "Australia/Sydney": [utc(2024, 4, 6), utc(2024, 10, 5)],
    };
    for (const [zone, days] of Object.entries(changes)) {
      const instants = new Set<number>();
      for (let t = utc(2024, 1, 1); t < utc(2025, 1, 1); t += 3 * 3600) instants.add(t);
      for (const day of days) for (let t = day - 86_400; t < day + 2 * 86_400; t += 900) instants.add(t);
      let repeats = 0;
      for (const t of instants) {
        const text = formatDateTime(t, zone);
        const back = parseDateTime(text, zone);
        if (back === t) continue;
        // Only the later of two instants with the same wall time may come back different: as the earlier one.
        expect(back, `${zone} ${text}`).toBe(t - 3600);
        expect(formatDateTime(back!, zone)).toBe(text);
        repeats++;
      }
      // A zone with DST repeats one hour a year: four quarter-hour steps.
      expect(repeats, zone).toBe(zone === "UTC" ? 0 : 4);
    }
  });

  it("round-trips formatted texts back to the same text in UTC", () => {
    for (const text of ["0001-01-01 00:00:00", "2000-02-29 12:00:00", "2024-12-31 23:59:59", "9999-12-31 23:59:59"]) {
      expect(formatDateTime(parseDateTime(text, "UTC")!, "UTC")).toBe(text);
    }
  });

  it("gives null for texts that are not wire date-times", () => {
    const bad = [
      "",
      "2024-01-01",
      "2024-01-01 00:00",
      "2024-01-01T00:00:00",
      "2024-01-01T00:00:00Z",
      "2024-01-01 00:00:00Z",
      "2024-01-01 00:00:00.000",
      " 2024-01-01 00:00:00",
      "2024-01-01 00:00:00 ",
      "2024-1-1 00:00:00",
      "24-01-01 00:00:00",
      "2024/01/01 00:00:00",
      "2024-01-01  00:00:00",
      "2024-01-01 0:00:00",
      "+02024-01-01 00:00:00",
      "1704067200",
    ];
    for (const text of bad) {
      expect(parseDateTime(text, "UTC"), JSON.stringify(text)).toBeNull();
      expect(isWireDateTime(text), JSON.stringify(text)).toBe(false);
    }
  });

  it("gives null for calendar dates and times that do not exist", () => {
    const bad = [
      "2024-02-30 00:00:00",
      "2023-02-29 12:00:00",
      "1900-02-29 12:00:00",
      "2024-04-31 00:00:00",
      "2024-13-01 00:00:00",
      "2024-00-10 00:00:00",
      "2024-01-00 00:00:00",
      "2024-01-32 00:00:00",
      "2024-01-01 24:00:00",
      "2024-01-01 23:60:00",
      "2024-01-01 23:59:60",
      "0000-00-00 00:00:00",
      "0000-01-01 00:00:00",
    ];
    for (const text of bad) {
      expect(parseDateTime(text, "UTC"), text).toBeNull();
      expect(parseDateTime(text, AMS), text).toBeNull();
      expect(parseWallClock(text), text).toBeNull();
    }
  });

  it("accepts leap days of leap years, including centuries divisible by 400 and years below 100", () => {
    expect(parseDateTime("2024-02-29 00:00:00", "UTC")).toBe(utc(2024, 2, 29));
    expect(parseDateTime("2000-02-29 00:00:00", "UTC")).toBe(utc(2000, 2, 29));
    expect(parseWallClock("0004-02-29 00:00:00")).toEqual({ year: 4, month: 2, day: 29, hour: 0, minute: 0, second: 0 });
    expect(parseWallClock("0100-02-29 00:00:00")).toBeNull();
    expect(parseWallClock("0099-02-29 00:00:00")).toBeNull();
  });
});

describe("isValidTimeZone", () => {
  it("accepts IANA names", () => {
    for (const zone of ["UTC", AMS, NYC, "Asia/Kolkata", "Australia/Lord_Howe"]) expect(isValidTimeZone(zone), zone).toBe(true);
  });

  it("refuses names that are not time zones", () => {
    for (const zone of ["", "Mars/Olympus_Mons", "Europe/Amsterdamm", "Amsterdam", "not a zone", "UTC+25"]) {
      expect(isValidTimeZone(zone), JSON.stringify(zone)).toBe(false);
    }
  });

  it("refuses offsets, abbreviations and other spellings of IANA names", () => {
    for (const zone of ["+01:00", "EST", "utc", "europe/amsterdam", "Europe/amsterdam", "Etc/GMT+1x"]) {
      expect(isValidTimeZone(zone), zone).toBe(false);
    }
  });

  it("answers the same on a second call (the formatter is cached)", () => {
    expect(isValidTimeZone("Europe/Lisbon")).toBe(true);
    expect(isValidTimeZone("Europe/Lisbon")).toBe(true);
    expect(isValidTimeZone("Europe/Nowhere")).toBe(false);
    expect(isValidTimeZone("Europe/Nowhere")).toBe(false);
  });
});

describe("wallClockAt", () => {
  const reference = (epochMs: number, timeZone: string) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      })
        .formatToParts(new Date(epochMs))
        .filter((p) => p.type !== "literal")
        .map((p) => [p.type, Number(p.value)]),
    );
    return { year: parts.year, month: parts.month, day: parts.day, hour: (parts.hour ?? 0) % 24, minute: parts.minute, second: parts.second };
  };
  // Zones with transitions of an hour, of half an hour (Lord Howe) and at 2:45 (Chatham), none, and UTC.
  const zones = ["Europe/Amsterdam", "America/New_York", "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Kolkata", "America/St_Johns", "UTC"];

  it("agrees with Intl at every 7 minutes and 13.5 seconds around the year's transitions, in order and out of it", () => {
    const instants: number[] = [];
    for (const start of [Date.UTC(2026, 2, 27), Date.UTC(2026, 3, 3), Date.UTC(2026, 8, 25), Date.UTC(2026, 9, 23), Date.UTC(2026, 10, 1)]) {
      for (let t = start; t < start + 3 * 86_400_000; t += 433_500) instants.push(t + 999);
    }
    const shuffled = [...instants].sort((a, b) => ((a * 7919) % 1009) - ((b * 7919) % 1009));
    for (const timeZone of zones) {
      for (const t of [...instants, ...shuffled]) expect(wallClockAt(t, timeZone), `${timeZone} ${new Date(t).toISOString()}`).toEqual(reference(t, timeZone));
    }
  });

  it("agrees with Intl for instants long ago and far ahead", () => {
    for (const t of [Date.UTC(1970, 0, 1), Date.UTC(1999, 11, 31, 23, 59, 59), Date.UTC(2100, 5, 1, 12), -86_400_000 * 365]) {
      for (const timeZone of zones) expect(wallClockAt(t, timeZone)).toEqual(reference(t, timeZone));
    }
  });
});

describe("calendarDay", () => {
  const at = (text: string, tz: string) => parseDateTime(text, tz)!;

  it("names the day in the time zone and when the next one starts", () => {
    const t = at("2026-06-10 23:30:00", "Europe/Amsterdam");
    expect(calendarDay(t, "Europe/Amsterdam")).toEqual({ day: "2026-06-10", nextStartsAt: at("2026-06-11 00:00:00", "Europe/Amsterdam") });
    expect(calendarDay(t, "Europe/Amsterdam").nextStartsAt - t).toBe(30 * 60);
    // The same instant is already the next day in UTC+14 and still the 10th in UTC.
    expect(calendarDay(t, "UTC").day).toBe("2026-06-10");
    expect(calendarDay(t, "Pacific/Kiritimati").day).toBe("2026-06-11");
  });

  it("counts a day of 23 hours (clocks forward) and the last day of a month and a year", () => {
    const spring = at("2026-03-29 00:00:00", "Europe/Amsterdam");
    expect(calendarDay(spring, "Europe/Amsterdam").nextStartsAt - spring).toBe(23 * 3600);
    expect(calendarDay(at("2026-02-28 12:00:00", "UTC"), "UTC").nextStartsAt).toBe(at("2026-03-01 00:00:00", "UTC"));
    expect(calendarDay(at("2026-12-31 12:00:00", "UTC"), "UTC")).toEqual({ day: "2026-12-31", nextStartsAt: at("2027-01-01 00:00:00", "UTC") });
  });
});
