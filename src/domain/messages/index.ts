import { de } from "./de";
import { en } from "./en";
import { es } from "./es";
import { fr } from "./fr";
import { nl } from "./nl";
import type { Catalogue } from "./shape";

/**
 * The service's own words in the five languages of the box office (decisions.md 15 "Languages"): one catalogue per
 * language, shared by the pages the Worker renders and the browser apps. English (en.ts) names every key; the type
 * check holds the other four to the same keys. Organisers' own texts (event and type names, terms) never come from
 * here: they stay as written in every language.
 */
export const LANGUAGES = ["en", "nl", "de", "fr", "es"] as const;
export type Lang = (typeof LANGUAGES)[number];

const CATALOGUES: Record<Lang, Catalogue> = { en, nl, de, fr, es };

function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

export function messagesFor(lang: Lang): Catalogue {
  return CATALOGUES[lang];
}

/**
 * The page's language (decisions.md 15): `?lang=` when it names one of ours, else the first of `Accept-Language`
 * (by its q weights) whose primary tag is ours, else English.
 */
export function pickLanguage(query: string | null | undefined, acceptLanguage: string | null | undefined): Lang {
  const asked = query?.trim().toLowerCase();
  if (isLang(asked)) return asked;
  const ranges = (acceptLanguage ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { primary: tag.trim().toLowerCase().split("-")[0] ?? "", weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((r) => r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return ranges.map((r) => r.primary).find(isLang) ?? "en";
}

/** A message with its `{name}` placeholders filled; a placeholder without a value stays as written. */
export function format(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/**
 * An error's text in the page's language, by its code (domain/error-codes.ts), never by its English text; a code
 * the catalogue has no text for shows the service's own message.
 */
export function errorText(lang: Lang, code: string, fallback: string): string {
  const texts: Readonly<Record<string, string>> = messagesFor(lang).errors;
  return texts[code] ?? fallback;
}

/** An amount in integer cents as the language writes money: `€ 12,50` in Dutch, `€12.50` in English. */
export function formatMoney(cents: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: "currency", currency }).format(cents / 100);
}

export { formatEventDate } from "./event-date";
