import qrcode from "qrcode-generator";
import {
  PDFDocument,
  PDFName,
  PDFPageLeaf,
  PDFRawStream,
  StandardFonts,
  concatTransformationMatrix,
  degrees,
  drawObject,
  popGraphicsState,
  pushGraphicsState,
  rgb,
} from "pdf-lib";
import { describe, expect, it } from "vitest";
import type { FontSource } from "../../src/pdf/fonts";
import { QR_ERROR_CORRECTION, QR_QUIET_ZONE_MODULES, qrMatrix, qrRuns } from "../../src/lib/qr";
import {
  A4,
  BLOCK_HEIGHT_MM,
  BLOCK_WIDTH_MM,
  POINTS_PER_MM,
  QR_LEFT_MM,
  QR_SIDE_MM,
  renderTickets,
  type QrBlockPlacement,
  type TicketView,
} from "../../src/pdf/render-tickets";
import { readPage, streamBytes, tokenize, xObject, type Fill, type PageDrawing } from "./pdf-inspect";
import { dataUrlBytes, testFontSource } from "./test-fonts";

const MM = POINTS_PER_MM;
/** The QR column (the block's left square, light all over) and the code's square in it, quiet zone included. */
const COLUMN = BLOCK_HEIGHT_MM * MM;
const QR_SIDE = QR_SIDE_MM * MM;
const QR_LEFT = QR_LEFT_MM * MM;
const PLACE: QrBlockPlacement = { xMm: 20, yMm: 30, rotation: 0, scalePercent: 100, border: true };

function ticket(id: string, name = "Jan Jansen", email = "jan@example.com"): TicketView {
  return { qrPayload: id, ticketId: id, lines: ["Spring Concert", "Regular (Row A, seat 12)", "Sat 14 March 2026, 20:00", `Order ${id.slice(0, 6)}`, name, email] };
}

async function render(tickets: readonly TicketView[], placement: Partial<QrBlockPlacement> = {}, template: Uint8Array | null = null, fonts?: FontSource) {
  const bytes = await renderTickets(template, tickets, { ...PLACE, ...placement }, fonts);
  const doc = await PDFDocument.load(bytes);
  return { bytes, doc, pages: doc.getPages().map(readPage) };
}

/** The expected dark modules, built here from qrcode-generator itself. */
function expectedModules(payload: string): { size: number; dark: Set<string> } {
  const code = qrcode(0, QR_ERROR_CORRECTION);
  code.addData(payload);
  code.make();
  const size = code.getModuleCount();
  const dark = new Set<string>();
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (code.isDark(r, c)) dark.add(`${r},${c}`);
  return { size, dark };
}

/** The fill with the most rectangles is the QR path. */
function qrFill(page: PageDrawing): Fill {
  return page.fills.reduce((best, f) => (f.rects.length > best.rects.length ? f : best));
}

/** The modules the QR path covers, read back from its rectangles (block space: top-left origin, y up). */
function drawnModules(fill: Fill, size: number): Set<string> {
  const module = QR_SIDE / (size + 2 * QR_QUIET_ZONE_MODULES);
  const modules = new Set<string>();
  for (const [x, y, w, h] of fill.rects) {
    const col = Math.round((x - QR_LEFT) / module) - QR_QUIET_ZONE_MODULES;
    const row = Math.round(-(y + h) / module) - QR_QUIET_ZONE_MODULES;
    const cols = Math.round(w / module);
    const rows = Math.round(h / module);
    expect(Math.abs(cols * module - w)).toBeLessThan(0.01);
    expect(Math.abs(rows * module - h)).toBeLessThan(0.01);
    for (let r = row; r < row + rows; r++) for (let c = col; c < col + cols; c++) modules.add(`${r},${c}`);
  }
  return modules;
}

/** The block matrix (`cm`) applied to a block-space point. */
function apply(m: number[], x: number, y: number): [number, number] {
  return [m[0]! * x + m[2]! * y + m[4]!, m[1]! * x + m[3]! * y + m[5]!];
}

function blockCorners(m: number[]): [number, number][] {
  const w = BLOCK_WIDTH_MM * MM;
  const h = BLOCK_HEIGHT_MM * MM;
  return [apply(m, 0, 0), apply(m, w, 0), apply(m, w, -h), apply(m, 0, -h)];
}

function close(actual: number, expected: number, tolerance = 0.01) {
  expect(Math.abs(actual - expected), `${actual} ~ ${expected}`).toBeLessThan(tolerance);
}

async function makeTemplate(
  options: { size?: [number, number]; rotate?: number; mediaBox?: number[]; cropBox?: number[]; extraStream?: boolean; imageBytes?: number } = {},
) {
  const doc = await PDFDocument.create();
  const page = doc.addPage(options.size ?? [612, 792]);
  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  page.drawRectangle({ x: 30, y: 30, width: 100, height: 50, color: rgb(1, 0, 0) });
  page.drawText("TEMPLATE", { x: 40, y: 700, size: 30, font });
  if (options.imageBytes) {
    // Incompressible pixels, so that copying the image per page would show in the output size.
    const side = Math.ceil(Math.sqrt(options.imageBytes / 3));
    const pixels = new Uint8Array(side * side * 3);
    let seed = 7;
    for (let i = 0; i < pixels.length; i++) pixels[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const image = doc.context.register(
      doc.context.stream(pixels, { Type: "XObject", Subtype: "Image", Width: side, Height: side, ColorSpace: "DeviceRGB", BitsPerComponent: 8 }),
    );
    const name = page.node.newXObject("Img", image);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(100, 0, 0, 100, 300, 300), drawObject(name), popGraphicsState());
  }
  if (options.rotate) page.setRotation(degrees(options.rotate));
  if (options.mediaBox) page.node.set(PDFName.of("MediaBox"), doc.context.obj(options.mediaBox));
  if (options.cropBox) page.node.set(PDFName.of("CropBox"), doc.context.obj(options.cropBox));
  let bytes = await doc.save();
  if (options.extraStream) {
    // A page of a loaded document drawn on again has several content streams.
    const again = await PDFDocument.load(bytes);
    again.getPage(0).drawRectangle({ x: 200, y: 200, width: 20, height: 20, color: rgb(0, 0, 1) });
    bytes = await again.save();
  }
  return bytes;
}

describe("pages", () => {
  it("renders one plain A4 page per ticket without a template", async () => {
    const { doc, pages } = await render([ticket("AAAAAAAAAAAAAAA1"), ticket("AAAAAAAAAAAAAAA2"), ticket("AAAAAAAAAAAAAAA3")]);
    expect(doc.getPageCount()).toBe(3);
    for (const page of doc.getPages()) {
      const { width, height } = page.getSize();
      close(width, A4[0]);
      close(height, A4[1]);
    }
    expect(pages.every((p) => p.xObjects.length === 0)).toBe(true);
  });

  it("refuses an empty list of tickets (a PDF needs a page)", async () => {
    await expect(renderTickets(null, [], PLACE)).rejects.toThrow(RangeError);
  });

  it("uses the template's single page as the background of every page, embedded once", async () => {
    const template = await makeTemplate({ size: [612, 792] });
    const { doc, pages } = await render([ticket("T000000000000001"), ticket("T000000000000002")], {}, template);
    expect(doc.getPageCount()).toBe(2);
    for (const [i, page] of doc.getPages().entries()) {
      expect(page.getSize()).toEqual({ width: 612, height: 792 });
      // The template is drawn first, under the block.
      expect(pages[i]!.ops[0]).toMatchObject({ op: "Do", args: [{ name: "Tpl" }] });
    }
    const first = xObject(doc.getPage(0), "Tpl");
    const second = xObject(doc.getPage(1), "Tpl");
    expect(first.ref).toBe(second.ref);
    expect(first.stream.dict.lookup(PDFName.of("Subtype"))).toBe(PDFName.of("Form"));
    const bbox = first.stream.dict.lookup(PDFName.of("BBox"))!.toString();
    expect(bbox.replace(/\s+/g, " ")).toBe("[ 0 0 612 792 ]");
    // The template's own drawing (the red rectangle, the word TEMPLATE) is in the form.
    const templateOps = tokenize(streamBytes(first.stream));
    expect(templateOps.some((o) => o.op === "rg" && o.args.join() === "1,0,0")).toBe(true);
    const shown = templateOps.filter((o) => o.op === "Tj").map((o) => JSON.stringify(o.args[0]));
    expect(shown.join()).toContain("54454D504C415445"); // "TEMPLATE" in hex
    // One form in the whole file, and no page object left over from the copy.
    const forms = doc.context.enumerateIndirectObjects().filter(([, o]) => o instanceof PDFRawStream && o.dict.lookup(PDFName.of("Subtype")) === PDFName.of("Form"));
    expect(forms).toHaveLength(1);
    const pageObjects = doc.context.enumerateIndirectObjects().filter(([, o]) => o instanceof PDFPageLeaf);
    expect(pageObjects).toHaveLength(2);
  });

  it("keeps a template's media box, crop box and rotation", async () => {
    const template = await makeTemplate({ mediaBox: [10, 20, 605.28, 861.89], cropBox: [20, 30, 590, 850], rotate: 90 });
    const { doc } = await render([ticket("T000000000000003")], {}, template);
    const page = doc.getPage(0);
    expect(page.getMediaBox()).toEqual({ x: 10, y: 20, width: 595.28, height: 841.89 });
    expect(page.getCropBox()).toEqual({ x: 20, y: 30, width: 570, height: 820 });
    expect(page.getRotation().angle).toBe(90);
    const bbox = xObject(page, "Tpl").stream.dict.lookup(PDFName.of("BBox"))!.toString();
    expect(bbox.replace(/\s+/g, " ")).toBe("[ 10 20 605.28 861.89 ]");
  });

  it("joins a template's several content streams into one form", async () => {
    const template = await makeTemplate({ extraStream: true });
    const source = await PDFDocument.load(template);
    expect((source.getPage(0).node.Contents() as unknown as { size(): number }).size()).toBeGreaterThan(1);
    const { doc } = await render([ticket("T000000000000004")], {}, template);
    const ops = tokenize(streamBytes(xObject(doc.getPage(0), "Tpl").stream));
    expect(ops.filter((o) => o.op === "rg").map((o) => o.args.join())).toEqual(expect.arrayContaining(["1,0,0", "0,0,1"]));
  });

  it("does not copy the template's content or images per ticket", async () => {
    const template = await makeTemplate({ imageBytes: 60_000 });
    const one = await render([ticket("S000000000000000")], {}, template);
    const many = await render(
      Array.from({ length: 20 }, (_, i) => ticket(`S${String(i).padStart(15, "0")}`)),
      {},
      template,
    );
    expect(one.bytes.length).toBeGreaterThan(60_000);
    // 19 more pages of QR code and text: a few kB each, never another copy of the image.
    expect(many.bytes.length - one.bytes.length).toBeLessThan(19 * 3_000);
  });
});

describe("QR code", () => {
  it("draws exactly the dark modules of the payload, as one filled path", async () => {
    const payloads = ["K7Q2M9X4D1F8H3J6", "AAAAAAAAAAAAAAAA", "https://tickets.example/v/K7Q2M9X4D1F8H3J6?sig=abc123"];
    const { pages } = await render(payloads.map((p) => ticket(p)));
    pages.forEach((page, i) => {
      const expected = expectedModules(payloads[i]!);
      const fill = qrFill(page);
      expect(fill.gray).toBe(0);
      expect(drawnModules(fill, expected.size)).toEqual(expected.dark);
      // One `f` for all modules: there is a single fill with more than one rectangle.
      expect(page.fills.filter((f) => f.rects.length > 1)).toHaveLength(1);
      expect(page.ops.filter((o) => o.op === "f").length).toBe(2); // the light square and the modules
    });
  });

  it("keeps a light quiet zone behind the code", async () => {
    const { pages } = await render([ticket("K7Q2M9X4D1F8H3J6")]);
    const light = pages[0]!.fills.find((f) => f.gray === 1)!;
    expect(light.rects).toHaveLength(1);
    // The whole QR column is light: the code's square (quiet zone included) and the ticket id under it.
    const [x, y, w, h] = light.rects[0]!;
    close(x, 0);
    close(y, -COLUMN);
    close(w, COLUMN);
    close(h, COLUMN);
    expect(QR_LEFT).toBeGreaterThanOrEqual(0);
    expect(QR_LEFT + QR_SIDE).toBeLessThanOrEqual(COLUMN);
  });

  it("exposes the matrix it draws, which matches qrcode-generator's, and merges runs", () => {
    const payload = "K7Q2M9X4D1F8H3J6";
    const matrix = qrMatrix(payload);
    const expected = expectedModules(payload);
    expect(matrix.size).toBe(expected.size);
    const drawn = new Set<string>();
    for (const run of qrRuns(matrix)) for (let c = run.col; c < run.col + run.length; c++) drawn.add(`${run.row},${c}`);
    expect(drawn).toEqual(expected.dark);
    expect(qrRuns(matrix).length).toBeLessThan(expected.dark.size);
  });

  it("encodes non-ASCII payloads as UTF-8", () => {
    const matrix = qrMatrix("Łódź");
    const code = qrcode(0, QR_ERROR_CORRECTION);
    code.addData(String.fromCharCode(...new TextEncoder().encode("Łódź")), "Byte");
    code.make();
    for (let r = 0; r < matrix.size; r++) for (let c = 0; c < matrix.size; c++) expect(matrix.dark[r]![c]).toBe(code.isDark(r, c));
  });
});

describe("the ticket id under the code (decisions.md 15 'The box office': a door person types it from a damaged ticket)", () => {
  /** Courier's glyphs are all 600/1000 of the size wide. */
  const COURIER_ADVANCE = 0.6;

  it("shows the ticket's id in one monospaced line of at least 8 pt, centred under the code and clear of its quiet zone", async () => {
    // A signed code (about 115 characters) is the largest code drawn; its ticket id is the text.
    const id = "aB3dE5gH7jK9lI1O";
    const signed = `k1.123456.${id}.${"Q".repeat(85)}A`;
    const { pages } = await render([{ qrPayload: signed, ticketId: id, lines: ["Spring Concert", "Regular"] }]);
    const page = pages[0]!;
    const line = page.lines.find((l) => l.text === id);
    expect(line, JSON.stringify(page.lines.map((l) => l.text))).toBeDefined();
    expect(line!.fonts.every((f) => f.startsWith("Courier"))).toBe(true);
    const size = line!.sizes[0]!;
    expect(size).toBeGreaterThanOrEqual(8);

    // The code's box: its dark modules plus the 4-module quiet zone around them.
    const fill = qrFill(page);
    const module = Math.min(...fill.rects.map((r) => r[3]));
    const left = Math.min(...fill.rects.map((r) => r[0])) - QR_QUIET_ZONE_MODULES * module;
    const right = Math.max(...fill.rects.map((r) => r[0] + r[2])) + QR_QUIET_ZONE_MODULES * module;
    const bottom = Math.min(...fill.rects.map((r) => r[1])) - QR_QUIET_ZONE_MODULES * module;
    // Under the box (its tallest glyphs, 0.63 of the size for Courier's ascenders, stay out of the quiet zone), inside the block.
    expect(line!.y + 0.63 * size).toBeLessThan(bottom);
    expect(line!.y - 0.16 * size).toBeGreaterThan(-BLOCK_HEIGHT_MM * MM);
    // Centred under the code, and no wider than it.
    const width = COURIER_ADVANCE * size * id.length;
    close(line!.x + width / 2, (left + right) / 2, 0.05);
    expect(width).toBeLessThanOrEqual(right - left);
    // On the light square, so that a template's picture never runs behind it.
    const light = page.fills.find((f) => f.gray === 1)!.rects[0]!;
    expect(line!.x).toBeGreaterThanOrEqual(light[0]);
    expect(line!.x + width).toBeLessThanOrEqual(light[0] + light[2]);
    expect(line!.y - 0.16 * size).toBeGreaterThanOrEqual(light[1]);
  });

  it("keeps the code large enough to scan: modules of at least 0.5 mm for a signed code", async () => {
    const id = "K7Q2M9X4D1F8H3J6";
    const { pages } = await render([{ qrPayload: `k1.123456.${id}.${"Q".repeat(85)}A`, ticketId: id, lines: [] }]);
    const fill = qrFill(pages[0]!);
    const module = Math.min(...fill.rects.map((r) => r[3]));
    expect(module / MM).toBeGreaterThanOrEqual(0.5);
  });
});

describe("info lines", () => {
  it("shows every line, top to bottom, right of the code", async () => {
    const view = ticket("K7Q2M9X4D1F8H3J6");
    const { pages } = await render([view]);
    // The info lines, then the ticket id under the code.
    expect(pages[0]!.lines.map((l) => l.text)).toEqual([...view.lines, view.ticketId]);
    const lines = pages[0]!.lines.slice(0, view.lines.length);
    for (const [i, line] of lines.entries()) {
      expect(line.x).toBeGreaterThan(COLUMN);
      if (i > 0) expect(line.y).toBeLessThan(lines[i - 1]!.y);
      expect(line.y).toBeLessThan(0);
      expect(line.y).toBeGreaterThan(-COLUMN);
    }
  });

  it("fits up to nine lines (three fixed, six layout fields) inside the block", async () => {
    const view: TicketView = { qrPayload: "K7Q2M9X4D1F8H3J6", ticketId: "K7Q2M9X4D1F8H3J6", lines: Array.from({ length: 9 }, (_, i) => `Line ${i + 1}`) };
    const { pages } = await render([view]);
    expect(pages[0]!.lines.map((l) => l.text)).toEqual([...view.lines, view.ticketId]);
    const lines = pages[0]!.lines.slice(0, view.lines.length);
    const size = lines[0]!.sizes[0]!;
    expect(lines.at(-1)!.y - size * 0.25).toBeGreaterThan(-COLUMN);
    expect(lines[0]!.y + size).toBeLessThan(0);
  });

  it("shrinks a line a little too long, and cuts a much longer one with an ellipsis", async () => {
    const slightly = "a".repeat(40);
    const much = "Grand Symphonic Evening With The Philharmonic ".repeat(4).trim();
    const view: TicketView = { qrPayload: "K7Q2M9X4D1F8H3J6", ticketId: "K7Q2M9X4D1F8H3J6", lines: ["Short", slightly, much, "Tail"] };
    const { pages } = await render([view]);
    const [short, shrunk, cut, tail] = pages[0]!.lines;
    expect(short!.text).toBe("Short");
    expect(shrunk!.text).toBe(slightly);
    expect(shrunk!.sizes[0]).toBeLessThan(short!.sizes[0]!);
    expect(cut!.text.endsWith("\u2026")).toBe(true);
    expect(much.startsWith(cut!.text.slice(0, -1))).toBe(true);
    expect(cut!.text.length).toBeGreaterThan(20);
    expect(cut!.text.at(-2)).not.toBe(" ");
    expect(tail!.text).toBe("Tail");
    // Helvetica's widths: the cut line fits the text column at its size.
    const helvetica = (await PDFDocument.create()).embedStandardFont(StandardFonts.Helvetica);
    const column = (BLOCK_WIDTH_MM - BLOCK_HEIGHT_MM - 2 - 2.5) * MM;
    expect(helvetica.widthOfTextAtSize(cut!.text, cut!.sizes[0]!)).toBeLessThanOrEqual(column + 0.01);
    expect(helvetica.widthOfTextAtSize(shrunk!.text, shrunk!.sizes[0]!)).toBeLessThanOrEqual(column + 0.01);
  });

  it("cleans control characters and collapses whitespace", async () => {
    const { pages } = await render([{ qrPayload: "X", ticketId: "X", lines: ["  Jan\tJansen\r\n(VIP)\u0000 ", "a\u00ADb"] }]);
    expect(pages[0]!.lines.map((l) => l.text)).toEqual(["Jan Jansen (VIP)", "ab", "X"]);
  });
});

describe("placement", () => {
  it("puts the block's top-left corner at x, y mm from the page's top-left", async () => {
    const { pages } = await render([ticket("P000000000000001")], { xMm: 20, yMm: 30 });
    const m = pages[0]!.matrices[0]!;
    const [x, y] = apply(m, 0, 0);
    close(x, 20 * MM);
    close(y, A4[1] - 30 * MM);
    const corners = blockCorners(m);
    close(corners[2]![0], (20 + BLOCK_WIDTH_MM) * MM);
    close(corners[2]![1], A4[1] - (30 + BLOCK_HEIGHT_MM) * MM);
  });

  it("moves with x and y", async () => {
    const a = (await render([ticket("P1")], { xMm: 10, yMm: 10 })).pages[0]!.matrices[0]!;
    const b = (await render([ticket("P1")], { xMm: 60, yMm: 200 })).pages[0]!.matrices[0]!;
    close(b[4]! - a[4]!, 50 * MM);
    close(a[5]! - b[5]!, 190 * MM);
  });

  it("rotates counter-clockwise about the top-left corner", async () => {
    const m = (await render([ticket("P2")], { xMm: 50, yMm: 200, rotation: 90 })).pages[0]!.matrices[0]!;
    close(m[0]!, 0);
    close(m[1]!, 1);
    close(m[2]!, -1);
    close(m[3]!, 0);
    const corners = blockCorners(m);
    close(corners[0]![0], 50 * MM);
    close(corners[0]![1], A4[1] - 200 * MM);
    // The block's length now runs up the page, its height to the right of the corner.
    close(corners[1]![0], 50 * MM);
    close(corners[1]![1], A4[1] - 200 * MM + BLOCK_WIDTH_MM * MM);
    close(corners[3]![0], 50 * MM + BLOCK_HEIGHT_MM * MM);
  });

  it("scales from the top-left corner, within 1 to 100 percent", async () => {
    const half = (await render([ticket("P3")], { xMm: 10, yMm: 10, scalePercent: 50 })).pages[0]!.matrices[0]!;
    close(half[0]!, 0.5);
    close(half[3]!, 0.5);
    const corners = blockCorners(half);
    close(corners[2]![0] - corners[0]![0], 60 * MM);
    close(corners[0]![1] - corners[2]![1], 20 * MM);
    const clamped = (await render([ticket("P3")], { scalePercent: 250 })).pages[0]!.matrices[0]!;
    close(clamped[0]!, 1);
    const tiny = (await render([ticket("P3")], { scalePercent: 0 })).pages[0]!.matrices[0]!;
    close(tiny[0]!, 0.01);
    const garbage = (await render([ticket("P3")], { scalePercent: Number.NaN, rotation: Number.NaN, xMm: Number.NaN })).pages[0]!.matrices[0]!;
    expect(garbage.slice(0, 5)).toEqual([1, 0, 0, 1, 0]);
  });

  it("places the block on the page as shown for a template turned by /Rotate", async () => {
    // Portrait media box shown as landscape: the shown top-left is the media box's bottom-left corner.
    const template = await makeTemplate({ size: [595.28, 841.89], rotate: 90 });
    const m = (await render([ticket("P4")], { xMm: 10, yMm: 20 }, template)).pages[0]!.matrices[0]!;
    const [x, y] = apply(m, 0, 0);
    close(x, 20 * MM);
    close(y, 10 * MM);
    // "Right" on the shown page is "up" in the media box.
    const [rx, ry] = apply(m, 1, 0);
    close(rx - x, 0);
    close(ry - y, 1);
  });

  it("draws a frame around the block only with border", async () => {
    const framed = (await render([ticket("B1")], { border: true })).pages[0]!;
    expect(framed.strokes).toHaveLength(1);
    const [x, y, w, h] = framed.strokes[0]![0]!;
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThan(1);
    expect(w).toBeGreaterThan(BLOCK_WIDTH_MM * MM - 1);
    expect(w).toBeLessThanOrEqual(BLOCK_WIDTH_MM * MM);
    expect(h).toBeGreaterThan(BLOCK_HEIGHT_MM * MM - 1);
    expect(y).toBeLessThan(-BLOCK_HEIGHT_MM * MM + 1);
    const bare = (await render([ticket("B1")], { border: false })).pages[0]!;
    expect(bare.strokes).toHaveLength(0);
    expect(bare.ops.some((o) => o.op === "S")).toBe(false);
  });
});

describe("names in any script", () => {
  const names = ["Łukasz Wróbel", "Ελένη Παπαδοπούλου", "Дмитрий Иванов", "李小龍", "山田太郎", "Zoë Ørsted-Nuñez"];

  it("draws Polish, Greek, Cyrillic, Chinese and Japanese names with the supplied fonts", async () => {
    const fonts = testFontSource("scripts");
    const tickets = names.map((name, i) => ticket(`N00000000000000${i}`, name, "guest@example.com"));
    const { pages } = await render(tickets, {}, null, fonts);
    expect(fonts.errors).toEqual([]);
    pages.forEach((page, i) => {
      const line = page.lines[4]!;
      expect(line.text).toBe(names[i]);
      // No character fell back to Helvetica.
      expect(line.fonts.some((f) => f.includes("Helvetica"))).toBe(false);
    });
    // CJK comes from Noto Sans SC, the rest from Noto Sans; whole lines stay in one font where they can.
    expect(pages[3]!.lines[4]!.fonts.every((f) => f.includes("NotoSansSC"))).toBe(true);
    expect(pages[1]!.lines[4]!.fonts.every((f) => f.includes("NotoSans") && !f.includes("SC"))).toBe(true);
    // Only the slices that hold these characters were read, not the whole family.
    expect(fonts.loads.length).toBeLessThan(20);
  });

  it("mixes fonts within a line", async () => {
    const fonts = testFontSource("mixed");
    const { pages } = await render([{ qrPayload: "M", ticketId: "M", lines: ["Concert 李小龍 Ελένη"] }], {}, null, fonts);
    const line = pages[0]!.lines[0]!;
    expect(line.text).toBe("Concert 李小龍 Ελένη");
    expect(new Set(line.fonts).size).toBeGreaterThan(1);
  });

  it("loads each face once per isolate", async () => {
    const fonts = testFontSource("cache");
    await render([ticket("C1", "Ελένη")], {}, null, fonts);
    const first = fonts.loads.length;
    expect(first).toBeGreaterThan(0);
    await render([ticket("C2", "Ελένη")], {}, null, fonts);
    expect(fonts.loads.length).toBe(first);
  });

  it("transliterates what Helvetica cannot draw when no fonts are supplied", async () => {
    const { pages } = await render(names.map((name, i) => ticket(`W${i}`, name)));
    expect(pages.map((p) => p.lines[4]!.text)).toEqual([
      "Lukasz Wróbel", // ó is WinAnsi: only what Helvetica lacks is replaced
      "Eleni Papadopoulou",
      "Dmitriy Ivanov",
      "???",
      "????",
      "Zoë Ørsted-Nuñez",
    ]);
  });

  it("never throws on characters nothing can draw", async () => {
    const odd = ["😀🎟️ 👩‍👩‍👧", "\uD800 lone", "עברית العربية", "ЖУК Щука", "Ǆ ǅ ǆ", "\u0301\u0301", "a\u0000b\u200Dc", "🏳️‍🌈".repeat(80)];
    const without = await render([{ qrPayload: "Z", ticketId: "Z", lines: odd }]);
    expect(without.pages[0]!.lines.length).toBeGreaterThan(0);
    expect(without.pages[0]!.lines.find((l) => l.text.startsWith("ZHUK"))!.text).toBe("ZHUK Shchuka");
    const fonts = testFontSource("odd");
    const withFonts = await render([{ qrPayload: "Z", ticketId: "Z", lines: odd }], {}, null, fonts);
    expect(withFonts.pages[0]!.lines.length).toBeGreaterThan(0);
  });

  it("falls back, and reports, when a face cannot be had", async () => {
    const reported: string[] = [];
    const woff2 = dataUrlBytes("data:font/woff2;base64," + btoa("wOF2" + "\0".repeat(40)));
    const broken: FontSource = {
      faces: [
        { key: "broken/throws", unicodeRange: [[0x141, 0x141]], load: () => Promise.reject(new Error("R2 down")) },
        { key: "broken/missing", unicodeRange: [[0x141, 0x141]], load: async () => null },
        { key: "broken/woff2", unicodeRange: [[0x141, 0x141]], load: async () => woff2 },
        { key: "broken/garbage", unicodeRange: [[0x141, 0x141]], load: async () => new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]) },
      ],
      onError: (key) => reported.push(key),
    };
    const { pages } = await render([ticket("F1", "Łukasz")], {}, null, broken);
    expect(pages[0]!.lines[4]!.text).toBe("Lukasz");
    expect(reported.sort()).toEqual(["broken/garbage", "broken/missing", "broken/throws", "broken/woff2"]);
  });

  it("tries the next face when one claims a character it lacks", async () => {
    const fonts = testFontSource("next");
    const liar: FontSource = {
      faces: [{ ...fonts.faces.find((f) => f.key.endsWith("noto-sans-latin-400-normal.woff"))!, key: "next/liar", unicodeRange: [[0x0, 0xffff]] }, ...fonts.faces],
    };
    const { pages } = await render([ticket("L1", "Дмитрий")], {}, null, liar);
    expect(pages[0]!.lines[4]!.text).toBe("Дмитрий");
    expect(pages[0]!.lines[4]!.fonts.some((f) => f.includes("Helvetica"))).toBe(false);
  });
});
