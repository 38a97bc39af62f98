// What one request (or one queue message) of the ticket download costs at most (decisions.md 15 "No request renders
// without bound"; docs/tickets-pdf.md keeps the figures): rendering one part of PART_SIZE tickets, rendering a whole
// order in one go for comparison, and assembling an order of 1,000 tickets from its parts, on a small template and on
// a heavy one. Logged, not asserted: the house measures speed here, not in tests.
//
//   npm run bench:pdf        (node bench/ticket-render.mjs)
//
// The steps run in a child process with --trace-gc. Each step's time, and its peak heap: the largest heap the
// collector reported during the step (or at its end), less the heap after a full collection before it. Byte buffers
// (the PDF made, the parts read, the template) live outside the heap: about the sizes shown. Fonts are the service's
// own (Noto Sans from @fontsource, read as the Worker reads them from R2); QR payloads are as long as a
// signed ticket code.
import { spawn } from "node:child_process";
import { readFileSync, writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const MB = 2 ** 20;

if (!process.argv.includes("--child")) {
  const child = spawn(process.execPath, ["--expose-gc", "--trace-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--child"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  // --trace-gc lines: "... Scavenge 61.2 (70.0) -> 40.1 (72.0) MB, ..."; the first number is the heap before it.
  let sizes = null;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith("BEGIN")) sizes = [];
    const gc = /([\d.]+) \([\d.]+\) -> [\d.]+ \([\d.]+\) MB/.exec(line);
    if (gc && sizes) sizes.push(Number(gc[1]));
    if (line.startsWith("TITLE ")) console.log(`-- ${line.slice(6)}`);
    if (!line.startsWith("END ")) continue;
    const { label, ms, base, end, pdf } = JSON.parse(line.slice(4));
    const peak = Math.max(end, ...sizes) - base;
    console.log(`${label.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms   peak heap +${peak.toFixed(0).padStart(4)} MB   ${pdf.toFixed(2)} MB PDF`);
    sizes = null;
  }
  process.exit(await new Promise((resolve) => child.on("exit", resolve)));
}

const [{ default: latin }, { default: cjk }, pdfLib, { facesFromUnicodeRanges, fontsourceFileName }, { assembleParts }, { renderTickets }, { PART_SIZE }] =
  await Promise.all([
    import("@fontsource/noto-sans/unicode.json", { with: { type: "json" } }),
    import("@fontsource/noto-sans-sc/unicode.json", { with: { type: "json" } }),
    import("pdf-lib"),
    import("../src/pdf/fonts.ts"),
    import("../src/pdf/merge.ts"),
    import("../src/pdf/render-tickets.ts"),
    import("../src/pdf/ticket-parts.ts"),
  ]);
const { concatTransformationMatrix, drawObject, PDFDocument, PDFName, popGraphicsState, pushGraphicsState } = pdfLib;
/** Markers go straight to the file descriptor, in order with the collector's own lines. */
const mark = (text) => writeSync(1, `${text}\n`);

const family = (name, ranges) =>
  facesFromUnicodeRanges(ranges, (subset) => {
    const file = fontsourceFileName(name, subset);
    return { key: `bench/${file}`, load: async () => new Uint8Array(readFileSync(`node_modules/@fontsource/${name}/files/${file}`)) };
  });
const fonts = { faces: [...family("noto-sans", latin), ...family("noto-sans-sc", cjk)], onError: () => {} };
const placement = { xMm: 20, yMm: 20, rotation: 0, scalePercent: 100, border: true };

const smallTemplate = await (async () => {
  const doc = await PDFDocument.create();
  doc.addPage([595.28, 841.89]).drawText("Template", { x: 50, y: 700, size: 30 });
  return doc.save();
})();
/** A template with an incompressible image of about 2 MiB (uploads may be up to 10 MiB). */
const heavyTemplate = await (async () => {
  const side = 1448;
  const pixels = new Uint8Array(side * side);
  for (let i = 0; i < pixels.length; i += 65536) crypto.getRandomValues(pixels.subarray(i, i + 65536));
  const doc = await PDFDocument.create();
  const page = doc.addPage([595.28, 841.89]);
  const image = doc.context.flateStream(pixels, { Type: "XObject", Subtype: "Image", Width: side, Height: side, ColorSpace: "DeviceGray", BitsPerComponent: 8 });
  page.node.setXObject(PDFName.of("Im0"), doc.context.register(image));
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(400, 0, 0, 400, 100, 300), drawObject("Im0"), popGraphicsState());
  return doc.save();
})();
const views = (n) =>
  Array.from({ length: n }, (_, i) => ({
    qrPayload: `test1.123.${"A".repeat(16)}.${"s".repeat(86)}${i}`,
    ticketId: `${"A".repeat(10)}${String(100_000 + i)}`,
    lines: ["Festival of Things 2031", "Regular", "04/07/2031 21:15", String(100_000 + i), "Ada Lovelace", "ada.lovelace@example.com"],
  }));

async function measure(label, fn) {
  globalThis.gc();
  const before = process.memoryUsage();
  mark("BEGIN");
  const started = performance.now();
  const out = await fn();
  const ms = performance.now() - started;
  const after = process.memoryUsage();
  mark(`END ${JSON.stringify({ label, ms, base: before.heapUsed / MB, end: after.heapUsed / MB, pdf: out.length / MB })}`);
  return out;
}

const TOTAL = 1000;
for (const [name, template] of [
  ["a small template", smallTemplate],
  [`a ${(heavyTemplate.length / MB).toFixed(1)} MB template`, heavyTemplate],
]) {
  mark(`TITLE on ${name}`);
  // Warm: fonts loaded and converted once per isolate, as in a warm Worker.
  await renderTickets(template, views(2), placement, fonts);
  await measure(`render one part (${PART_SIZE} tickets)`, () => renderTickets(template, views(PART_SIZE), placement, fonts));
  if (template === smallTemplate) {
    await measure("render 250 tickets in one go", () => renderTickets(template, views(250), placement, fonts));
    await measure(`render ${TOTAL} tickets in one go`, () => renderTickets(template, views(TOTAL), placement, fonts));
  }
  const parts = [];
  for (let i = 0; i < TOTAL / PART_SIZE; i += 1) parts.push(await renderTickets(template, views(PART_SIZE), placement, fonts));
  await measure(`assemble ${TOTAL} pages from ${parts.length} parts`, () => assembleParts(parts.length, async (i) => parts[i]));
}
