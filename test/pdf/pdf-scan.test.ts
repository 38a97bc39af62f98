import { PDFDocument, PDFRawStream } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { scanObjects } from "../../src/pdf/pdf-scan";
import { ascii, deflate, pdfWithStreams, rawPdf } from "../helpers/packed-pdfs";
import { makePdf } from "../helpers/uploads";

const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/** The data of every stream pdf-lib keeps after loading (object and cross-reference streams it consumes). */
async function pdfLibStreams(pdf: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  return doc.context.enumerateIndirectObjects().flatMap(([, object]) => (object instanceof PDFRawStream ? [latin1(object.contents)] : []));
}

const scannedStreams = (pdf: Uint8Array) => [...scanObjects(pdf)].flatMap((streams) => streams ?? []).map((s) => latin1(s.data));

describe("scanObjects", () => {
  it.each<[string, () => Promise<Uint8Array>]>([
    ["a pdf-lib PDF with object streams", () => makePdf(1, { text: "object streams" })],
    ["a pdf-lib PDF with a classic cross-reference table", () => makePdf(2, { text: "classic", useObjectStreams: false })],
    [
      "extra streams of every kind",
      async () =>
        pdfWithStreams(
          [
            { data: await deflate(ascii("BT /F1 12 Tf (stream endstream) Tj ET")), dict: { Filter: "FlateDecode" } },
            { data: ascii("plain (with a ) paren"), dict: { Filter: ["ASCIIHexDecode"] } },
            { data: new Uint8Array(0) },
          ],
          false,
        ),
    ],
    [
      "a wrong /Length, no /Length, one by reference, and keywords inside the data",
      async () =>
        rawPdf([
          { dict: "/Length 3", data: ascii("ab stream cd endstream ef") },
          { dict: "/Type /XObject", data: ascii("no length\r\nat all") },
          { dict: "/Length 4 0 R", data: ascii("length elsewhere") },
          "16",
          { dict: "/Length 12 /Filter /None", data: ascii("exactly 12 b") },
        ]),
    ],
  ])("finds every stream pdf-lib finds in %s, with the same bytes", async (_name, build) => {
    const pdf = await build();
    const ours = scannedStreams(pdf);
    const theirs = await pdfLibStreams(pdf);
    expect(theirs.length).toBeGreaterThan(0);
    for (const data of theirs) expect(ours).toContain(data);
  });

  it("keeps the entries that decide unpacking: names, numbers and filter arrays", () => {
    const pdf = rawPdf([{ dict: "/Type/ObjStm /N 3 /First 12 /Filter [ /ASCII85Decode /Flate#44ecode ] /Length 0", data: new Uint8Array(0) }]);
    const [streams] = [...scanObjects(pdf)];
    expect(streams).toHaveLength(1);
    expect(Object.fromEntries(streams![0]!.dict)).toEqual({ Type: "ObjStm", N: 3, Filter: ["ASCII85Decode", "FlateDecode"], Length: 0 });
  });

  it("counts object headers written with comments and without spaces, and not endobj", () => {
    const text = "%PDF-1.7\n1 0 obj null endobj\n2 %c\n0%d\nobj null endobj 3 0obj null endobj\nxref\n0 4\n";
    expect([...scanObjects(ascii(text))]).toHaveLength(3);
  });

  it("stays fast on text built to make patterns backtrack or objects overlap", () => {
    const started = Date.now();
    for (const text of [
      "1 " + "%".repeat(200_000),
      "1".repeat(500_000),
      "1 0 obj " + "<< /A ".repeat(200_000),
      "1 0 obj " + "[".repeat(500_000),
      // Streams that never end: each would otherwise search the rest of the file.
      "1 0 obj\n<< >> stream\n".repeat(20_000),
      // Strings that never end, each holding the next object: each would otherwise be read to the end of the file.
      "1 0 obj (".repeat(200_000),
    ]) {
      [...scanObjects(ascii(text))];
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
