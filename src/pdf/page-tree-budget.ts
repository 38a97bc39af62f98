import { PDFArray, PDFDict, type PDFDocument, PDFName, type PDFObject, PDFPageLeaf, PDFPageTree, PDFRef } from "pdf-lib";

/**
 * decisions.md 15 "PDF page trees are walked with a budget": at most this many page-tree nodes (the root, every
 * /Pages node and every kid listed), at most this many nodes from the root down to any node, and no node twice.
 */
export const MAX_PAGE_TREE_NODES = 1000;
const MAX_PAGE_TREE_DEPTH = 32;

/**
 * Whether the document's page tree stays within the budget, decided before pdf-lib expands it: pdf-lib parses the
 * objects when it loads a document (the unpacked budget bounds that) but walks the page tree only when pages are
 * asked for, following every kid every time it is listed and recursing without a limit, so a tree of 2.5 KB whose
 * nodes each list the next twice makes it visit 2^23 nodes and a loop makes it recurse for ever. This walk follows
 * the kids exactly as pdf-lib's `traverse` does (into /Pages nodes only, through references) and stops at the first
 * node past the budget, so it looks up at most MAX_PAGE_TREE_NODES + 1 kids.
 *
 * A page's /Parent chain is held to the same depth (a loop in it is refused): copying a page, as the renderer does,
 * climbs that chain for inherited attributes as far as it goes.
 */
export function pageTreeWithinBudget(document: PDFDocument): boolean {
  const { context } = document;
  const resolve = (value: PDFObject | undefined) => (value instanceof PDFRef ? context.lookup(value) : value);
  const root = resolve(document.catalog.get(PDFName.of("Pages")));
  // A catalogue without a /Pages dictionary is pdf-lib's to refuse (as an unreadable PDF).
  if (!(root instanceof PDFDict)) return true;

  const seen = new Set<PDFObject>([root]);
  const stack: { node: PDFObject; depth: number }[] = [{ node: root, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node instanceof PDFPageLeaf && !parentsWithinDepth(node, resolve)) return false;
    if (!(node instanceof PDFPageTree)) continue;
    const kids = resolve(node.get(PDFName.of("Kids")));
    if (!(kids instanceof PDFArray)) continue;
    for (let i = 0; i < kids.size(); i += 1) {
      const kid = resolve(kids.get(i));
      if (kid === undefined) continue;
      if (seen.has(kid) || seen.size >= MAX_PAGE_TREE_NODES || depth >= MAX_PAGE_TREE_DEPTH) return false;
      seen.add(kid);
      stack.push({ node: kid, depth: depth + 1 });
    }
  }
  return true;
}

/** Whether the /Parent chain above `node` ends within MAX_PAGE_TREE_DEPTH steps (a loop never ends). */
function parentsWithinDepth(node: PDFDict, resolve: (value: PDFObject | undefined) => PDFObject | undefined): boolean {
  let current: PDFObject | undefined = node;
  for (let steps = 0; steps <= MAX_PAGE_TREE_DEPTH; steps += 1) {
    if (!(current instanceof PDFDict)) return true;
    current = resolve(current.get(PDFName.of("Parent")));
  }
  return false;
}
