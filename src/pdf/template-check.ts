import { PDFDocument } from "pdf-lib";
import { pageTreeWithinBudget } from "./page-tree-budget";

/** decisions.md 15: the problem (a whole sentence, the answer's message) when the page tree is past its budget. */
export const PAGE_TREE_TOO_LARGE = "The PDF's page tree is too large";

/**
 * Why `bytes` cannot be a ticket or invoice template, or null when they can: a template is a loadable,
 * unencrypted PDF of exactly one page (its size is the size of every rendered page; A4 is recommended) whose page
 * tree is within the budget of decisions.md 15, walked before anything counts the pages.
 */
export async function pdfTemplateProblem(bytes: Uint8Array): Promise<string | null> {
  if (bytes.length < 5 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-") return "is not a PDF file";
  try {
    // Loaded despite encryption so that encryption is reported as such (pdf-lib's own error class does not survive
    // its ES5 build, so it cannot be told apart from other load errors).
    const document = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true });
    if (document.isEncrypted) return "is an encrypted PDF; upload it without a password or encryption";
    if (!pageTreeWithinBudget(document)) return PAGE_TREE_TOO_LARGE;
    const pages = document.getPageCount();
    if (pages !== 1) return `must have exactly one page (it has ${pages})`;
    return null;
  } catch {
    return "is not a readable PDF file";
  }
}
