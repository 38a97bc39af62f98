import { PDFDocument, PDFName, PDFRef, concatTransformationMatrix, drawObject, popGraphicsState, pushGraphicsState } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { assembleParts } from "../../src/pdf/merge";
import { renderTickets, type TicketView } from "../../src/pdf/render-tickets";
import { readPage } from "./pdf-inspect";

/**
 * decisions.md 15: the parts of a large download, rendered apart (each with its own copy of the template), are
 * assembled into one PDF that keeps one copy of each template: what one part costs, the whole costs once more.
 */

const PLACE = { xMm: 20, yMm: 30, rotation: 0, scalePercent: 100, border: true };

/** A one-page template holding an incompressible image of about `kib` KiB, so that a copy of it shows in the size. */
async function heavyTemplate(kib: number, size: [number, number] = [595.28, 841.89]): Promise<Uint8Array> {
  const side = Math.round(Math.sqrt(kib * 1024));
  const pixels = new Uint8Array(side * side);
  for (let i = 0; i < pixels.length; i += 65536) crypto.getRandomValues(pixels.subarray(i, i + 65536));
  const doc = await PDFDocument.create();
  const page = doc.addPage(size);
  const image = doc.context.register(
    doc.context.flateStream(pixels, { Type: "XObject", Subtype: "Image", Width: side, Height: side, ColorSpace: "DeviceGray", BitsPerComponent: 8 }),
  );
  page.node.setXObject(PDFName.of("Im0"), image);
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(300, 0, 0, 300, 100, 300), drawObject("Im0"), popGraphicsState());
  return doc.save();
}

/** `count` tickets whose second line numbers their page in the whole, from `first`. */
const tickets = (first: number, count: number): TicketView[] =>
  Array.from({ length: count }, (_, i) => ({ qrPayload: `t-${first + i}`, ticketId: `t-${first + i}`, lines: ["Event", `Page ${first + i}`] }));

describe("assembleParts", () => {
  it("joins the parts' pages in order, drawing one copy of a template every part carried", async () => {
    const template = await heavyTemplate(400, [612, 792]);
    const parts = [
      await renderTickets(template, tickets(0, 20), PLACE),
      await renderTickets(template, tickets(20, 20), PLACE),
      await renderTickets(template, tickets(40, 5), PLACE),
    ];
    const asked: number[] = [];
    const whole = await assembleParts(parts.length, async (i) => {
      asked.push(i);
      return parts[i]!;
    });
    expect(asked).toEqual([0, 1, 2]);
    expect(parts[0]!.length).toBeGreaterThan(400 * 1024);
    // One template's worth, not three.
    expect(whole.length).toBeLessThan(parts[0]!.length + parts[1]!.length / 2);

    const doc = await PDFDocument.load(whole);
    expect(doc.getPageCount()).toBe(45);
    expect(doc.getPages().map((p) => readPage(p).lines.map((l) => l.text)[1])).toEqual(Array.from({ length: 45 }, (_, i) => `Page ${i}`));
    const forms = new Set(
      doc.getPages().map((page) => {
        const xObjects = page.node.Resources()!.lookup(PDFName.of("XObject"));
        const tpl = (xObjects as any).get(PDFName.of("Tpl"));
        expect(tpl).toBeInstanceOf(PDFRef);
        expect(page.getWidth()).toBeCloseTo(612, 0);
        return String(tpl);
      }),
    );
    expect(forms.size).toBe(1);
  });

  it("keeps different templates apart, and parts without a template as they are", async () => {
    const [a, b] = [await heavyTemplate(50), await heavyTemplate(50)];
    const parts = [
      await renderTickets(a, tickets(0, 3), PLACE),
      await renderTickets(b, tickets(3, 3), PLACE),
      await renderTickets(null, tickets(6, 3), PLACE),
      await renderTickets(a, tickets(9, 3), PLACE),
    ];
    const doc = await PDFDocument.load(await assembleParts(parts.length, async (i) => parts[i]!));
    const tpl = doc.getPages().map((page) => String((page.node.Resources()!.lookup(PDFName.of("XObject")) as any).get(PDFName.of("Tpl"))));
    expect(tpl[0]).toBe(tpl[11]);
    expect(tpl[0]).not.toBe(tpl[3]);
    expect(tpl.slice(6, 9)).toEqual(["undefined", "undefined", "undefined"]);
    expect(doc.getPages().map((p) => readPage(p).lines.map((l) => l.text)[1])).toEqual(Array.from({ length: 12 }, (_, i) => `Page ${i}`));
  });
});
