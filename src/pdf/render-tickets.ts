/**
 * Ticket PDFs, pure: (template bytes, ticket views, block placement, fonts) -> PDF bytes. No routes, no storage.
 *
 * Every page is the template's single page with the QR block on it: 120 mm x 40 mm, the QR code at the top of the
 * left 40 mm square with the ticket's id in text under it, and the info lines to the right, placed with its top-left corner at (`xMm`, `yMm`) from the top-left of
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
  type PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  beginText,
  concatTransformationMatrix,
  decodePDFRawStream,
  drawObject,
  endText,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  setFillingGrayscaleColor,
  setLineWidth,
  setStrokingGrayscaleColor,
  stroke,
  type PDFOperator,
} from "pdf-lib";
import type { FontSource } from "./fonts";
import { pageTreeWithinBudget } from "./page-tree-budget";
import { qrMatrix } from "../lib/qr";
import { qrOperators, round } from "./qr";
import { clean, facesFor, SharedResources, Typesetter } from "./typeset";

export type { FontSource } from "./fonts";

export interface TicketView {
  /** What the QR code carries: the ticket's signed code, or its id. */
  qrPayload: string;
  /** The ticket's id, printed under the code: what a door person types when the code will not scan. */
  ticketId: string;
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

/**
 * The QR column, the block's left 40 mm square, is light all over. The code, quiet zone included, is a 34 mm square
 * at its top, centred; the ticket's id is one line of 10 pt Courier Bold under it (16 characters are 34 mm wide),
 * its baseline 4 mm below the code, so its tallest glyphs stay 1.8 mm clear of the quiet zone and its descenders
 * inside the block (decisions.md 15 "The box office": a door person types the id from a damaged ticket). A signed
 * code (about 115 characters, 53 modules with the quiet zone) keeps modules of 0.64 mm, well above what phone
 * cameras and door scanners read from paper (docs/tickets-pdf.md).
 */
export const QR_SIDE_MM = 34;
export const QR_LEFT_MM = (BLOCK_HEIGHT_MM - QR_SIDE_MM) / 2;
const ID_BASELINE_MM = QR_SIDE_MM + 4;
const ID_FONT_SIZE = 10;

/** Layout inside the block, in mm: the text starts after a gap right of the QR column. */
const TEXT_LEFT_MM = BLOCK_HEIGHT_MM + 2;
const PADDING_MM = 2.5;
const MAX_FONT_SIZE = 12;
const MIN_FONT_SIZE = 4;
const LINE_HEIGHT = 1.25;
const BORDER_WIDTH = 0.75;

/**
 * One page per ticket: each page is a copy of the template's single page (or a plain A4 page when template is
 * null), with the 120 mm x 40 mm QR block (QR code left, info lines right) placed, rotated and scaled as given.
 * Characters no supplied font can draw are transliterated or replaced, never a reason to throw; an unreadable
 * template is (the upload check, `pdfTemplateProblem`, keeps those out), and so is an empty list of tickets.
 */
export async function renderTickets(template: Uint8Array | null, tickets: readonly TicketView[], placement: QrBlockPlacement, fonts?: FontSource): Promise<Uint8Array> {
  if (tickets.length === 0) throw new RangeError("renderTickets needs at least one ticket: a PDF has at least one page");
  const doc = await PDFDocument.create({ updateMetadata: false });
  const background = template ? await copyTemplate(doc, template) : null;
  const boxes = background?.boxes ?? { mediaBox: [0, 0, A4[0], A4[1]], rotate: 0 };

  const views = tickets.map((t) => ({ qr: qrMatrix(String(t.qrPayload ?? "")), id: String(t.ticketId ?? ""), lines: (t.lines ?? []).map(clean) }));
  const faces = await facesFor(
    views.flatMap((v) => v.lines),
    fonts,
  );

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
    ops.push(...qrOperators(view.qr, QR_LEFT_MM * POINTS_PER_MM, 0, QR_SIDE_MM * POINTS_PER_MM, QR_COLUMN));
    ops.push(...blockLines(typeset, view.lines));
    ops.push(...ticketIdLine(typeset, view.id));
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
function placementMatrix(placement: QrBlockPlacement, boxes: PageBoxes): Matrix {
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
 * The template form's mark: the SHA-256 of the template file it was made from. Parts of one download rendered apart
 * each hold a copy of the form; assembling them (merge.ts, assembleParts) keeps one copy per mark.
 */
export const TEMPLATE_DIGEST = PDFName.of("EvtTemplateDigest");

async function templateDigest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Copies the template's first page into `doc` once (with copyPages, which also takes over its resources and
 * inherited attributes) and turns its content into a form XObject; the copied page itself is dropped again. A page
 * with a single content stream keeps that stream as it is (no decoding, no re-compression).
 */
async function copyTemplate(doc: PDFDocument, bytes: Uint8Array): Promise<Background> {
  const source = await PDFDocument.load(bytes, { updateMetadata: false });
  // The upload check refuses such trees (decisions.md 15); a template stored before it must not cost a render more.
  if (!pageTreeWithinBudget(source)) throw new Error("The ticket template's page tree is past its budget");
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

  const digest = await templateDigest(bytes);
  const formEntries = (dict: PDFDict) => {
    dict.set(TEMPLATE_DIGEST, PDFName.of(digest));
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
// The QR column and the info lines

/** The light square behind the code and the id, in block space (`re` operands). */
const QR_COLUMN = [0, -BLOCK_HEIGHT_MM * POINTS_PER_MM, BLOCK_HEIGHT_MM * POINTS_PER_MM, BLOCK_HEIGHT_MM * POINTS_PER_MM] as const;

/** Operators for the ticket id, in block space: one line centred under the code (drawn after the info lines). */
function ticketIdLine(typeset: Typesetter, ticketId: string): PDFOperator[] {
  const centre = (BLOCK_HEIGHT_MM / 2) * POINTS_PER_MM;
  const ops = typeset.showCode(ticketId, centre, -ID_BASELINE_MM * POINTS_PER_MM, ID_FONT_SIZE, QR_SIDE_MM * POINTS_PER_MM);
  return ops.length > 0 ? [setFillingGrayscaleColor(0), beginText(), ...ops, endText()] : [];
}

/** Operators for the info lines, in block space: as many as fit, at one size, vertically centred. */
function blockLines(typeset: Typesetter, lines: readonly string[]): PDFOperator[] {
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
  for (let i = 0; i < fitting; i++) ops.push(...typeset.showLine(lines[i]!, left, -(top + i * lineHeight + size * 0.9), size, maxWidth));
  ops.push(endText());
  return ops;
}
