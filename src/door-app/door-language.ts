/**
 * The door app's language (decisions.md 15 "Languages"): the phone's (`navigator.languages`, through the same
 * `pickLanguage` as the pages) unless the door person chose one on the set-up screen, which the phone keeps. Every
 * word the app writes comes from the shared catalogues' `door` section (domain/messages); the static words of
 * index.html name their key in `data-text` (and `data-placeholder`) and are filled from it here.
 */
import { LANGUAGES, type Lang, messagesFor, pickLanguage } from "../domain/messages";
import type { Catalogue } from "../domain/messages/shape";

const CHOSEN = "door-language";

function chosen(): string | null {
  try {
    return localStorage.getItem(CHOSEN);
  } catch {
    // Storage refused (a private window's policy): the phone's language.
    return null;
  }
}

let current: Lang = pickLanguage(chosen(), navigator.languages.join(","));

export function doorLanguage(): Lang {
  return current;
}

/** The door's words in the current language. */
export function doorText(): Catalogue["door"] {
  return messagesFor(current).door;
}

/** The person's choice, kept on the phone for the next start. */
function chooseDoorLanguage(lang: Lang): void {
  current = lang;
  try {
    localStorage.setItem(CHOSEN, lang);
  } catch {
    // Not kept: it holds for this visit.
  }
  applyDoorLanguage();
}

/** A catalogue text by its path (`door.ready`); the HTML's own text stays when the path names none. */
function textAt(path: string): string | undefined {
  const found = path.split(".").reduce<unknown>((at, key) => (at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined), messagesFor(current));
  return typeof found === "string" ? found : undefined;
}

/** `<html lang>`, the title and every `data-text` / `data-placeholder` element in the current language. */
export function applyDoorLanguage(): void {
  document.documentElement.lang = current;
  document.title = doorText().title;
  for (const el of document.querySelectorAll<HTMLElement>("[data-text]")) el.textContent = textAt(el.dataset.text!) ?? el.textContent;
  for (const el of document.querySelectorAll<HTMLInputElement>("[data-placeholder]")) el.placeholder = textAt(el.dataset.placeholder!) ?? el.placeholder;
}

/** The set-up screen's language choice: each language in its own name, the current one selected. */
export function fillLanguageSelect(select: HTMLSelectElement, onChange: () => void): void {
  select.replaceChildren(
    ...LANGUAGES.map((lang) => {
      const option = new Option(messagesFor(lang).common.languageName, lang, false, lang === current);
      option.lang = lang;
      return option;
    }),
  );
  select.addEventListener("change", () => {
    const lang = LANGUAGES.find((l) => l === select.value);
    if (lang) chooseDoorLanguage(lang);
    onChange();
  });
}
