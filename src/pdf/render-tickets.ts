/**
 * Ticket PDFs, pure: (template bytes, ticket views, block placement, fonts) -> PDF bytes. No routes, no storage.
 *
 * Every page is the template's single page with the QR block on it: 120 mm x 40 mm, the QR code in the left 40 mm
 * square and the info lines to its right, placed with its top-left corner at (`xMm`, `yMm`) from the top-left of
 * the page as it is shown, scaled by `scalePercent` and turned `rotation` degrees counter-clockwise about that
 * corner (as TCPDF's `Rotate()`), with a thin frame when `border` is set.
 *
 * Cost: the template is parsed once per call and copied into the output once, as a form XObject that every page
 * draws (a 100-ticket order does not hold 100 copies of its images); every page's own content is one small stream
 * of raw operators: one path for all dark QR modules, one text object for the lines. All pages share one resource
 * dictionary. Fonts: see fonts.ts.
 */
import {
  PDFArray,
  PDFContentStream,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  StandardFonts,
  beginText,
  concatTransformationMatrix,
  decodePDFRawStream,
  drawObject,
  endText,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  setFillingGrayscaleColor,
  setFontAndSize,
  setLineWidth,
  setStrokingGrayscaleColor,
  setTextMatrix,
  showText,
  stroke,
  type PDFFont,
  type PDFOperator,
} from "pdf-lib";
import { cachingFontkit, resolveFaces, type FontSource, type LoadedFace } from "./fonts";
import { qrMatrix, qrOperators, round } from "./qr";
import { winAnsiCluster } from "./winansi";

export type { FontFace, FontSource, UnicodeRange } from "./fonts";

export interface TicketView {
  /** What the QR code carries (today the 16-character ticket id). */
  qrPayload: string;
  /**
   * The info lines, composed by the caller: event name, ticket type (with seat), event date (formatted), then the
   * layout fields or order id, name and email.
   */
  lines: string[];
}

/** mm from the top-left of the page; rotation in degrees, counter-clockwise; scale 1-100 (percent). */
export interface QrBlockPlacement {
  xMm: number;
  yMm: number;
  rotation: number;
  scalePercent: number;
  border: boolean;
}

/** A4 in points, the page size when there is no template. */
export const A4: readonly [number, number] = [595.28, 841.89];
export const POINTS_PER_MM = 72 / 25.4;
export const BLOCK_WIDTH_MM = 120;
export const BLOCK_HEIGHT_MM = 40;

/** Layout inside the block, in mm: the QR square is the block's height; the text starts after a gap. */
const TEXT_LEFT_MM = BLOCK_HEIGHT_MM + 2;
const PADDING_MM = 2.5;
const MAX_FONT_SIZE = 12;
const MIN_FONT_SIZE = 4;
const LINE_HEIGHT = 1.25;
/** A line too wide is first shrunk, to at most this fraction of the block's font size, then cut with an ellipsis. */
const MIN_SHRINK = 0.75;
const BORDER_WIDTH = 0.75;
/** No more of a line is looked at: nothing past it could fit, even at the smallest size. */
const MAX_CLUSTERS = 300;
const ELLIPSIS = "\u2026";

/**
 * One page per ticket: each page is a copy of the template's single page (or a plain A4 page when template is
 * null), with the 120 mm x 40 mm QR block (QR code left, info lines right) placed, rotated and scaled as given.
 * Characters no supplied font can draw are transliterated or replaced, never a reason to throw; an unreadable
 * template is (the upload check, `pdfTemplateProblem`, keeps those out), and so is an empty list of tickets.
 */
export async function renderTickets(
  template: Uint8Array | null,
  tickets: readonly TicketView[],
  placement: QrBlockPlacement,
  fonts?: FontSource,
): Promise<Uint8Array> {
  if (tickets.length === 0) throw new RangeError("renderTickets needs at least one ticket: a PDF has at least one page");
  const doc = await PDFDocument.create({ updateMetadata: false });
  const background = template ? await copyTemplate(doc, template) : null;
  const boxes = background?.boxes ?? { mediaBox: [0, 0, A4[0], A4[1]], rotate: 0 };

  const views = tickets.map((t) => ({ qr: qrMatrix(String(t.qrPayload ?? "")), lines: (t.lines ?? []).map(clean) }));
  const codePoints = new Set<number>([ELLIPSIS.codePointAt(0)!]);
  for (const view of views) for (const line of view.lines) for (const ch of line) codePoints.add(ch.codePointAt(0)!);
  const faces = fonts && fonts.faces.length > 0 ? await resolveFaces(codePoints, fonts) : new Map<number, LoadedFace>();

  const resources = new SharedResources(doc);
  if (background?.form) resources.xObjects.set(PDFName.of("Tpl"), background.form);
  const typeset = await Typesetter.create(doc, resources, faces);

  const blockMatrix = placementMatrix(placement, boxes);
  for (const view of views) {
    const page = doc.addPage([boxes.mediaBox[2]! - boxes.mediaBox[0]!, boxes.mediaBox[3]! - boxes.mediaBox[1]!]);
    const node = page.node;
    node.set(PDFName.of("MediaBox"), doc.context.obj(boxes.mediaBox));
    if (boxes.cropBox) node.set(PDFName.of("CropBox"), doc.context.obj(boxes.cropBox));
    if (boxes.rotate) node.set(PDFName.of("Rotate"), PDFNumber.of(boxes.rotate));
    node.set(PDFName.of("Resources"), resources.ref);

    const ops: PDFOperator[] = [];
    if (background?.form) ops.push(drawObject("Tpl"));
    ops.push(pushGraphicsState(), concatTransformationMatrix(...blockMatrix));
    ops.push(...qrOperators(view.qr, 0, 0, BLOCK_HEIGHT_MM * POINTS_PER_MM));
    ops.push(...typeset.lines(view.lines));
    if (placement.border) {
      const inset = BORDER_WIDTH / 2;
      ops.push(
        setLineWidth(BORDER_WIDTH),
        setStrokingGrayscaleColor(0),
        rectangle(
          inset,
          round(-BLOCK_HEIGHT_MM * POINTS_PER_MM + inset),
          round(BLOCK_WIDTH_MM * POINTS_PER_MM - BORDER_WIDTH),
          round(BLOCK_HEIGHT_MM * POINTS_PER_MM - BORDER_WIDTH),
        ),
        stroke(),
      );
    }
    ops.push(popGraphicsState());
    const content = PDFContentStream.of(doc.context.obj({}), ops);
    node.set(PDFName.of("Contents"), doc.context.register(content));
  }
  await typeset.embedFonts();
  return doc.save();
}

// ---------------------------------------------------------------------------------------------------------------
// Placement

type Matrix = [number, number, number, number, number, number];

interface PageBoxes {
  mediaBox: number[];
  cropBox?: number[];
  rotate: number;
}

/** `first` then `second`, in PDF's row-vector convention (`cm` operands). */
function multiply(first: Matrix, second: Matrix): Matrix {
  const [a, b, c, d, e, f] = first;
  const [A, B, C, D, E, F] = second;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}

function finite(n: number, fallback: number): number {
  return typeof n === "number" && Number.isFinite(n) ? n : fallback;
}

/**
 * The `cm` matrix from block space (points, origin at the block's top-left corner, y up, so the block spans y from
 * -40 mm to 0) to the page's user space, through the page as it is shown (its crop box, turned by its /Rotate).
 */
export function placementMatrix(placement: QrBlockPlacement, boxes: PageBoxes): Matrix {
  const scale = Math.min(100, Math.max(1, finite(placement.scalePercent, 100))) / 100;
  const angle = (finite(placement.rotation, 0) * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const x = finite(placement.xMm, 0) * POINTS_PER_MM;
  const y = finite(placement.yMm, 0) * POINTS_PER_MM;
  // Block -> the shown page with y up and its origin at the top-left corner.
  const block: Matrix = [scale * cos, scale * sin, -scale * sin, scale * cos, x, -y];
  const [x0, y0, x1, y1] = visibleBox(boxes);
  const w = x1 - x0;
  const h = y1 - y0;
  // The shown page -> user space, for each /Rotate (the page is shown turned clockwise by it).
  const view: Matrix =
    boxes.rotate === 90
      ? [0, 1, -1, 0, x0, y0]
      : boxes.rotate === 180
        ? [-1, 0, 0, -1, x0 + w, y0]
        : boxes.rotate === 270
          ? [0, -1, 1, 0, x0 + w, y0 + h]
          : [1, 0, 0, 1, x0, y0 + h];
  return multiply(block, view).map(round) as Matrix;
}

/** The crop box clipped to the media box, as [llx, lly, urx, ury]: what a viewer shows. */
function visibleBox(boxes: PageBoxes): [number, number, number, number] {
  const [mx0, my0, mx1, my1] = normalizeBox(boxes.mediaBox);
  if (!boxes.cropBox) return [mx0, my0, mx1, my1];
  const [cx0, cy0, cx1, cy1] = normalizeBox(boxes.cropBox);
  const box: [number, number, number, number] = [Math.max(mx0, cx0), Math.max(my0, cy0), Math.min(mx1, cx1), Math.min(my1, cy1)];
  return box[2] > box[0] && box[3] > box[1] ? box : [mx0, my0, mx1, my1];
}

function normalizeBox(box: readonly number[]): [number, number, number, number] {
  const [a = 0, b = 0, c = 0, d = 0] = box;
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

// ---------------------------------------------------------------------------------------------------------------
// Template

interface Background {
  boxes: PageBoxes;
  /** The page's content as a form XObject, or null for a page without content. */
  form: PDFRef | null;
}

const PAGE_ROTATIONS = new Set([0, 90, 180, 270]);

/**
 * Copies the template's first page into `doc` once (with copyPages, which also takes over its resources and
 * inherited attributes) and turns its content into a form XObject; the copied page itself is dropped again. A page
 * with a single content stream keeps that stream as it is (no decoding, no re-compression).
 */
async function copyTemplate(doc: PDFDocument, bytes: Uint8Array): Promise<Background> {
  const source = await PDFDocument.load(bytes, { updateMetadata: false });
  if (source.getPageCount() < 1) throw new Error("The ticket template has no page");
  const sourceNode = source.getPage(0).node;
  // Annotations (links, form fields) belong to one page; they would be copied for nothing.
  sourceNode.delete(PDFName.of("Annots"));
  sourceNode.delete(PDFName.of("Thumb"));
  const [page] = await doc.copyPages(source, [0]);
  const node = page!.node;
  const context = doc.context;

  const numbers = (array: PDFArray | undefined): number[] | undefined =>
    array?.asArray().map((item) => {
      const value = context.lookup(item);
      return value instanceof PDFNumber ? value.asNumber() : 0;
    });
  const mediaBox = numbers(node.MediaBox()) ?? [0, 0, A4[0], A4[1]];
  const cropBox = numbers(node.CropBox());
  const rawRotate = node.Rotate()?.asNumber() ?? 0;
  const rotate = ((Math.round(rawRotate) % 360) + 360) % 360;
  const boxes: PageBoxes = { mediaBox, rotate: PAGE_ROTATIONS.has(rotate) ? rotate : 0, ...(cropBox ? { cropBox } : {}) };

  const contents = node.get(PDFName.of("Contents"));
  const contentRefs: PDFRef[] = [];
  const streams: PDFStream[] = [];
  const collect = (item: unknown) => {
    const stream = item instanceof PDFRef ? context.lookup(item) : item;
    if (item instanceof PDFRef) contentRefs.push(item);
    if (stream instanceof PDFStream) streams.push(stream);
  };
  const resolved = contents instanceof PDFRef ? context.lookup(contents) : contents;
  if (resolved instanceof PDFArray) resolved.asArray().forEach(collect);
  else if (contents !== undefined) collect(contents);

  const formEntries = (dict: PDFDict) => {
    dict.set(PDFName.of("Type"), PDFName.of("XObject"));
    dict.set(PDFName.of("Subtype"), PDFName.of("Form"));
    dict.set(PDFName.of("FormType"), PDFNumber.of(1));
    dict.set(PDFName.of("BBox"), context.obj(mediaBox));
    dict.set(PDFName.of("Resources"), node.get(PDFName.of("Resources")) ?? context.obj({}));
    const group = node.get(PDFName.of("Group"));
    if (group) dict.set(PDFName.of("Group"), group);
  };

  let form: PDFRef | null = null;
  if (streams.length === 1 && streams[0] instanceof PDFRawStream && contentRefs.length === 1) {
    formEntries(streams[0].dict);
    form = contentRefs[0]!;
  } else if (streams.length > 0) {
    const parts: Uint8Array[] = [];
    for (const stream of streams) {
      parts.push(stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : (stream as PDFContentStream).getUnencodedContents());
      parts.push(new Uint8Array([0x0a]));
    }
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    const stream = context.flateStream(joined);
    formEntries(stream.dict);
    form = context.register(stream);
    for (const ref of contentRefs) context.delete(ref);
  }
  context.delete(page!.ref);
  return { boxes, form };
}

// ---------------------------------------------------------------------------------------------------------------
// Text

/** One resource dictionary for every page: the template form and every font of the document. */
class SharedResources {
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
function clean(line: unknown): string {
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

class Typesetter {
  private readonly embedded = new Map<LoadedFace, EmbeddedFont>();
  private standard: EmbeddedFont | null = null;
  private standardCharset: ReadonlySet<number> | null = null;

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

  /** Operators for the info lines, in block space. */
  lines(lines: readonly string[]): PDFOperator[] {
    const shown = lines.length;
    if (shown === 0) return [];
    const innerHeight = (BLOCK_HEIGHT_MM - 2 * PADDING_MM) * POINTS_PER_MM;
    const size = Math.max(MIN_FONT_SIZE, Math.min(MAX_FONT_SIZE, innerHeight / (shown * LINE_HEIGHT)));
    const lineHeight = size * LINE_HEIGHT;
    const fitting = Math.max(1, Math.min(shown, Math.floor(innerHeight / lineHeight + 1e-9)));
    const top = PADDING_MM * POINTS_PER_MM + Math.max(0, (innerHeight - fitting * lineHeight) / 2);
    const left = TEXT_LEFT_MM * POINTS_PER_MM;
    const maxWidth = (BLOCK_WIDTH_MM - TEXT_LEFT_MM - PADDING_MM) * POINTS_PER_MM;

    const ops: PDFOperator[] = [setFillingGrayscaleColor(0), beginText()];
    for (let i = 0; i < fitting; i++) {
      const { runs, size: lineSize } = this.fit(lines[i]!, size, maxWidth);
      if (runs.length === 0) continue;
      ops.push(setTextMatrix(1, 0, 0, 1, round(left), round(-(top + i * lineHeight + size * 0.9))));
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
    }
    ops.push(endText());
    return ops;
  }
}
