import { PDFDict, PDFDocument, PDFName, type PDFObject, PDFRef, PDFStream } from "pdf-lib";
import { TEMPLATE_DIGEST } from "./render-tickets";

/** The pages of several PDFs, in order, as one (tickets of types with different templates render separately). */
export async function mergePdfs(parts: readonly Uint8Array[]): Promise<Uint8Array> {
  if (parts.length === 1) return parts[0]!;
  const merged = await PDFDocument.create();
  for (const part of parts) {
    const doc = await PDFDocument.load(part);
    for (const page of await merged.copyPages(doc, doc.getPageIndices())) merged.addPage(page);
  }
  return merged.save();
}

/** A template form a page draws: where its resources name it, and the template's mark (render-tickets.ts). */
interface TemplateUse {
  xObjects: PDFDict;
  name: PDFName;
  digest: string;
}

function templateUses(doc: PDFDocument, page: PDFDict): TemplateUse[] {
  const resolve = (value: PDFObject | undefined) => (value instanceof PDFRef ? doc.context.lookup(value) : value);
  const resources = resolve(page.get(PDFName.of("Resources")));
  const xObjects = resources instanceof PDFDict ? resolve(resources.get(PDFName.of("XObject"))) : undefined;
  if (!(xObjects instanceof PDFDict)) return [];
  const uses: TemplateUse[] = [];
  for (const [name, value] of xObjects.entries()) {
    const form = resolve(value);
    const digest = form instanceof PDFStream ? form.dict.get(TEMPLATE_DIGEST) : undefined;
    if (digest instanceof PDFName) uses.push({ xObjects, name, digest: digest.decodeText() });
  }
  return uses;
}

/**
 * The parts of a large download (decisions.md 15) as one PDF, in order: each part read when its turn comes (`part`)
 * and let go after, so that memory holds the growing result and one part. Every part carries its own copy of each
 * template it draws; the result keeps one per template (by the mark render-tickets.ts gives the form), which every
 * page of every part draws, so 1,000 pages on a 10 MiB template are one 10 MiB template, not ten.
 */
export async function assembleParts(count: number, part: (index: number) => Promise<Uint8Array>): Promise<Uint8Array> {
  const merged = await PDFDocument.create({ updateMetadata: false });
  const forms = new Map<string, PDFRef>();
  for (let index = 0; index < count; index += 1) {
    const doc = await PDFDocument.load(await part(index), { updateMetadata: false });
    const pages = doc.getPages();
    const uses = pages.map((page) => templateUses(doc, page.node));
    // A template already in the result is left out of the copy and named again afterwards.
    for (const use of uses.flat()) if (forms.has(use.digest)) use.xObjects.delete(use.name);
    const copied = await merged.copyPages(doc, doc.getPageIndices());
    copied.forEach((page, i) => {
      merged.addPage(page);
      const target = page.node.lookupMaybe(PDFName.of("Resources"), PDFDict)?.lookupMaybe(PDFName.of("XObject"), PDFDict);
      if (!target) return;
      for (const use of uses[i]!) {
        const present = target.get(use.name);
        if (present instanceof PDFRef) forms.set(use.digest, forms.get(use.digest) ?? present);
        else target.set(use.name, forms.get(use.digest)!);
      }
    });
  }
  return merged.save();
}
