/**
 * Fonts for ticket text, which holds names in any script.
 *
 * pdf-lib's standard fonts draw WinAnsi only, so the renderer embeds subsets of Unicode fonts through
 * @pdf-lib/fontkit. Which fonts, and where their bytes live, is the caller's business: a `FontSource` is an ordered
 * list of faces, each with the code points it claims (a CSS `unicode-range`) and a `load()` that returns its bytes
 * (from R2, from the bundle, from a test fixture). For every character the first face that claims it *and* has a
 * glyph for it is used; a face is loaded only when some character of the render needs it, so a large family split
 * into many small files (as @fontsource ships Noto Sans SC: some 100 files of 10 to 50 kB, one per slice of
 * characters) costs one small R2 read per slice actually used. Characters no face can draw fall back to Helvetica
 * through `winAnsiCluster` (accents stripped, Greek and Cyrillic transliterated, `?` for the rest): rendering never
 * throws because of a character.
 *
 * Formats: TrueType, OpenType (CFF) and WOFF (unpacked to TrueType once, when loaded: see woff.ts). Not WOFF2:
 * @pdf-lib/fontkit reads WOFF2 but its subsetter copies the transformed `glyf` table as if it were plain, which
 * breaks composite glyphs (any accented letter) or throws, so a WOFF2 file is refused (reported through `onError`)
 * and its characters fall back.
 *
 * Loaded and parsed faces are kept per isolate (at most MAX_CACHED_FACES, least recently used first out; a face that
 * failed to load is retried after FAILED_RETRY_MS), keyed by `FontFace.key`: the key must change when the bytes do.
 *
 * The intended source: @fontsource/noto-sans (Latin, Greek, Cyrillic, Devanagari: 8 files, ~230 kB of WOFF at
 * weight 400) and @fontsource/noto-sans-sc (CJK with kana: ~100 slices, ~3.3 MB of WOFF) uploaded to R2 by a deploy
 * step, and
 *
 *   import latin from "@fontsource/noto-sans/unicode.json";       // ranges per file, 1 kB
 *   import cjk from "@fontsource/noto-sans-sc/unicode.json";      // 77 kB (30 kB gzipped) in the bundle
 *   const r2 = (family: string) => (subset: string) => {
 *     const key = `fonts/5.3.0/${fontsourceFileName(family, subset)}`;
 *     return { key, load: async () => (await env.FILES.get(key))?.arrayBuffer() ?? null };
 *   };
 *   const fonts: FontSource = {   // build once per isolate: resolveFaces indexes it per object
 *     faces: [...facesFromUnicodeRanges(latin, r2("noto-sans")), ...facesFromUnicodeRanges(cjk, r2("noto-sans-sc"))],
 *     onError: (key, error) => log.warn(...),
 *   };
 */
import type * as Fontkit from "@pdf-lib/fontkit";
import type { PDFDocument } from "pdf-lib";
import { isWoff, woffToSfnt } from "./woff";

/** Inclusive code point range. */
export type UnicodeRange = readonly [first: number, last: number];

export interface FontFace {
  /** Identifies the bytes, for the per-isolate cache (an R2 key with a version, a file name with a hash). */
  readonly key: string;
  /** The code points this face is worth loading for; omitted, it is tried for every character not yet drawn. */
  readonly unicodeRange?: readonly UnicodeRange[];
  /** The font file (TTF, OTF or WOFF), or null when it is not available; a throw counts as unavailable. */
  load(): Promise<Uint8Array | ArrayBuffer | null>;
}

export interface FontSource {
  /** Tried in order for every character. */
  readonly faces: readonly FontFace[];
  /** Told when a face cannot be loaded or used (its characters then fall back); must not throw. */
  readonly onError?: (key: string, error: unknown) => void;
}

/**
 * Parses a CSS `unicode-range` value (`U+0000-00FF, U+0131, U+4??`) into ranges; unreadable parts are skipped.
 */
export function parseUnicodeRange(css: string): UnicodeRange[] {
  const ranges: UnicodeRange[] = [];
  for (const raw of css.split(",")) {
    const part = raw.trim().replace(/^[Uu]\+/, "");
    let m: RegExpExecArray | null;
    if ((m = /^([0-9A-Fa-f]{1,6})-([0-9A-Fa-f]{1,6})$/.exec(part))) {
      ranges.push([parseInt(m[1]!, 16), parseInt(m[2]!, 16)]);
    } else if (/^[0-9A-Fa-f?]{1,6}$/.test(part)) {
      ranges.push([parseInt(part.replace(/\?/g, "0"), 16), parseInt(part.replace(/\?/g, "F"), 16)]);
    }
  }
  return ranges;
}

/**
 * Faces for a family split by unicode-range, as @fontsource's `unicode.json` (`{"[21]": "U+9F8D,...", "latin":
 * "U+0000-00FF,..."}`) describes it, in the map's order. `file` names where one subset's bytes are found.
 */
export function facesFromUnicodeRanges(ranges: Readonly<Record<string, string>>, file: (subset: string) => { key: string; load: FontFace["load"] }): FontFace[] {
  return Object.entries(ranges).map(([subset, css]) => ({ ...file(subset), unicodeRange: parseUnicodeRange(css) }));
}

/**
 * The file name @fontsource gives a subset: `fontsourceFileName("noto-sans-sc", "[21]")` is
 * `noto-sans-sc-21-400-normal.woff` (the WOFF, not the WOFF2: see the module comment).
 */
export function fontsourceFileName(family: string, subset: string, weight = 400, style = "normal"): string {
  return `${family}-${subset.replace(/^\[(.*)\]$/, "$1")}-${weight}-${style}.woff`;
}

// ---------------------------------------------------------------------------------------------------------------

/** A face loaded and parsed, ready to embed. */
export interface LoadedFace {
  readonly key: string;
  readonly bytes: Uint8Array;
  has(codePoint: number): boolean;
}

type ParsedFont = Fontkit.Font & { hasGlyphForCodePoint(codePoint: number): boolean };

/**
 * fontkit is imported on first use, not with this module: evaluating it costs some 200 ms of CPU (it unpacks
 * Unicode tables and a Brotli dictionary), which an isolate that never renders a ticket with fonts should not pay
 * at startup. Bundled by wrangler (esbuild, no code splitting) the dynamic import stays in the one script but its
 * evaluation waits until here.
 */
let fontkit: typeof Fontkit | undefined;
let fontkitLoading: Promise<typeof Fontkit> | undefined;

function loadFontkit(): Promise<typeof Fontkit> {
  fontkitLoading ??= import("@pdf-lib/fontkit").then((m) => (fontkit = (m as { default?: typeof Fontkit }).default ?? m));
  return fontkitLoading;
}

const MAX_CACHED_FACES = 64;
const FAILED_RETRY_MS = 60_000;

interface CacheEntry {
  face: Promise<LoadedFace | null>;
  /** Set when loading failed: the entry is retried FAILED_RETRY_MS later. */
  failedAt?: number;
}

const faceCache = new Map<string, CacheEntry>();
/** The parsed font of each cached face's bytes, for the fontkit handed to pdf-lib (no second parse per render). */
const parsedByBytes = new WeakMap<Uint8Array, ParsedFont>();

/** Forgets every loaded face (for measurements and tests). */
export function clearFontCache(): void {
  faceCache.clear();
}

function loadFace(face: FontFace, onError: FontSource["onError"]): Promise<LoadedFace | null> {
  const cached = faceCache.get(face.key);
  if (cached && !(cached.failedAt !== undefined && Date.now() - cached.failedAt > FAILED_RETRY_MS)) {
    faceCache.delete(face.key);
    faceCache.set(face.key, cached);
    return cached.face;
  }
  const entry: CacheEntry = { face: Promise.resolve(null) };
  const report = (error: unknown) => {
    entry.failedAt = Date.now();
    try {
      onError?.(face.key, error);
    } catch {
      // A reporting problem must not become a rendering problem.
    }
  };
  const promise = (async (): Promise<LoadedFace | null> => {
    let data: Uint8Array | ArrayBuffer | null;
    try {
      data = await face.load();
    } catch (error) {
      report(error);
      return null;
    }
    if (!data) {
      report(new Error("font not available"));
      return null;
    }
    let bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    if (bytes.length >= 4 && bytes[0] === 0x77 && bytes[1] === 0x4f && bytes[2] === 0x46 && bytes[3] === 0x32) {
      report(new Error("WOFF2 fonts cannot be subset by @pdf-lib/fontkit; supply the WOFF, TTF or OTF file"));
      return null;
    }
    let font: ParsedFont;
    try {
      if (isWoff(bytes)) bytes = await woffToSfnt(bytes);
      font = (await loadFontkit()).create(bytes) as ParsedFont;
      if (typeof font.hasGlyphForCodePoint !== "function" || !font.unitsPerEm) throw new Error("not a single font");
      // fontkit cannot read the character map of a few files (one slice of @fontsource's Noto Sans SC 5.3.0 among
      // them): such a face is no use, and would throw later.
      font.hasGlyphForCodePoint(0x20);
    } catch (error) {
      report(error);
      return null;
    }
    parsedByBytes.set(bytes, font);
    const has = (cp: number) => {
      try {
        return font.hasGlyphForCodePoint(cp);
      } catch {
        return false;
      }
    };
    return { key: face.key, bytes, has };
  })();
  entry.face = promise;
  faceCache.set(face.key, entry);
  while (faceCache.size > MAX_CACHED_FACES) faceCache.delete(faceCache.keys().next().value!);
  return promise;
}

/** The fontkit pdf-lib is given: fonts loaded here are not parsed a second time. */
export const cachingFontkit: Parameters<PDFDocument["registerFontkit"]>[0] = {
  create(buffer: Uint8Array, postscriptName?: string) {
    const font = parsedByBytes.get(buffer) ?? fontkit?.create(buffer, postscriptName);
    if (!font) throw new Error("fontkit is not loaded: only faces returned by resolveFaces can be embedded");
    return font as never;
  },
};

interface IndexedFace {
  readonly face: FontFace;
  /** Sorted, merged; null claims everything. */
  readonly ranges: readonly UnicodeRange[] | null;
}

const indexes = new WeakMap<FontSource, readonly IndexedFace[]>();

function indexed(source: FontSource): readonly IndexedFace[] {
  let index = indexes.get(source);
  if (!index) {
    index = source.faces.map((face) => {
      if (!face.unicodeRange) return { face, ranges: null };
      const sorted = [...face.unicodeRange].sort((a, b) => a[0] - b[0]);
      const merged: [number, number][] = [];
      for (const [first, last] of sorted) {
        const prev = merged[merged.length - 1];
        if (prev && first <= prev[1] + 1) prev[1] = Math.max(prev[1], last);
        else merged.push([first, last]);
      }
      return { face, ranges: merged };
    });
    indexes.set(source, index);
  }
  return index;
}

function claims(entry: IndexedFace, cp: number): boolean {
  const ranges = entry.ranges;
  if (ranges === null) return true;
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = ranges[mid]!;
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * For each code point, the first face of `source` that claims it and has a glyph for it; code points absent from
 * the result have none. Faces are loaded (in parallel, each at most once) only for the code points that need them.
 */
export async function resolveFaces(codePoints: Iterable<number>, source: FontSource): Promise<Map<number, LoadedFace>> {
  const index = indexed(source);
  const result = new Map<number, LoadedFace>();
  /** Code point -> index of the next face to try. */
  let pending = new Map<number, number>();
  for (const cp of codePoints) pending.set(cp, 0);
  while (pending.size > 0) {
    const wanted = new Map<number, number[]>(); // face index -> code points to check in it
    const next = new Map<number, number>();
    for (const [cp, from] of pending) {
      let i = from;
      while (i < index.length && !claims(index[i]!, cp)) i++;
      if (i === index.length) continue; // no face left: falls back
      let list = wanted.get(i);
      if (!list) wanted.set(i, (list = []));
      list.push(cp);
    }
    const faceIndexes = [...wanted.keys()];
    const loaded = await Promise.all(faceIndexes.map((i) => loadFace(index[i]!.face, source.onError)));
    faceIndexes.forEach((i, n) => {
      const face = loaded[n];
      for (const cp of wanted.get(i)!) {
        if (face?.has(cp)) result.set(cp, face);
        else next.set(cp, i + 1);
      }
    });
    pending = next;
  }
  return result;
}
