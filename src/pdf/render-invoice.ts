/**
 * The invoice PDF, pure: (invoice view, fonts) -> one A4 page. Everything shown arrives as text, already
 * formatted by the caller (amounts, dates, rates); names in any script are drawn through the typesetter.
 */
import { PDFContentStream, PDFDocument, PDFName, beginText, endText, lineTo, moveTo, setFillingGrayscaleColor, setLineWidth, stroke, type PDFOperator } from "pdf-lib";
import type { FontSource } from "./fonts";
import { A4, POINTS_PER_MM } from "./render-tickets";
import { facesFor, SharedResources, Typesetter } from "./typeset";

export interface InvoiceView {
  title: string;
  /** Seller side: the event, its date. */
  heading: string[];
  /** Label and value pairs: order id, date, customer. */
  details: [string, string][];
  /** The table's column titles and rows (description, count, unit price, VAT rate, amount). */
  columns: [string, string, string, string, string];
  rows: [string, string, string, string, string][];
  /** Label and value pairs under the table: subtotal, discount, total, VAT per rate. */
  totals: [string, string][];
  footer: string;
}

const MARGIN = 20 * POINTS_PER_MM;
const WIDTH = A4[0] - 2 * MARGIN;
/** Column right edges (amounts align right) as fractions of the text width; the description is left-aligned. */
const COLUMNS = [0.5, 0.6, 0.75, 0.85, 1];
/** Rows beyond these do not fit on the page; the last shown says how many more there are. */
const MAX_ROWS = 30;

export async function renderInvoice(view: InvoiceView, fonts?: FontSource): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const rows =
    view.rows.length > MAX_ROWS
      ? [...view.rows.slice(0, MAX_ROWS - 1), [`… ${view.rows.length - MAX_ROWS + 1} more`, "", "", "", ""] as InvoiceView["rows"][number]]
      : view.rows;
  const all = [view.title, ...view.heading, ...view.details.flat(), ...view.columns, ...rows.flat(), ...view.totals.flat(), view.footer];
  const resources = new SharedResources(doc);
  const typeset = await Typesetter.create(doc, resources, await facesFor(all, fonts));
  const page = doc.addPage([A4[0], A4[1]]);
  page.node.set(PDFName.of("Resources"), resources.ref);

  const text: PDFOperator[] = [setFillingGrayscaleColor(0), beginText()];
  const rules: PDFOperator[] = [setLineWidth(0.5)];
  let y = A4[1] - MARGIN;
  const line = (s: string, x: number, size: number, maxWidth = WIDTH) => text.push(...typeset.showLine(s, MARGIN + x, y, size, maxWidth));
  const right = (s: string, rightEdge: number, size: number, maxWidth: number) => {
    const width = typeset.widthOf(s, size);
    text.push(...typeset.showLine(s, MARGIN + rightEdge - Math.min(width, maxWidth), y, size, maxWidth));
  };
  const rule = () => rules.push(moveTo(MARGIN, y - 4), lineTo(MARGIN + WIDTH, y - 4), stroke());

  line(view.title, 0, 20);
  y -= 30;
  for (const h of view.heading) {
    line(h, 0, 12);
    y -= 16;
  }
  y -= 8;
  for (const [label, value] of view.details) {
    line(label, 0, 10, WIDTH * 0.25);
    line(value, WIDTH * 0.25, 10, WIDTH * 0.75);
    y -= 14;
  }
  y -= 14;
  const tableRow = (cells: readonly string[], size: number) => {
    line(cells[0]!, 0, size, WIDTH * COLUMNS[0]! - 6);
    for (let c = 1; c < cells.length; c++) right(cells[c]!, WIDTH * COLUMNS[c]!, size, WIDTH * (COLUMNS[c]! - COLUMNS[c - 1]!) - 6);
  };
  tableRow(view.columns, 10);
  rule();
  y -= 18;
  for (const row of rows) {
    tableRow(row, 10);
    y -= 14;
  }
  rule();
  y -= 18;
  for (const [label, value] of view.totals) {
    right(label, WIDTH * 0.75, 10, WIDTH * 0.4);
    right(value, WIDTH, 10, WIDTH * 0.25 - 6);
    y -= 14;
  }
  y = MARGIN;
  line(view.footer, 0, 8);
  text.push(endText());

  page.node.set(PDFName.of("Contents"), doc.context.register(PDFContentStream.of(doc.context.obj({}), [...rules, ...text])));
  await typeset.embedFonts();
  return doc.save();
}
