import type { Lang } from "../../domain/messages";

/**
 * One area's words in the five languages of the console (decisions.md 15: the shop's languages). English names
 * every key; the type holds the other four to the same keys, so a missing translation fails the type check.
 */
export type Texts<T extends Record<string, string>> = Readonly<Record<Lang, { readonly [K in keyof T]: string }>>;
