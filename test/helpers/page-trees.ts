import { rawPdf } from "./packed-pdfs";

/**
 * PDFs whose page tree is not a small tree (decisions.md 15 "PDF page trees are walked with a budget"), written by
 * hand: object 1 is the catalogue, object 2 the root /Pages node. Each has at most one page leaf (an A4 page without
 * content), so a check that only counts pages would take them for a one-page template.
 */

const ref = (n: number) => `${n} 0 R`;
const pagesNode = (kids: number[], parent?: number) =>
  `<< /Type /Pages /Kids [${kids.map(ref).join(" ")}] /Count ${kids.length}${parent ? ` /Parent ${ref(parent)}` : ""} >>`;
const pageLeaf = (parent: number) => `<< /Type /Page /Parent ${ref(parent)} /MediaBox [0 0 595.28 841.89] /Resources << >> >>`;
const CATALOG = `<< /Type /Catalog /Pages ${ref(2)} >>`;

/**
 * `levels` /Pages nodes, each listing the next one `fanOut` times; the last lists the page `fanOut` times. A walk
 * that follows every kid visits fanOut^levels nodes (2^23 from about 2.5 KB).
 */
export function fanOutPageTree(levels: number, fanOut = 2): Uint8Array {
  const objects = [CATALOG];
  for (let level = 0; level < levels; level += 1) {
    const self = 2 + level;
    objects.push(pagesNode(Array(fanOut).fill(self + 1), level === 0 ? undefined : self - 1));
  }
  objects.push(pageLeaf(1 + levels));
  return rawPdf(objects);
}

/** A chain of `levels` /Pages nodes, one kid each, the page under the last: the page is at depth levels + 1. */
export function deepPageTree(levels: number): Uint8Array {
  const objects = [CATALOG];
  for (let level = 0; level < levels; level += 1) objects.push(pagesNode([3 + level], level === 0 ? undefined : 1 + level));
  objects.push(pageLeaf(1 + levels));
  return rawPdf(objects);
}

/** The root lists the page and a /Pages node that lists the root again. */
export function loopingPageTree(): Uint8Array {
  return rawPdf([CATALOG, pagesNode([3, 4]), pageLeaf(2), pagesNode([2], 2)]);
}

/** Two /Pages nodes under the root both list the one page (a DAG: the page is reached twice). */
export function sharedKidPageTree(): Uint8Array {
  return rawPdf([CATALOG, pagesNode([3, 4]), pagesNode([5], 2), pagesNode([5], 2), pageLeaf(3)]);
}

/** `nodes` page-tree nodes in all, two levels: the root lists the page and nodes - 2 empty /Pages nodes. */
export function flatPageTree(nodes: number): Uint8Array {
  const empties = Array.from({ length: nodes - 2 }, (_, i) => 4 + i);
  return rawPdf([CATALOG, pagesNode([3, ...empties]), pageLeaf(2), ...empties.map(() => pagesNode([], 2))]);
}

/** A proper tree whose page names a /Parent chain that loops (pdf-lib climbs it when it copies the page). */
export function parentLoopPageTree(): Uint8Array {
  return rawPdf([CATALOG, pagesNode([3]), pageLeaf(4), pagesNode([], 5), pagesNode([], 4)]);
}
