import latinRanges from "@fontsource/noto-sans/unicode.json";
import cjkRanges from "@fontsource/noto-sans-sc/unicode.json";
import { log } from "../../lib/log";
import { facesFromUnicodeRanges, fontsourceFileName, type FontSource } from "../../pdf/fonts";
import type { FileStore } from "../../platform/file-store";

/** Fonts live in R2 under this prefix (uploaded by the deploy step); the version is part of every key. */
export const FONT_PREFIX = "fonts/noto-5.3.0/";

/**
 * Noto Sans (Latin, Greek, Cyrillic) then Noto Sans SC (Chinese, kana), each file read from R2 only when a
 * character needs it. A file not (yet) in R2 simply falls back (see src/pdf/fonts.ts). Loaded faces are cached per
 * isolate by key, so building this per render costs only the index of ranges.
 */
export function ticketFonts(files: FileStore): FontSource {
  const fromR2 = (family: string) => (subset: string) => {
    const key = `${FONT_PREFIX}${fontsourceFileName(family, subset)}`;
    return { key, load: () => files.getBytes(key) };
  };
  return {
    faces: [...facesFromUnicodeRanges(latinRanges, fromR2("noto-sans")), ...facesFromUnicodeRanges(cjkRanges, fromR2("noto-sans-sc"))],
    onError: (key, error) => log("warn", "ticket font unavailable", { key, error: String(error) }),
  };
}
