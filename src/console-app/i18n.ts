import { createContext, useContext } from "hono/jsx/dom";
import { LANGUAGES, type Lang, pickLanguage } from "../domain/messages";

export { format, formatMoney } from "../domain/messages";
export type { Lang };
export { LANGUAGES };

const STORED = "ticketing-console-lang";

/**
 * The console's language (decisions.md 15, the shop's rule): `?lang=` when it names one of ours, else the one the
 * organiser chose here before, else the browser's languages in order, else English.
 */
export function initialLanguage(): Lang {
  const query = new URLSearchParams(location.search).get("lang");
  const stored = localStorage.getItem(STORED);
  return pickLanguage(query ?? stored, navigator.languages.join(","));
}

export function rememberLanguage(lang: Lang): void {
  localStorage.setItem(STORED, lang);
  document.documentElement.lang = lang;
}

export const LangContext = createContext<Lang>("en");

export function useLang(): Lang {
  return useContext(LangContext);
}

/** The words of one area (messages/<area>.ts) in the console's current language. */
export function useText<C extends Readonly<Record<Lang, object>>>(texts: C): C[Lang] {
  return texts[useLang()];
}
