import { EncryptedPDFError, PDFDocument } from "pdf-lib";

/**
 * Why `bytes` cannot be a ticket or invoice template, or null when they can: a template is a loadable,
 * unencrypted PDF of exactly one page (its size is the size of every rendered page; A4 is recommended).
 */
export async function pdfTemplateProblem(bytes: Uint8Array): Promise<string | null> {
  if (bytes.length < 5 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-") return "is not a PDF file";
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (err) {
    if (err instanceof EncryptedPDFError) return "is an encrypted PDF; upload it without a password or encryption";
    return "is not a readable PDF file";
  }
  if (document.isEncrypted) return "is an encrypted PDF; upload it without a password or encryption";
  const pages = document.getPageCount();
  if (pages !== 1) return `must have exactly one page (it has ${pages})`;
  return null;
}
