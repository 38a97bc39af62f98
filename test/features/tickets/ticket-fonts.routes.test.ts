import { env } from "cloudflare:workers";
import notoSansScRanges from "@fontsource/noto-sans-sc/unicode.json";
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFStream, type PDFPage } from "pdf-lib";
import { afterAll, describe, expect, it } from "vitest";
import { clearFontCache, fontsourceFileName, parseUnicodeRange } from "../../../src/pdf/fonts";
import { FONT_PREFIX } from "../../../src/features/tickets/ticket-fonts";
import { call, expectJson, unique } from "../../helpers/api";
import { createEvent, createTicketType } from "../../helpers/catalogue";
import { expectLogged } from "../../helpers/logs";
import { readPage } from "../../pdf/pdf-inspect";
import { dataUrlBytes } from "../../pdf/test-fonts";

/**
 * Fonts for e-tickets through the download route (docs/tickets-pdf.md "Fonts for any script"): the renderer reads
 * Noto Sans and Noto Sans SC from R2 under `fonts/noto-5.3.0/` (uploaded by scripts/upload-fonts.mjs); without them,
 * non-WinAnsi names are transliterated. Here the files are put into R2 by the test itself.
 *
 * Loaded (and missing) faces are cached per isolate by key (src/pdf/fonts.ts; a missing face is retried only after
 * FAILED_RETRY_MS), and every render in this runtime reads the same keys, so `clearFontCache()` is called after each
 * change to R2. With the files in R2 every later render would embed Noto Sans even for ASCII text, so they are
 * removed again at the end of the file and the cache cleared.
 */

type Loaders = Record<string, () => Promise<string>>;
interface GlobbingMeta {
  glob(pattern: string, options: { query: string; import: string }): Loaders;
}

// Vite inlines each file as a data: URL when its loader is called.
const notoSansFiles = (import.meta as unknown as GlobbingMeta).glob("/node_modules/@fontsource/noto-sans/files/noto-sans-*-400-normal.woff", {
  query: "?inline",
  import: "default",
});
const notoSansScFiles = (import.meta as unknown as GlobbingMeta).glob("/node_modules/@fontsource/noto-sans-sc/files/noto-sans-sc-*-400-normal.woff", {
  query: "?inline",
  import: "default",
});

const CYRILLIC = "Дмитрий Иванов";
const GREEK = "Ελένη";
const CHINESE = "李小龍";

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The Noto Sans SC slices whose unicode-range holds one of the characters of `text`. */
function scSlicesFor(text: string): string[] {
  const cps = [...text].map((c) => c.codePointAt(0)!);
  return Object.entries(notoSansScRanges as Record<string, string>)
    .filter(([, css]) => parseUnicodeRange(css).some(([a, b]) => cps.some((cp) => cp >= a && cp <= b)))
    .map(([subset]) => fontsourceFileName("noto-sans-sc", subset));
}

const uploaded: string[] = [];

/** Every Noto Sans file (Latin, Greek, Cyrillic, ...) and the Noto Sans SC slices `text` needs, into R2. */
async function uploadFonts(text: string): Promise<void> {
  const wanted = new Set(scSlicesFor(text));
  expect(wanted.size).toBeGreaterThan(0);
  const files = [
    ...Object.entries(notoSansFiles).filter(([path]) => !baseName(path).startsWith("noto-sans-sc-")),
    ...Object.entries(notoSansScFiles).filter(([path]) => wanted.has(baseName(path))),
  ];
  expect(files.length).toBe(Object.keys(notoSansFiles).filter((p) => !baseName(p).startsWith("noto-sans-sc-")).length + wanted.size);
  for (const [path, load] of files) {
    const key = `${FONT_PREFIX}${baseName(path)}`;
    await env.FILES.put(key, dataUrlBytes(await load()), { httpMetadata: { contentType: "font/woff" } });
    uploaded.push(key);
  }
}

afterAll(async () => {
  if (uploaded.length > 0) await env.FILES.delete(uploaded);
  clearFontCache();
});

async function orderFor(name: string, eventName: string, typeName: string) {
  const event = await createEvent({ event_name: eventName, add_dashboard_orders_needed: true });
  const type = await createTicketType(event.id, { name: typeName });
  const order = await expectJson(call("POST", "/admin/orders", { body: { event_id: event.id, name, email: "guest@example.com", tickets: [{ [type.id]: 1 }] } }), 201);
  return { event, order };
}

async function download(uid: string) {
  const res = await call("GET", `/tickets/${uid}`, { key: null, auth: null });
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  const doc = await PDFDocument.load(bytes);
  return { doc, page: readPage(doc.getPage(0)) };
}

async function downloadPage(uid: string) {
  return (await download(uid)).page;
}

/** The page's fonts: base name and the size of the embedded font program (0: none, a standard font). */
function embeddedFonts(page: PDFPage): { name: string; program: number }[] {
  const ctx = page.doc.context;
  const resources = ctx.lookup(page.node.get(PDFName.of("Resources"))) as PDFDict;
  const fonts = resources.lookup(PDFName.of("Font")) as PDFDict;
  return fonts.entries().map(([, ref]) => {
    const font = ctx.lookup(ref) as PDFDict;
    const name = (font.lookup(PDFName.of("BaseFont")) as PDFName).decodeText();
    const descendants = font.lookup(PDFName.of("DescendantFonts"));
    const cid = descendants instanceof PDFArray ? (descendants.lookup(0) as PDFDict) : font;
    const descriptor = cid.lookup(PDFName.of("FontDescriptor"));
    let program = 0;
    if (descriptor instanceof PDFDict) {
      for (const key of ["FontFile", "FontFile2", "FontFile3"]) {
        const stream = descriptor.lookup(PDFName.of(key));
        if (stream instanceof PDFStream) program = stream.getContentsSize();
      }
    }
    return { name, program };
  });
}

describe("ticket fonts in R2", () => {
  it("without the font files, non-WinAnsi names are transliterated (nothing fails)", async () => {
    expect((await env.FILES.list({ prefix: FONT_PREFIX })).objects, "no font files in R2 at the start").toEqual([]);
    clearFontCache();
    const missing = expectLogged("warn", /"msg":"ticket font unavailable"/);
    const { order } = await orderFor(CYRILLIC, unique(`${GREEK} `), "Regular");
    const page = await downloadPage(order.uid);
    const lines = page.lines.map((l) => l.text);
    expect(lines).toContain("Dmitriy Ivanov");
    expect(lines.some((l) => l.startsWith("Eleni "))).toBe(true);
    // Standard fonts only: the info lines in Helvetica, the ticket id under the code in Courier Bold.
    expect(new Set(page.lines.flatMap((l) => l.fonts))).toEqual(new Set(["Helvetica", "Courier-Bold"]));
    // Each face the names needed is reported missing, by its key (the Cyrillic and Greek ones among them).
    const keys = missing.lines.map((l) => JSON.parse(l).key as string);
    expect(keys.every((k) => k.startsWith(FONT_PREFIX))).toBe(true);
    expect(keys.some((k) => k.includes("cyrillic")) && keys.some((k) => k.includes("greek"))).toBe(true);
  });

  it("with the Noto files in R2, Cyrillic, Greek and Chinese are drawn as written with embedded Noto fonts", async () => {
    await uploadFonts(CHINESE);
    // The previous test (or any earlier render in this runtime) cached these keys as missing.
    clearFontCache();

    const eventName = unique(`${GREEK} `);
    const { order } = await orderFor(CYRILLIC, eventName, CHINESE);
    const { page, doc } = await download(order.uid);
    const lines = page.lines.map((l) => l.text);
    expect(lines).toContain(eventName);
    expect(lines).toContain(CHINESE);
    expect(lines).toContain(CYRILLIC);
    expect(lines).not.toContain("Dmitriy Ivanov");

    const fontsOf = (text: string) => page.lines.find((l) => l.text === text)!.fonts;
    expect(fontsOf(CYRILLIC).every((f) => /NotoSans/.test(f))).toBe(true);
    expect(fontsOf(CHINESE).every((f) => /NotoSansSC|NotoSans/.test(f))).toBe(true);
    expect(fontsOf(CHINESE).some((f) => /SC/.test(f))).toBe(true);
    expect(fontsOf(eventName).some((f) => /NotoSans/.test(f))).toBe(true);
    // The Noto fonts are embedded in the file (a font program in each font's descriptor), not merely named.
    const embedded = embeddedFonts(doc.getPage(0));
    expect(embedded.filter((f) => /NotoSans/.test(f.name)).length).toBeGreaterThanOrEqual(2);
    for (const f of embedded.filter((x) => /NotoSans/.test(x.name))) expect(f.program, f.name).toBeGreaterThan(0);

    // One order per name as well: each drawn as written.
    for (const name of [GREEK, CHINESE]) {
      const one = await orderFor(name, unique("Fonts "), "Regular");
      const drawn = (await downloadPage(one.order.uid)).lines.map((l) => l.text);
      expect(drawn).toContain(name);
    }
  });
});
