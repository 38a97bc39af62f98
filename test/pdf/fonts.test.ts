import fontkit from "@pdf-lib/fontkit";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { facesFromUnicodeRanges, fontsourceFileName, parseUnicodeRange, resolveFaces } from "../../src/pdf/fonts";
import { winAnsiCluster } from "../../src/pdf/winansi";
import { isWoff, woffToSfnt } from "../../src/pdf/woff";
import { testFontSource } from "./test-fonts";

describe("font sources", () => {
  it("reads CSS unicode ranges", () => {
    expect(parseUnicodeRange("U+0000-00FF, U+0131,U+4??, bogus, U+1F600-1F64F")).toEqual([
      [0x0, 0xff],
      [0x131, 0x131],
      [0x400, 0x4ff],
      [0x1f600, 0x1f64f],
    ]);
  });

  it("names @fontsource files and builds faces from unicode.json", () => {
    expect(fontsourceFileName("noto-sans-sc", "[21]")).toBe("noto-sans-sc-21-400-normal.woff");
    expect(fontsourceFileName("noto-sans", "latin-ext", 700)).toBe("noto-sans-latin-ext-700-normal.woff");
    const faces = facesFromUnicodeRanges({ latin: "U+0000-00FF", "[3]": "U+4E00" }, (subset) => ({ key: subset, load: async () => null }));
    expect(faces.map((f) => [f.key, f.unicodeRange])).toEqual([
      ["latin", [[0, 0xff]]],
      ["[3]", [[0x4e00, 0x4e00]]],
    ]);
  });

  it("resolves each character to the first face that has it, loading only the faces needed", async () => {
    const fonts = testFontSource("resolve");
    const cps = [..."Łλд李あ"].map((c) => c.codePointAt(0)!);
    const faces = await resolveFaces(cps, fonts);
    expect(cps.map((cp) => faces.get(cp)?.key.replace("resolve/", ""))).toEqual([
      "noto-sans-latin-ext-400-normal.woff",
      "noto-sans-greek-400-normal.woff",
      "noto-sans-cyrillic-400-normal.woff",
      "noto-sans-sc-115-400-normal.woff",
      "noto-sans-sc-119-400-normal.woff",
    ]);
    expect(fonts.loads.length).toBe(5);
    expect((await resolveFaces([0x1f600], fonts)).size).toBe(0);
  });
});

describe("WOFF unpacking", () => {
  it("turns a WOFF into the same font as plain TrueType", async () => {
    const fonts = testFontSource("woff");
    const face = fonts.faces.find((f) => f.key.endsWith("noto-sans-greek-400-normal.woff"))!;
    const woff = (await face.load()) as Uint8Array;
    expect(isWoff(woff)).toBe(true);
    const sfnt = await woffToSfnt(woff);
    expect(isWoff(sfnt)).toBe(false);
    expect(new DataView(sfnt.buffer).getUint32(0)).toBe(0x00010000); // TrueType outlines
    const fromWoff = fontkit.create(woff);
    const fromSfnt = fontkit.create(sfnt);
    expect(fromSfnt.numGlyphs).toBe(fromWoff.numGlyphs);
    const text = "Ελένη Παπαδοπούλου";
    expect(fromSfnt.layout(text).glyphs.map((g) => [g.id, g.advanceWidth])).toEqual(fromWoff.layout(text).glyphs.map((g) => [g.id, g.advanceWidth]));
    expect(fromSfnt.layout("έ").glyphs[0]!.path.toSVG()).toBe(fromWoff.layout("έ").glyphs[0]!.path.toSVG());
  });

  it("refuses a malformed WOFF", async () => {
    const bad = new Uint8Array(60);
    new DataView(bad.buffer).setUint32(0, 0x774f4646);
    await expect(woffToSfnt(bad)).rejects.toThrow();
    await expect(woffToSfnt(new Uint8Array(10))).rejects.toThrow();
  });
});

describe("WinAnsi fallback", () => {
  it("keeps what Helvetica draws and replaces only the rest", async () => {
    const helvetica = (await PDFDocument.create()).embedStandardFont(StandardFonts.Helvetica);
    const cs = new Set(helvetica.getCharacterSet());
    const line = (text: string) => {
      const clusters = [...text];
      return clusters.map((c, i) => winAnsiCluster(c, clusters[i - 1], clusters[i + 1], cs)).join("");
    };
    expect(line("Zoë Ørsted-Nuñez ß € “quoted”")).toBe("Zoë Ørsted-Nuñez ß € “quoted”");
    expect(line("Łukasz Wróbel")).toBe("Lukasz Wróbel");
    expect(line("Őrs Ŧ Ħ ı")).toBe("Ors T H i");
    expect(line("Ελένη Παπαδοπούλου")).toBe("Eleni Papadopoulou");
    expect(line("ΟΥΡΑΝΟΣ Θεσσαλονίκη ΘΕΣΗ")).toBe("OURANOS Thessaloniki THESI");
    expect(line("Дмитрий Ёлкин Щукин")).toBe("Dmitriy Yolkin Shchukin");
    expect(line("ЖУК Жук Ж")).toBe("ZHUK Zhuk Zh");
    expect(line("李小龍 😀")).toBe("??? ?");
    expect(winAnsiCluster("e\u0301", undefined, undefined, cs)).toBe("é");
    expect(winAnsiCluster("o\u030B", undefined, undefined, cs)).toBe("o");
    expect(winAnsiCluster("\u0301", undefined, undefined, cs)).toBe("");
    expect(winAnsiCluster("Ъ", undefined, undefined, cs)).toBe("");
  });
});
