/**
 * QR codes as raw PDF path operators: every dark module of the matrix (lib/qr.ts) is one rectangle of a single path
 * filled once. Horizontal runs of dark modules share one rectangle, so a ticket id costs some 150 `re` operators
 * instead of one drawing call per module (drawSvgPath or drawRectangle cost 3 to 4 times more).
 */
import { fill, rectangle, setFillingGrayscaleColor, type PDFOperator } from "pdf-lib";
import { QR_QUIET_ZONE_MODULES, type QrMatrix, qrRuns } from "../lib/qr";

/** A rectangle as `re` takes it: lower-left corner, width, height. */
type Box = readonly [x: number, y: number, width: number, height: number];

/**
 * Operators that draw the code, quiet zone included, in the square from (`x`, `yTop`) to (`x + side`, `yTop - side`)
 * (PDF user space, y up): a light `background` (by default that square; it may be larger, to hold text beside the
 * code too), then all dark modules as one path filled once. Leaves the fill colour black.
 */
export function qrOperators(matrix: QrMatrix, x: number, yTop: number, side: number, background: Box = [x, yTop - side, side, side]): PDFOperator[] {
  const module = side / (matrix.size + 2 * QR_QUIET_ZONE_MODULES);
  const left = x + QR_QUIET_ZONE_MODULES * module;
  const top = yTop - QR_QUIET_ZONE_MODULES * module;
  const ops: PDFOperator[] = [setFillingGrayscaleColor(1), rectangle(...background), fill(), setFillingGrayscaleColor(0)];
  for (const run of qrRuns(matrix)) {
    // Edges are rounded, not sizes, so that neighbouring rectangles share their edges exactly.
    const x0 = round(left + run.col * module);
    const x1 = round(left + (run.col + run.length) * module);
    const y0 = round(top - (run.row + 1) * module);
    const y1 = round(top - run.row * module);
    ops.push(rectangle(x0, y0, round(x1 - x0), round(y1 - y0)));
  }
  ops.push(fill());
  return ops;
}

/** Four decimals of a point (1/10000 pt) is far below any printer's resolution and keeps the stream short. */
export function round(n: number): number {
  const r = Math.round(n * 10_000) / 10_000;
  return r === 0 ? 0 : r;
}
