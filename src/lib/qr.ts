/**
 * QR codes as module matrices, for whatever draws them (the ticket PDF, a scan key's image): from qrcode-generator,
 * coded against its .d.ts (the README documents methods 2.0.4 does not have).
 */
import qrcode from "qrcode-generator";

/** Error correction of every code drawn: M restores up to 15% of the code (a crease, a smudge on a printout). */
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
