import { exports } from "cloudflare:workers";
import { PageSizes, PDFDocument, StandardFonts } from "pdf-lib";
import { ADMIN, API_KEY, BASE, basic, type Credentials } from "./api";

/** Multipart uploads (spec: a form part named `file`) through the public HTTP surface, and PDFs to upload. */

export type FileContent = Uint8Array | ArrayBuffer | string | Blob;

export interface UploadOptions {
  /** The `file` part; `null` or absent sends none. */
  file?: FileContent | null;
  /** File name of the `file` part (default `upload.pdf`). */
  filename?: string;
  /** Media type of the `file` part (default `application/pdf`). */
  type?: string;
  /** Text parts sent beside `file` (`title`, `type`, `author_id`, ...), in this order, before `file`. */
  fields?: Record<string, string | number>;
  /** Basic credentials; `null` sends none. Defaults to the bootstrap administrator. */
  auth?: Credentials | null;
  /** `X-EVT-API-KEY`; `null` sends none. */
  key?: string | null;
  headers?: Record<string, string>;
}

function toBlob(content: FileContent, type: string): Blob {
  if (content instanceof Blob) return content;
  if (typeof content === "string") return new Blob([content], { type });
  // A copy, so that the Blob owns a plain ArrayBuffer whatever view it was given.
  const bytes = content instanceof Uint8Array ? content.slice() : new Uint8Array(content.slice(0));
  return new Blob([bytes], { type });
}

/** The FormData of an upload: the text parts, then the `file` part. */
export function uploadForm(options: Pick<UploadOptions, "file" | "filename" | "type" | "fields"> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, String(value));
  if (options.file !== undefined && options.file !== null) {
    const type = options.type ?? "application/pdf";
    form.append("file", toBlob(options.file, type), options.filename ?? "upload.pdf");
  }
  return form;
}

/** A multipart request; the runtime writes the `Content-Type` with its boundary. */
export function uploadRequest(method: string, path: string, options: UploadOptions = {}): Request {
  const headers = new Headers(options.headers);
  const key = options.key === undefined ? API_KEY : options.key;
  if (key !== null) headers.set("X-EVT-API-KEY", key);
  const auth = options.auth === undefined ? ADMIN : options.auth;
  if (auth !== null) headers.set("Authorization", basic(auth));
  return new Request(`${BASE}${path}`, { method, headers, body: uploadForm(options) });
}

export function upload(method: string, path: string, options: UploadOptions = {}): Promise<Response> {
  return exports.default.fetch(uploadRequest(method, path, options));
}

export interface PdfOptions {
  /** Page size in points (default A4). */
  size?: [number, number];
  /** Text drawn on every page, so that two PDFs can be told apart by their bytes. */
  text?: string;
  /** pdf-lib's default is true (a cross-reference stream); false writes a classic `xref` table. */
  useObjectStreams?: boolean;
}

/** A real PDF made with pdf-lib: `pages` pages of A4 (or `size`); 0 makes a PDF without pages. */
export async function makePdf(pages = 1, options: PdfOptions = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = options.text === undefined ? undefined : await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i += 1) {
    const page = doc.addPage(options.size ?? PageSizes.A4);
    if (font && options.text !== undefined) page.drawText(options.text, { x: 50, y: page.getHeight() - 80, size: 14, font });
  }
  // pdf-lib would otherwise add a blank page to a document without pages.
  return doc.save({ useObjectStreams: options.useObjectStreams ?? true, addDefaultPage: false });
}

const latin1 = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");

/**
 * `pdf` with an incremental update whose trailer carries a Standard-security `/Encrypt` dictionary (RC4 40-bit,
 * revision 2), which is how a password-protected PDF announces itself. pdf-lib refuses to load the result unless
 * told to ignore encryption.
 */
export async function encryptPdf(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const root = doc.context.trailerInfo.Root;
  if (!root) throw new Error("encryptPdf: the PDF has no /Root");
  const text = latin1(pdf);
  const previous = /startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf("startxref")))?.[1];
  if (previous === undefined) throw new Error("encryptPdf: no startxref");
  const number = doc.context.largestObjectNumber + 1;
  const objectOffset = pdf.length + 1;
  const object = `${number} 0 obj\n<< /Filter /Standard /V 1 /R 2 /O (${"O".repeat(32)}) /U (${"U".repeat(32)}) /P -4 >>\nendobj\n`;
  const xrefOffset = objectOffset + object.length;
  const update =
    `\n${object}xref\n${number} 1\n${String(objectOffset).padStart(10, "0")} 00000 n \n` +
    `trailer\n<< /Size ${number + 1} /Root ${root.toString()} /Prev ${previous} /Encrypt ${number} 0 R >>\n` +
    `startxref\n${xrefOffset}\n%%EOF\n`;
  const tail = new TextEncoder().encode(update);
  const out = new Uint8Array(pdf.length + tail.length);
  out.set(pdf, 0);
  out.set(tail, pdf.length);
  return out;
}
