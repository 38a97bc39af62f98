/**
 * A micro-measurement, printed and not asserted (timings on a shared 2-core machine say little on their own): ten
 * tickets rendered cold (first render in a fresh isolate, fonts not yet loaded) and warm. In its own file so that
 * "cold" really is the isolate's first render.
 */
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import { expect, it } from "vitest";
import { clearFontCache } from "../../src/pdf/fonts";
import { renderTickets, type QrBlockPlacement, type TicketView } from "../../src/pdf/render-tickets";
import { testFontSource } from "./test-fonts";

const PLACE: QrBlockPlacement = { xMm: 30, yMm: 120, rotation: 0, scalePercent: 100, border: true };
const NAMES = [
  "Jan Jansen",
  "Łukasz Wróbel",
  "Ελένη Παπαδοπούλου",
  "Дмитрий Иванов",
  "李小龍",
  "山田太郎",
  "Zoë Nuñez",
  "Anna Kowalska",
  "Søren Ødegård",
  "María José",
];

function tickets(): TicketView[] {
  return NAMES.map((name, i) => ({
    qrPayload: `K7Q2M9X4D1F8H3${String(i).padStart(2, "0")}`,
    lines: ["Spring Concert", "Regular (Row A, seat " + (i + 1) + ")", "Saturday 14 March 2026, 20:00", `Order 8F3K2Q`, name, "guest@example.com"],
  }));
}

async function template(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595.28, 841.89]);
  page.drawRectangle({ x: 0, y: 700, width: 595, height: 141, color: rgb(0.2, 0.4, 0.8) });
  page.drawText("SPRING CONCERT 2026", { x: 40, y: 760, size: 32, font: await doc.embedFont(StandardFonts.HelveticaBold) });
  return doc.save();
}

async function time(run: () => Promise<Uint8Array>): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const out = await run();
  return { ms: performance.now() - start, bytes: out.length };
}

async function warm(run: () => Promise<Uint8Array>, times = 7): Promise<{ ms: number; bytes: number }> {
  const results = [];
  for (let i = 0; i < times; i++) results.push(await time(run));
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(times / 2)]!;
}

it("prints cold and warm timings for ten tickets", async () => {
  const bg = await template();
  const views = tickets();
  const rows: [string, { ms: number; bytes: number }][] = [];
  rows.push(["cold, Helvetica only, template", await time(() => renderTickets(bg, views, PLACE))]);
  rows.push(["warm, Helvetica only, template", await warm(() => renderTickets(bg, views, PLACE))]);
  rows.push(["warm, Helvetica only, no template", await warm(() => renderTickets(null, views, PLACE))]);
  // Under vitest the first import of fontkit includes Vite transforming 1.2 MB of JavaScript: done before measuring.
  // Bundled, evaluating it costs some 200 ms once per isolate (fonts.ts imports it on first use).
  await import("@pdf-lib/fontkit");
  clearFontCache();
  const fonts = testFontSource("timing");
  rows.push(["cold fonts (read, unpack, parse), template", await time(() => renderTickets(bg, views, PLACE, fonts))]);
  const loaded = fonts.loads.length;
  rows.push(["warm fonts, template", await warm(() => renderTickets(bg, views, PLACE, fonts))]);
  rows.push(["warm fonts, one ticket", await warm(() => renderTickets(bg, views.slice(0, 1), PLACE, fonts))]);
  console.log(
    [`renderTickets, 10 tickets unless said (median of 7 when warm); ${loaded} font files loaded cold`]
      .concat(rows.map(([label, r]) => `  ${label.padEnd(44)} ${r.ms.toFixed(1).padStart(7)} ms ${String(r.bytes).padStart(8)} bytes`))
      .join("\n"),
  );
  expect(rows.every(([, r]) => r.bytes > 0)).toBe(true);
}, 60_000);
