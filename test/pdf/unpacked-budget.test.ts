import { describe, expect, it } from "vitest";
import { exceedsUnpackedBudget, MAX_OBJECTS, MAX_UNPACKED_BYTES } from "../../src/pdf/unpacked-budget";
import { ascii, deflate, deflatedZeros, MiB, pdfWithObjects, pdfWithStreams, rawPdf, type RawObject } from "../helpers/packed-pdfs";
import { makePdf } from "../helpers/uploads";

/** decisions.md 14: what an uploaded PDF may unpack to, measured before pdf-lib parses it. */

const over = (objects: RawObject[]) => exceedsUnpackedBudget(rawPdf(objects));

const flate = (data: Uint8Array, extra = "") => ({ dict: `/Length ${data.length} /Filter /FlateDecode ${extra}`, data });

/** Random letters and spaces: deflate packs them only to about two thirds. */
function prose(size: number): Uint8Array {
  const letters = "abcdefghijklmnopqrstuvwxyz ";
  let seed = 7;
  return Uint8Array.from({ length: size }, () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return letters.charCodeAt((seed >>> 16) % letters.length);
  });
}

function ascii85(bytes: Uint8Array): Uint8Array {
  let out = "";
  for (let i = 0; i < bytes.length; i += 4) {
    const n = Math.min(4, bytes.length - i);
    let value = 0;
    for (let k = 0; k < 4; k += 1) value = value * 256 + (bytes[i + k] ?? 0);
    if (n === 4 && value === 0) {
      out += "z";
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k += 1) {
      digits.unshift(String.fromCharCode(33 + (value % 85)));
      value = Math.floor(value / 85);
    }
    // Line breaks as writers put them, which the decoder must skip.
    out += digits.slice(0, n + 1).join("") + (i % 64 === 60 ? "\n" : "");
  }
  return ascii(`${out}~>`);
}

const hex = (bytes: Uint8Array) => ascii(`${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ")}>`);

describe("exceedsUnpackedBudget", () => {
  it("holds the limits of decisions.md 14", () => {
    expect(MAX_UNPACKED_BYTES).toBe(64 * MiB);
    expect(MAX_OBJECTS).toBe(100_000);
  });

  it("passes ordinary PDFs, with and without object streams", async () => {
    for (const pdf of [
      await makePdf(1, { text: "ordinary" }),
      await makePdf(3, { text: "three pages", useObjectStreams: false }),
      await pdfWithStreams([{ data: await deflate(prose(200_000)), dict: { Filter: "FlateDecode" } }]),
    ]) {
      expect(await exceedsUnpackedBudget(pdf)).toBe(false);
    }
  });

  it("refuses text built to make the scan read it over and over", async () => {
    expect(await exceedsUnpackedBudget(ascii(`%PDF-1.7\n${"1 0 obj (".repeat(100_000)}`))).toBe(true);
  });

  it("leaves what is no PDF to the parser, and the bytes as they were", async () => {
    expect(await exceedsUnpackedBudget(new Uint8Array(0))).toBe(false);
    expect(await exceedsUnpackedBudget(ascii("%PDF-1.7\nthis is not a PDF body at all\n"))).toBe(false);
    const pdf = await makePdf(1, { text: "untouched" });
    const copy = pdf.slice();
    await exceedsUnpackedBudget(pdf);
    expect(pdf).toEqual(copy);
  });

  it("allows a stream that unpacks to exactly 64 MiB and refuses one byte more", async () => {
    expect(await over([flate(await deflatedZeros(MAX_UNPACKED_BYTES))])).toBe(false);
    expect(await over([flate(await deflatedZeros(MAX_UNPACKED_BYTES + 1))])).toBe(true);
  });

  it("adds up all streams, unpacked and plain", async () => {
    const quarter = flate(await deflatedZeros(16 * MiB));
    expect(await over([quarter, quarter, quarter, quarter])).toBe(false);
    expect(await over([quarter, quarter, quarter, quarter, { dict: "/Length 1", data: ascii("x") }])).toBe(true);
    expect(await over([quarter, quarter, quarter, quarter, quarter])).toBe(true);
  });

  describe("finds a stream however pdf-lib would find it", () => {
    const bomb = deflatedZeros(MAX_UNPACKED_BYTES + 1);

    it.each<[string, (data: Uint8Array) => RawObject[]]>([
      ["with a one-filter array", (data) => [{ dict: `/Length ${data.length} /Filter [/FlateDecode]`, data }]],
      ["with the filter name written with #hex escapes", (data) => [{ dict: `/Length ${data.length} /Filter /Flate#44ecode`, data }]],
      ["without /Length", (data) => [{ dict: "/Filter /FlateDecode", data }]],
      ["with a wrong /Length", (data) => [{ dict: "/Length 10 /Filter /FlateDecode", data }]],
      ["with /Length given by reference", (data) => [{ dict: "/Length 2 0 R /Filter /FlateDecode", data }, String(data.length)]],
      ["with comments and strings in its dictionary", (data) => [{ dict: `/Length ${data.length} % /Filter /None\n/T (a >> b) /Filter/FlateDecode`, data }]],
      ["as an object stream", (data) => [flate(data, "/Type /ObjStm /N 1 /First 4")]],
      ["after an object pdf-lib gives up on", (data) => ["<< /Title (never closed", flate(data)]],
      ["inside an array", (data) => [`[ << /Length ${data.length} /Filter /FlateDecode >> stream\n${latin1(data)}\nendstream ]`]],
    ])("%s", async (_name, build) => {
      expect(await over(build(await bomb))).toBe(true);
    });
  });

  describe("measures the filters pdf-lib decodes, and bounds those it does not run itself", () => {
    it("runs Flate twice when it is applied twice", async () => {
      const twice = await deflate(await deflatedZeros(MAX_UNPACKED_BYTES + 1));
      expect(await over([{ dict: `/Length ${twice.length} /Filter [/FlateDecode /FlateDecode]`, data: twice }])).toBe(true);
    });

    it.each([
      ["ASCII85Decode", ascii85],
      ["ASCIIHexDecode", hex],
    ])("decodes %s before Flate instead of bounding it", async (filter, encode) => {
      const chain = `/Filter [/${filter} /FlateDecode]`;
      const small = encode(await deflate(prose(120_000)));
      // Bounded rather than measured, this stream would count as far more than 64 MiB.
      expect(small.length * 1032).toBeGreaterThan(MAX_UNPACKED_BYTES);
      expect(await over([{ dict: `/Length ${small.length} ${chain}`, data: small }])).toBe(false);
      const bomb = encode(await deflatedZeros(MAX_UNPACKED_BYTES + 1));
      expect(await over([{ dict: `/Length ${bomb.length} ${chain}`, data: bomb }])).toBe(true);
    });

    it.each([
      ["LZWDecode", 4096],
      ["RunLengthDecode", 64],
    ])("counts %s at its largest growth (%i bytes a byte)", async (filter, growth) => {
      const at = (size: number) => ({ dict: `/Length ${size} /Filter /${filter}`, data: new Uint8Array(size) });
      expect(await over([at(MAX_UNPACKED_BYTES / growth)])).toBe(false);
      expect(await over([at(MAX_UNPACKED_BYTES / growth + 1)])).toBe(true);
    });

    it("counts a filter pdf-lib never decodes (an image's DCTDecode) as it is", async () => {
      const image = prose(2 * MiB);
      expect(await over([{ dict: `/Length ${image.length} /Filter /DCTDecode`, data: image }])).toBe(false);
      expect(await over([{ dict: `/Length ${image.length} /Filter [/FlateDecode /DCTDecode]`, data: image }])).toBe(false);
    });

    it("refuses filters given by reference, which it cannot read", async () => {
      const data = await deflate(prose(1000));
      expect(await over([{ dict: `/Length ${data.length} /Filter 2 0 R`, data }, "/FlateDecode"])).toBe(true);
      expect(await over([{ dict: `/Length ${data.length} /Filter [2 0 R]`, data }, "/FlateDecode"])).toBe(true);
    });
  });

  describe("damaged Flate data", () => {
    it("passes data that is not zlib at all, which pdf-lib will not unpack either", async () => {
      const text = prose(200_000);
      expect(await over([flate(text)])).toBe(false);
    });

    it("measures a stream whose /Length takes in the line end after it", async () => {
      const withEol = async (size: number) => {
        const data = await deflatedZeros(size);
        const padded = new Uint8Array(data.length + 2);
        padded.set(data);
        padded.set(ascii("\r\n"), data.length);
        return flate(padded);
      };
      expect(await over([await withEol(60 * MiB)])).toBe(false);
      expect(await over([await withEol(MAX_UNPACKED_BYTES + 1)])).toBe(true);
    });

    it("does not fail on corrupt data: counts it at the most it could unpack to", async () => {
      const corrupt = (packed: Uint8Array) => {
        const data = packed.slice();
        for (let i = 2; i < data.length; i += 7) data[i] = data[i]! ^ 0x5a;
        return flate(data);
      };
      const small = await deflate(prose(5_000));
      expect(small.length * 1032).toBeLessThan(MAX_UNPACKED_BYTES);
      expect(await over([corrupt(small)])).toBe(false);
      const large = await deflate(prose(120_000));
      expect(large.length * 1032).toBeGreaterThan(MAX_UNPACKED_BYTES);
      expect(await over([corrupt(large)])).toBe(true);
    });
  });

  describe("objects", () => {
    it("allows 100,000 objects and refuses 100,001", async () => {
      expect(await over(Array.from({ length: MAX_OBJECTS }, () => "null"))).toBe(false);
      expect(await over(Array.from({ length: MAX_OBJECTS + 1 }, () => "null"))).toBe(true);
    });

    it("counts the objects an object stream holds by its /N", async () => {
      const packed = (n: string) => [{ dict: `/Type /ObjStm /N ${n} /First 0 /Length 0`, data: new Uint8Array(0) }];
      expect(await over(packed(String(MAX_OBJECTS - 1)))).toBe(false);
      expect(await over(packed(String(MAX_OBJECTS)))).toBe(true);
      // A count given by reference cannot be read here, so the stream is refused.
      expect(await over([...packed("2 0 R"), "5"])).toBe(true);
    });

    it("refuses 100,001 objects that pdf-lib packed into object streams of 50", async () => {
      expect(await exceedsUnpackedBudget(await pdfWithObjects(MAX_OBJECTS + 1))).toBe(true);
    });
  });
});

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
}
