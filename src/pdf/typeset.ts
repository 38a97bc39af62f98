/**
 * Text for generated PDFs, in any script: lines are split into clusters, each drawn with the first supplied face
 * that has it (subset-embedded once per document) or, failing that, transliterated into the standard Helvetica
 * (winansi.ts). Lines too wide shrink, then are cut with an ellipsis. Used by the ticket and invoice renderers.
 */
import { type PDFDict, type PDFDocument, PDFName, StandardFonts, setFontAndSize, setTextMatrix, showText, type PDFFont, type PDFOperator, type PDFRef } from "pdf-lib";
import { cachingFontkit, resolveFaces, type FontSource, type LoadedFace } from "./fonts";
import { round } from "./qr";
import { winAnsiCluster } from "./winansi";

const MIN_FONT_SIZE = 4;
/** A line too wide is first shrunk, to at most this fraction of its font size, then cut with an ellipsis. */
const MIN_SHRINK = 0.75;
/** No more of a line is looked at: nothing past it could fit, even at the smallest size. */
const MAX_CLUSTERS = 300;
const ELLIPSIS = "\u2026";

/** The faces the lines need, loaded (none without a font source): for `Typesetter.create`. */
export async function facesFor(lines: Iterable<string>, fonts?: FontSource): Promise<Map<number, LoadedFace>> {
  const codePoints = new Set<number>([ELLIPSIS.codePointAt(0)!]);
  for (const line of lines) for (const ch of line) codePoints.add(ch.codePointAt(0)!);
  return fonts && fonts.faces.length > 0 ? resolveFaces(codePoints, fonts) : new Map<number, LoadedFace>();
}

/** One resource dictionary for every page: the template form and every font of the document. */
export class SharedResources {
  readonly fonts: PDFDict;
  readonly xObjects: PDFDict;
  readonly ref: PDFRef;

  constructor(doc: PDFDocument) {
    this.fonts = doc.context.obj({});
    this.xObjects = doc.context.obj({});
    this.ref = doc.context.register(doc.context.obj({ Font: this.fonts, XObject: this.xObjects }));
  }
}

/** Normalises a line: NFC, no control or format characters (bar joiners), whitespace collapsed, bounded. */
export function clean(line: unknown): string {
  let text = String(line ?? "");
  if (text.length > 4 * MAX_CLUSTERS) text = text.slice(0, 4 * MAX_CLUSTERS); // past any cut, so a split pair is harmless
  return text
    .normalize("NFC")
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/(?![\u200C\u200D])\p{Cf}/gu, "")
    .replace(/\s+/gu, " ")
    .trim();
}

/** A character with the marks, joiners and selectors that belong to it. */
interface Cluster {
  /** What is drawn: the source text with a supplied font, or its WinAnsi stand-in with the standard font. */
  readonly draw: string;
  /** null: the standard font. */
  readonly face: LoadedFace | null;
  readonly space: boolean;
}

interface Run {
  readonly font: EmbeddedFont;
  readonly text: string;
}

interface EmbeddedFont {
  readonly name: string;
  readonly font: PDFFont;
}

// biome-ignore lint/suspicious/noMisleadingCharacterClass: tested against one code point at a time; ZWJ, variation selectors and skin-tone modifiers are listed on purpose
const JOINS_PREVIOUS = /^[\p{M}\u200C\u200D\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u{1F3FB}-\u{1F3FF}]$/u;
const SPACE = /^\p{Zs}$/u;

function splitClusters(line: string): string[] {
  const clusters: string[] = [];
  let afterJoiner = false;
  for (const ch of line) {
    if (clusters.length > 0 && (afterJoiner || JOINS_PREVIOUS.test(ch))) clusters[clusters.length - 1] += ch;
    else clusters.push(ch);
    afterJoiner = ch === "\u200D";
    if (clusters.length > MAX_CLUSTERS) break;
  }
  return clusters.slice(0, MAX_CLUSTERS);
}

export class Typesetter {
  private readonly embedded = new Map<LoadedFace, EmbeddedFont>();
  private standard: EmbeddedFont | null = null;
  private standardCharset: ReadonlySet<number> | null = null;
  private monospace: { font: EmbeddedFont; charset: ReadonlySet<number> } | null = null;

  private constructor(
    private readonly doc: PDFDocument,
    private readonly resources: SharedResources,
    private readonly faces: ReadonlyMap<number, LoadedFace>,
  ) {}

  /** Embeds (as subsets) the supplied faces some character needs; the standard font is added when first used. */
  static async create(doc: PDFDocument, resources: SharedResources, faces: ReadonlyMap<number, LoadedFace>): Promise<Typesetter> {
    const typesetter = new Typesetter(doc, resources, faces);
    const used = new Set(faces.values());
    if (used.size > 0) doc.registerFontkit(cachingFontkit);
    for (const face of used) {
      try {
        const font = await doc.embedFont(face.bytes, { subset: true });
        typesetter.embedded.set(face, typesetter.register(font));
      } catch {
        // Not embeddable after all: its characters fall back (see faceOf).
      }
    }
    return typesetter;
  }

  /**
   * Writes the font subsets, all at once: fontkit's subsetter waits on a zero-delay timer between its steps (some
   * 1.5 ms each in workerd), and pdf-lib's own save would embed the fonts one after the other.
   */
  async embedFonts(): Promise<void> {
    await Promise.all([...this.embedded.values()].map((e) => e.font.embed()));
  }

  private register(font: PDFFont): EmbeddedFont {
    const name = `F${this.resources.fonts.keys().length}`;
    this.resources.fonts.set(PDFName.of(name), font.ref);
    return { name, font };
  }

  private standardFont(): { font: EmbeddedFont; charset: ReadonlySet<number> } {
    if (!this.standard || !this.standardCharset) {
      const font = this.doc.embedStandardFont(StandardFonts.Helvetica);
      this.standard = this.register(font);
      this.standardCharset = new Set(font.getCharacterSet());
    }
    return { font: this.standard, charset: this.standardCharset };
  }

  private monospaceFont(): { font: EmbeddedFont; charset: ReadonlySet<number> } {
    if (!this.monospace) {
      const font = this.doc.embedStandardFont(StandardFonts.CourierBold);
      this.monospace = { font: this.register(font), charset: new Set(font.getCharacterSet()) };
    }
    return this.monospace;
  }

  private faceOf(ch: string): LoadedFace | null {
    const face = this.faces.get(ch.codePointAt(0)!);
    return face && this.embedded.has(face) ? face : null;
  }

  private clusters(line: string): Cluster[] {
    const sources = splitClusters(line);
    const out: Cluster[] = [];
    sources.forEach((source, i) => {
      const space = SPACE.test(source);
      const previous = out[out.length - 1]?.face ?? null;
      // A space stays in the font around it, so that a line does not switch fonts at every word.
      let face = space && previous?.has(source.codePointAt(0)!) ? previous : this.faceOf(source);
      let draw = source;
      if (face) {
        // Marks the base's font lacks are left out rather than drawn as a missing-glyph box.
        const f = face;
        draw = [...source].filter((ch, n) => n === 0 || f.has(ch.codePointAt(0)!)).join("");
      } else {
        face = null;
        draw = winAnsiCluster(source, sources[i - 1], sources[i + 1], this.standardFont().charset);
      }
      out.push({ draw, face, space });
    });
    return out;
  }

  private fontFor(face: LoadedFace | null): EmbeddedFont {
    return face ? this.embedded.get(face)! : this.standardFont().font;
  }

  private runs(clusters: readonly Cluster[]): Run[] {
    const runs: Run[] = [];
    let face: LoadedFace | null | undefined;
    let text = "";
    for (const cluster of clusters) {
      if (cluster.draw === "") continue;
      if (face !== undefined && cluster.face !== face) {
        runs.push({ font: this.fontFor(face), text });
        text = "";
      }
      face = cluster.face;
      text += cluster.draw;
    }
    if (face !== undefined && text !== "") runs.push({ font: this.fontFor(face), text });
    return runs;
  }

  private width(runs: readonly Run[], size: number): number {
    let width = 0;
    for (const run of runs) {
      try {
        width += run.font.font.widthOfTextAtSize(run.text, size);
      } catch {
        width += size * run.text.length;
      }
    }
    return width;
  }

  /** The runs and size of one line no wider than `maxWidth`: shrunk, and if need be cut with an ellipsis. */
  private fit(line: string, size: number, maxWidth: number): { runs: Run[]; size: number } {
    const clusters = this.clusters(line);
    const whole = this.runs(clusters);
    const width = this.width(whole, size);
    if (width <= maxWidth) return { runs: whole, size };
    const smallest = Math.max(MIN_FONT_SIZE, size * MIN_SHRINK);
    const shrunk = Math.max(smallest, Math.floor(((size * maxWidth) / width) * 100) / 100);
    if (this.width(whole, shrunk) <= maxWidth) return { runs: whole, size: shrunk };
    const ellipsis = this.clusters(ELLIPSIS)[0]!;
    const cut = (keep: number): Run[] => {
      let end = keep;
      while (end > 0 && clusters[end - 1]!.space) end--;
      return this.runs([...clusters.slice(0, end), ellipsis]);
    };
    // The longest prefix that fits with the ellipsis after it.
    let lo = 0;
    let hi = clusters.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.width(cut(mid), smallest) <= maxWidth) lo = mid;
      else hi = mid - 1;
    }
    return { runs: cut(lo), size: smallest };
  }

  /** The width of a line at `size`, as drawn when it fits. */
  widthOf(line: string, size: number): number {
    return this.width(this.runs(this.clusters(clean(line))), size);
  }

  /**
   * Operators drawing a code meant to be read by eye and typed (a ticket id) in Courier Bold, centred on `centreX`
   * with its baseline at `y`, at `size` or as much smaller as fits `maxWidth`. Every glyph is as wide as the next
   * and the serifs tell 0 from O and 1, l and I apart, which a proportional sans does not. Characters Courier lacks
   * are left out (a ticket id has none). Inside a text object (`beginText` ... `endText`).
   */
  showCode(code: string, centreX: number, y: number, size: number, maxWidth: number): PDFOperator[] {
    const { font, charset } = this.monospaceFont();
    const text = [...clean(code)].filter((ch) => charset.has(ch.codePointAt(0)!)).join("");
    if (text === "") return [];
    const fitted = Math.min(size, Math.floor((maxWidth / font.font.widthOfTextAtSize(text, 1)) * 100) / 100);
    const width = font.font.widthOfTextAtSize(text, fitted);
    return [setFontAndSize(font.name, round(fitted)), setTextMatrix(1, 0, 0, 1, round(centreX - width / 2), round(y)), showText(font.font.encodeText(text))];
  }

  /**
   * Operators drawing one line with its left end of the baseline at (x, y), no wider than `maxWidth` (shrunk, then
   * cut): inside a text object (`beginText` ... `endText`).
   */
  showLine(line: string, x: number, y: number, size: number, maxWidth: number): PDFOperator[] {
    const { runs, size: lineSize } = this.fit(clean(line), size, maxWidth);
    if (runs.length === 0) return [];
    const ops: PDFOperator[] = [setTextMatrix(1, 0, 0, 1, round(x), round(y))];
    let current = "";
    for (const run of runs) {
      let encoded;
      try {
        encoded = run.font.font.encodeText(run.text);
      } catch {
        continue;
      }
      if (run.font.name !== current) {
        ops.push(setFontAndSize(run.font.name, round(lineSize)));
        current = run.font.name;
      }
      ops.push(showText(encoded));
    }
    return ops;
  }
}
