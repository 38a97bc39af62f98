/**
 * A QR code as an image for screens and printers (a scan key's sheet for the door app, docs/scanning.md "A scan key's
 * QR code for the door app"): the module matrix (qr.ts) inside its light quiet zone, as SVG or as PNG. Both are white
 * behind every module, so the quiet zone stays light on a dark page or screen.
 */
import { encodeGrayPng } from "./png";
import { QR_QUIET_ZONE_MODULES, type QrMatrix, qrRuns } from "./qr";

/** Pixels a module: whole pixels keep the edges sharp, and a key's code (37 modules) is some 360 pixels wide. */
const QR_MODULE_PX = 8;

/** Modules across the image: the code and its quiet zone on both sides. */
const sideOf = (matrix: QrMatrix) => matrix.size + 2 * QR_QUIET_ZONE_MODULES;

/**
 * SVG whose `viewBox` counts modules: a white square, then one path holding every dark module (a rectangle per
 * horizontal run), drawn with crisp edges; `width` and `height` give it the PNG's size in pixels.
 */
export function qrSvg(matrix: QrMatrix): string {
  const side = sideOf(matrix);
  const q = QR_QUIET_ZONE_MODULES;
  const d = qrRuns(matrix)
    .map((r) => `M${r.col + q} ${r.row + q}h${r.length}v1h-${r.length}z`)
    .join("");
  const px = side * QR_MODULE_PX;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" width="${px}" height="${px}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`
  );
}

/** PNG, 8-bit grayscale: QR_MODULE_PX by QR_MODULE_PX pixels a module, black on white. */
export function qrPng(matrix: QrMatrix): Promise<Uint8Array<ArrayBuffer>> {
  const width = sideOf(matrix) * QR_MODULE_PX;
  const pixels = new Uint8Array(width * width).fill(255);
  const offset = QR_QUIET_ZONE_MODULES * QR_MODULE_PX;
  for (const run of qrRuns(matrix)) {
    const x = offset + run.col * QR_MODULE_PX;
    for (let dy = 0; dy < QR_MODULE_PX; dy++) {
      const start = (offset + run.row * QR_MODULE_PX + dy) * width + x;
      pixels.fill(0, start, start + run.length * QR_MODULE_PX);
    }
  }
  return encodeGrayPng({ width, height: width, pixels });
}
