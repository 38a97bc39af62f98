import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/domain/error-codes";
import { errorText, format, formatEventDate, formatMoney, LANGUAGES, messagesFor, pickLanguage } from "../../src/domain/messages";

describe("the message catalogues (decisions.md 15 'Languages')", () => {
  it("takes ?lang= first, then Accept-Language by weight, then English", () => {
    expect(pickLanguage("de", "nl")).toBe("de");
    expect(pickLanguage("DE", null)).toBe("de");
    expect(pickLanguage("xx", "fr-BE, nl;q=0.8")).toBe("fr");
    expect(pickLanguage(undefined, "ja, es;q=0.5, nl;q=0.9")).toBe("nl");
    expect(pickLanguage(undefined, "nl;q=0, de;q=0.1")).toBe("de");
    expect(pickLanguage(undefined, "ja, zh")).toBe("en");
    expect(pickLanguage(undefined, "")).toBe("en");
    expect(pickLanguage(undefined, ";;q=abc,,")).toBe("en");
  });

  it("has every English key, with a text of its own, in every language", () => {
    const leaves = (o: object, at = ""): string[] => Object.entries(o).flatMap(([k, v]) => (typeof v === "string" ? [`${at}${k}`] : leaves(v as object, `${at}${k}.`)));
    const keys = leaves(messagesFor("en")).sort();
    for (const lang of LANGUAGES) {
      expect(leaves(messagesFor(lang)).sort(), lang).toEqual(keys);
      for (const key of keys) {
        const text = key.split(".").reduce<any>((o, k) => o[k], messagesFor(lang));
        expect(text.trim(), `${lang} ${key}`).not.toBe("");
      }
    }
  });

  it("writes French as French is set: a no-break space before a colon, a narrow one before ; ! ? (as the console does)", () => {
    const texts = (o: object): string[] => Object.values(o).flatMap((v) => (typeof v === "string" ? [v] : texts(v as object)));
    const french = texts(messagesFor("fr"));
    expect(french.filter((t) => / [:;!?]/.test(t))).toEqual([]);
    expect(french.some((t) => t.includes("\u00a0:"))).toBe(true);
    expect(french.some((t) => /\u202f[;!?]/.test(t))).toBe(true);
    // No other language puts a space there.
    for (const lang of LANGUAGES.filter((l) => l !== "fr"))
      expect(
        texts(messagesFor(lang)).filter((t) => /[\s\u00a0\u202f][:;!?]/.test(t)),
        lang,
      ).toEqual([]);
  });

  it("fills {placeholders} and leaves unknown ones", () => {
    expect(format("{count} left of {type}", { count: 3, type: "Regular" })).toBe("3 left of Regular");
    expect(format("{missing}", {})).toBe("{missing}");
  });
});

describe("errorText and formatMoney", () => {
  it("has a text of its own for every registered code, and the invalid ids a visitor or door meets, in every language", () => {
    const codes = [...Object.keys(ERROR_CODES), "rest_event_invalid_id", "rest_order_invalid_id", "rest_ticket_invalid_id", "rest_ticket_type_invalid_id"];
    for (const lang of LANGUAGES) {
      for (const code of codes) {
        const text = errorText(lang, code, "FALLBACK");
        expect(text, `${lang} ${code}`).not.toBe("FALLBACK");
        expect(text.trim(), `${lang} ${code}`).not.toBe("");
        // A translation, not the English copied (a code may share its English text only in English).
        if (lang !== "en") expect(text, `${lang} ${code}`).not.toBe(errorText("en", code, ""));
      }
    }
    expect(errorText("nl", "order_no_tickets", "No tickets ordered")).toBe("Kies minstens één ticket.");
  });

  it("falls back to the service's message for a code without a text", () => {
    expect(errorText("nl", "no_such_code", "The service's own words")).toBe("The service's own words");
  });

  it("writes money in the language's way, from integer cents", () => {
    expect(formatMoney(1250, "EUR", "en")).toBe("€12.50");
    expect(formatMoney(1250, "EUR", "nl")).toBe("€\u00a012,50");
    expect(formatMoney(123456, "EUR", "de")).toBe("1.234,56\u00a0€");
  });
});

describe("formatEventDate", () => {
  // 2024-03-05 14:05:09 in Amsterdam (13:05:09 UTC).
  const AT = Date.UTC(2024, 2, 5, 13, 5, 9) / 1000;

  it("writes an event's date with its event_date_format, in its time zone, with names in the page's language", () => {
    const shown = Object.fromEntries(LANGUAGES.map((lang) => [lang, formatEventDate(AT, "l j F Y, H:i", "Europe/Amsterdam", lang)]));
    expect(shown).toEqual({
      en: "Tuesday 5 March 2024, 14:05",
      nl: "dinsdag 5 maart 2024, 14:05",
      de: "Dienstag 5 März 2024, 14:05",
      fr: "mardi 5 mars 2024, 14:05",
      es: "martes 5 marzo 2024, 14:05",
    });
    expect(formatEventDate(AT, "Y-m-d H:i", "UTC", "nl")).toBe("2024-03-05 13:05");
  });
});
