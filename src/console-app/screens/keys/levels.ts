import type { Schemas } from "../../api";
import type { keysText } from "../../messages/keys";

/** The scan levels (decisions.md 6, "Levels"), in the order the API lists them, with the words that explain each. */
export const LEVELS = [0, 1, 6, 7, 8, 9] as const satisfies readonly Schemas["ScanKey"]["level"][];
export type Level = (typeof LEVELS)[number];

type Words = (typeof keysText)["en"];

export const levelText = (t: Words, level: number): string => (isLevel(level) ? t[`level${level}`] : String(level));
export const levelName = (t: Words, level: number): string => (isLevel(level) ? t[`levelName${level}`] : String(level));

const isLevel = (level: number): level is Level => (LEVELS as readonly number[]).includes(level);
