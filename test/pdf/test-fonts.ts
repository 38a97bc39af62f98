/**
 * A FontSource over the @fontsource packages in node_modules, read lazily one file at a time (as the Worker would
 * read them from R2): Noto Sans (Latin, Greek, Cyrillic) first, then Noto Sans SC's ~100 slices (CJK, kana).
 */
import notoSansRanges from "@fontsource/noto-sans/unicode.json";
import notoSansScRanges from "@fontsource/noto-sans-sc/unicode.json";
import { facesFromUnicodeRanges, fontsourceFileName, type FontSource } from "../../src/pdf/fonts";

type Loaders = Record<string, () => Promise<string>>;
interface GlobbingMeta {
  glob(pattern: string, options: { query: string; import: string }): Loaders;
}

// Vite inlines each file as a data: URL when (and only when) its loader is called.
const notoSansFiles = (import.meta as unknown as GlobbingMeta).glob("/node_modules/@fontsource/noto-sans/files/noto-sans-*-400-normal.woff", {
  query: "?inline",
  import: "default",
});
const notoSansScFiles = (import.meta as unknown as GlobbingMeta).glob("/node_modules/@fontsource/noto-sans-sc/files/noto-sans-sc-*-400-normal.woff", {
  query: "?inline",
  import: "default",
});

export function dataUrlBytes(url: string): Uint8Array {
  const binary = atob(url.slice(url.indexOf(",") + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export interface CountingFontSource extends FontSource {
  /** Keys loaded, in order. */
  readonly loads: string[];
  readonly errors: { key: string; error: unknown }[];
}

/** `prefix` keeps the per-isolate cache of one source apart from another's. */
export function testFontSource(prefix = "test"): CountingFontSource {
  const loads: string[] = [];
  const errors: { key: string; error: unknown }[] = [];
  const family = (name: string, package_: string, ranges: Record<string, string>, files: Loaders) =>
    facesFromUnicodeRanges(ranges, (subset) => {
      const file = fontsourceFileName(name, subset);
      const key = `${prefix}/${file}`;
      return {
        key,
        load: async () => {
          loads.push(key);
          const loader = files[`/node_modules/@fontsource/${package_}/files/${file}`];
          return loader ? dataUrlBytes(await loader()) : null;
        },
      };
    });
  return {
    faces: [...family("noto-sans", "noto-sans", notoSansRanges, notoSansFiles), ...family("noto-sans-sc", "noto-sans-sc", notoSansScRanges, notoSansScFiles)],
    onError: (key, error) => errors.push({ key, error }),
    loads,
    errors,
  };
}
