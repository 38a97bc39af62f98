/**
 * QR codes as raw PDF path operators: the module matrix comes from qrcode-generator (coded against its .d.ts; the
 * README documents methods 2.0.4 does not have), and every dark module is one rectangle of a single path filled
 * once. Horizontal runs of dark modules share one rectangle, so a ticket id costs some 150 `re` operators instead
 * of one drawing call per module (drawSvgPath or drawRectangle cost 3 to 4 times more).
 */
import qrcode from "qrcode-generator";
import { fill, rectangle, setFillingGrayscaleColor, type PDFOperator } from "pdf-lib";

/** Error correction used for tickets: M restores up to 15% of the code (a crease, a smudge on a printout). */
export const QR_ERROR_CORRECTION = "M" as const;
/** Light modules around the code, as the QR specification requires for reliable scanning. */
export const QR_QUIET_ZONE_MODULES = 4;

/** The module matrix: `dark[row][col]`, row 0 at the top, col 0 at the left. */
export interface QrMatrix {
  readonly size: number;
  readonly dark: readonly (readonly boolean[])[];
}

/** One rectangle of dark modules: `length` modules from (`row`, `col`) to the right. */
export interface QrRun {
  readonly row: number;
  readonly col: number;
  readonly length: number;
}

/**
 * The module matrix for `payload`, byte mode, UTF-8, the smallest version that holds it. qrcode-generator turns
 * each UTF-16 unit into one byte (`charCode & 0xff`), so the payload is handed over as one character per UTF-8 byte.
 */
export function qrMatrix(payload: string): QrMatrix {
  const code = qrcode(0, QR_ERROR_CORRECTION);
  let bytes = "";
  for (const byte of new TextEncoder().encode(payload)) bytes += String.fromCharCode(byte);
  code.addData(bytes, "Byte");
  code.make();
  const size = code.getModuleCount();
  const dark: boolean[][] = [];
  for (let row = 0; row < size; row++) {
    const line: boolean[] = new Array<boolean>(size);
    for (let col = 0; col < size; col++) line[col] = code.isDark(row, col);
    dark.push(line);
  }
  return { size, dark };
}

/** The dark modules as maximal horizontal runs, row by row. */
export function qrRuns(matrix: QrMatrix): QrRun[] {
  const runs: QrRun[] = [];
  for (let row = 0; row < matrix.size; row++) {
    const line = matrix.dark[row]!;
    let col = 0;
    while (col < matrix.size) {
      if (!line[col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < matrix.size && line[col]) col++;
      runs.push({ row, col: start, length: col - start });
    }
  }
  return runs;
}

/**
 * Operators that draw the code, quiet zone included, in the square from (`x`, `yTop`) to (`x + side`, `yTop - side`)
 * (PDF user space, y up): a light square, then all dark modules as one path filled once. Leaves the fill colour black.
 */
export function qrOperators(matrix: QrMatrix, x: number, yTop: number, side: number): PDFOperator[] {
  const module = side / (matrix.size + 2 * QR_QUIET_ZONE_MODULES);
  const left = x + QR_QUIET_ZONE_MODULES * module;
  const top = yTop - QR_QUIET_ZONE_MODULES * module;
  const ops: PDFOperator[] = [setFillingGrayscaleColor(1), rectangle(x, yTop - side, side, side), fill(), setFillingGrayscaleColor(0)];
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
