import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { MAX_PAGE_TREE_NODES, pageTreeWithinBudget } from "../../src/pdf/page-tree-budget";
import { renderTickets } from "../../src/pdf/render-tickets";
import { deepPageTree, fanOutPageTree, flatPageTree, loopingPageTree, parentLoopPageTree, sharedKidPageTree } from "../helpers/page-trees";
import { makePdf } from "../helpers/uploads";

/** decisions.md 15: the page tree is walked with a budget, before pdf-lib expands it. */

/** The walk's answer, and how many objects it looked up (its work, counted instead of timed). */
async function walk(bytes: Uint8Array): Promise<{ within: boolean; lookups: number }> {
  const document = await PDFDocument.load(bytes, { updateMetadata: false });
  const lookup = document.context.lookup.bind(document.context);
  let lookups = 0;
  document.context.lookup = ((...args: Parameters<typeof lookup>) => {
    lookups += 1;
    return lookup(...args);
  }) as typeof lookup;
  return { within: pageTreeWithinBudget(document), lookups };
}

describe("pageTreeWithinBudget", () => {
  it("stops a fan-out of 30 levels after a handful of lookups", async () => {
    const { within, lookups } = await walk(fanOutPageTree(30, 3));
    expect(within).toBe(false);
    expect(lookups).toBeLessThan(10);
  });

  it("looks up at most about one object per node, and once per parent for each page, even at the limits", async () => {
    for (const [bytes, within] of [
      [flatPageTree(MAX_PAGE_TREE_NODES + 1), false],
      [flatPageTree(MAX_PAGE_TREE_NODES), true],
    ] as const) {
      const result = await walk(bytes);
      expect(result.within).toBe(within);
      expect(result.lookups).toBeLessThanOrEqual(2 * (MAX_PAGE_TREE_NODES + 2));
    }
  });

  it.each([
    ["a loop", loopingPageTree(), false],
    ["a shared kid", sharedKidPageTree(), false],
    ["a /Parent loop", parentLoopPageTree(), false],
    ["33 levels", deepPageTree(32), false],
    ["32 levels", deepPageTree(31), true],
  ])("decides %s", async (_name, bytes, within) => {
    expect((await walk(bytes)).within).toBe(within);
  });

  it("passes pdf-lib's own documents", async () => {
    for (const pages of [0, 1, 250]) expect((await walk(await makePdf(pages))).within).toBe(true);
  });
});

describe("renderTickets with a template stored before the budget", () => {
  it("refuses a hostile page tree instead of expanding it", async () => {
    const ticket = { qrPayload: "0123456789abcdef", ticketId: "0123456789abcdef", lines: ["Event"] };
    const placement = { xMm: 10, yMm: 10, rotation: 0, scalePercent: 100, border: true };
    await expect(renderTickets(fanOutPageTree(30), [ticket], placement)).rejects.toThrow(/page tree/);
    await expect(renderTickets(parentLoopPageTree(), [ticket], placement)).rejects.toThrow(/page tree/);
  });
});
