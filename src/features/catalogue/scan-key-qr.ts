import type { ScanKeyRow } from "../../db/rows";
import { apiUrl, type LinkBase } from "../../http/links";
import { qrMatrix } from "../../lib/qr";
import { qrPng, qrSvg } from "../../lib/qr-image";
import type { ScanKeyQrFormat } from "./scan-keys.schema";

/**
 * `GET /admin/events/<event_id>/scan-keys/<key>/qr` (docs/scanning.md "A scan key's QR code for the door app"): a
 * printable QR code that opens the door app with the key set. The key travels in the address's fragment, which a
 * browser never sends: no server or log on the way sees it. The image carries the key, so it is answered `no-store`.
 */

export interface ScanKeyQr {
  body: Uint8Array<ArrayBuffer> | string;
  contentType: string;
  contentDisposition: string;
}

/**
 * The address the code carries: the door app at the request's origin, the key in the fragment. The app's folder with
 * its slash: `/door` is outside the scope of the app's service worker, so a phone that has the app but no network
 * would not open it (and online it costs a redirect).
 */
function doorAppUrl(c: LinkBase, key: string): string {
  return `${apiUrl(c, "/door/")}#key=${key}`;
}

/**
 * `scan-key-<location>`: the location as letters, digits, `.`, `_` and `-` (accents dropped, anything else a `-`),
 * so the name is safe in the header and on any file system; the key when nothing of the location is left.
 */
function fileName(k: ScanKeyRow): string {
  const ascii = k.location.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const safe = ascii.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "");
  return `scan-key-${safe || k.key}`;
}

export async function scanKeyQr(c: LinkBase, k: ScanKeyRow, format: ScanKeyQrFormat): Promise<ScanKeyQr> {
  const matrix = qrMatrix(doorAppUrl(c, k.key));
  const contentDisposition = `inline; filename="${fileName(k)}.${format}"`;
  if (format === "svg") return { body: qrSvg(matrix), contentType: "image/svg+xml; charset=utf-8", contentDisposition };
  return { body: await qrPng(matrix), contentType: "image/png", contentDisposition };
}
