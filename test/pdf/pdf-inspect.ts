/**
 * Reads back what a rendered ticket page draws: a small content-stream tokenizer and interpreter, enough for the
 * operators renderTickets writes (and simple templates), and text decoding through each font's ToUnicode CMap (or
 * WinAnsi for the standard fonts).
 */
import { PDFArray, PDFContentStream, type PDFDict, PDFName, type PDFPage, PDFRawStream, PDFRef, PDFStream, decodePDFRawStream } from "pdf-lib";

export type Operand = number | { name: string } | { hex: string } | { literal: string } | Operand[] | { dict: true };
export interface Op {
  op: string;
  args: Operand[];
}

export function streamBytes(stream: PDFStream): Uint8Array {
  if (stream instanceof PDFRawStream) return decodePDFRawStream(stream).decode();
  if (stream instanceof PDFContentStream) return stream.getUnencodedContents();
  throw new Error("unknown stream type");
}

export function pageContentBytes(page: PDFPage): Uint8Array {
  const context = page.doc.context;
  const contents = page.node.get(PDFName.of("Contents"));
  const resolved = contents instanceof PDFRef ? context.lookup(contents) : contents;
  const streams: PDFStream[] = [];
  if (resolved instanceof PDFArray) for (const item of resolved.asArray()) streams.push(context.lookup(item) as PDFStream);
  else if (resolved instanceof PDFStream) streams.push(resolved);
  const parts = streams.map(streamBytes);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length + 1, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
    out[at++] = 0x0a;
  }
  return out;
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set("()<>[]{}/%".split("").map((c) => c.charCodeAt(0)));

export function tokenize(bytes: Uint8Array): Op[] {
  const ops: Op[] = [];
  const stack: Operand[][] = [[]];
  let i = 0;
  const top = () => stack[stack.length - 1]!;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (WHITESPACE.has(c)) {
      i++;
    } else if (c === 0x25) {
      while (i < bytes.length && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
    } else if (c === 0x2f) {
      let j = i + 1;
      while (j < bytes.length && !WHITESPACE.has(bytes[j]!) && !DELIMITERS.has(bytes[j]!)) j++;
      top().push({ name: new TextDecoder("latin1").decode(bytes.subarray(i + 1, j)) });
      i = j;
    } else if (c === 0x3c && bytes[i + 1] === 0x3c) {
      // Dictionaries only appear as operands of BDC/DP and inline images here: skip to the matching >>.
      let depth = 0;
      while (i < bytes.length) {
        if (bytes[i] === 0x3c && bytes[i + 1] === 0x3c) {
          depth++;
          i += 2;
        } else if (bytes[i] === 0x3e && bytes[i + 1] === 0x3e) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
      top().push({ dict: true });
    } else if (c === 0x3c) {
      const end = bytes.indexOf(0x3e, i);
      top().push({ hex: new TextDecoder("latin1").decode(bytes.subarray(i + 1, end)).replace(/\s+/g, "") });
      i = end + 1;
    } else if (c === 0x28) {
      let depth = 1;
      let j = i + 1;
      let s = "";
      while (j < bytes.length && depth > 0) {
        const d = bytes[j]!;
        if (d === 0x5c) {
          const e = bytes[j + 1]!;
          const map: Record<number, string> = { 0x6e: "\n", 0x72: "\r", 0x74: "\t", 0x62: "\b", 0x66: "\f" };
          if (map[e] !== undefined) {
            s += map[e];
            j += 2;
          } else if (e >= 0x30 && e <= 0x37) {
            let k = j + 1;
            let oct = "";
            while (k < j + 4 && bytes[k]! >= 0x30 && bytes[k]! <= 0x37) oct += String.fromCharCode(bytes[k++]!);
            s += String.fromCharCode(parseInt(oct, 8));
            j = k;
          } else {
            s += String.fromCharCode(e);
            j += 2;
          }
          continue;
        }
        if (d === 0x28) depth++;
        if (d === 0x29 && --depth === 0) break;
        s += String.fromCharCode(d);
        j++;
      }
      top().push({ literal: s });
      i = j + 1;
    } else if (c === 0x5b) {
      stack.push([]);
      i++;
    } else if (c === 0x5d) {
      const array = stack.pop()!;
      top().push(array);
      i++;
    } else {
      let j = i;
      while (j < bytes.length && !WHITESPACE.has(bytes[j]!) && !DELIMITERS.has(bytes[j]!)) j++;
      const word = new TextDecoder("latin1").decode(bytes.subarray(i, j));
      i = j;
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) top().push(Number(word));
      else if (word === "true" || word === "false" || word === "null") top().push(0);
      else {
        ops.push({ op: word, args: top().splice(0) });
        if (word === "ID") {
          // Inline image data: skip to EI.
          const end = findEI(bytes, i);
          i = end + 2;
          ops.push({ op: "EI", args: [] });
        }
      }
    }
  }
  return ops;
}

function findEI(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length - 1; i++) {
    if (bytes[i] === 0x45 && bytes[i + 1] === 0x49 && WHITESPACE.has(bytes[i - 1]!) && (i + 2 >= bytes.length || WHITESPACE.has(bytes[i + 2]!))) return i;
  }
  return bytes.length;
}

// ---------------------------------------------------------------------------------------------------------------

// biome-ignore format: a table, kept packed by hand
const WIN_ANSI_HIGH: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

export interface FontInfo {
  resource: string;
  baseFont: string;
  decode(hex: string): string;
}

function parseToUnicode(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  const utf16 = (hex: string) => {
    const units: number[] = [];
    for (let i = 0; i < hex.length; i += 4) units.push(parseInt(hex.slice(i, i + 4), 16));
    return String.fromCharCode(...units);
  };
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) map.set(parseInt(m[1]!, 16), utf16(m[2]!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) {
      const from = parseInt(m[1]!, 16);
      const to = parseInt(m[2]!, 16);
      const start = parseInt(m[3]!, 16);
      for (let code = from; code <= to; code++) map.set(code, String.fromCharCode(start + code - from));
    }
  }
  return map;
}

export function pageFonts(page: PDFPage): Map<string, FontInfo> {
  const context = page.doc.context;
  const fonts = new Map<string, FontInfo>();
  const resources = context.lookup(page.node.get(PDFName.of("Resources"))) as PDFDict | undefined;
  const fontDict = resources?.lookup(PDFName.of("Font")) as PDFDict | undefined;
  if (!fontDict) return fonts;
  for (const [key, value] of fontDict.entries()) {
    const dict = context.lookup(value) as PDFDict;
    const baseFont = (dict.lookup(PDFName.of("BaseFont")) as PDFName).decodeText();
    const toUnicode = dict.lookup(PDFName.of("ToUnicode"));
    let decode: (hex: string) => string;
    if (toUnicode instanceof PDFStream) {
      const map = parseToUnicode(new TextDecoder("latin1").decode(streamBytes(toUnicode)));
      decode = (hex) => {
        let out = "";
        for (let i = 0; i < hex.length; i += 4) out += map.get(parseInt(hex.slice(i, i + 4), 16)) ?? "\uFFFD";
        return out;
      };
    } else {
      decode = (hex) => {
        let out = "";
        for (let i = 0; i < hex.length; i += 2) {
          const b = parseInt(hex.slice(i, i + 2), 16);
          out += String.fromCodePoint(WIN_ANSI_HIGH[b] ?? b);
        }
        return out;
      };
    }
    fonts.set(key.decodeText(), { resource: key.decodeText(), baseFont, decode });
  }
  return fonts;
}

export interface DrawnLine {
  x: number;
  y: number;
  text: string;
  /** Base font names used, in order. */
  fonts: string[];
  sizes: number[];
}

export interface Fill {
  gray: number | null;
  rects: [number, number, number, number][];
}

export interface PageDrawing {
  ops: Op[];
  lines: DrawnLine[];
  fills: Fill[];
  strokes: [number, number, number, number][][];
  /** The operands of each `cm`. */
  matrices: number[][];
  xObjects: string[];
}

/** Interprets a ticket page: text lines (decoded), filled and stroked rectangles, matrices, XObjects drawn. */
export function readPage(page: PDFPage): PageDrawing {
  const ops = tokenize(pageContentBytes(page));
  const fonts = pageFonts(page);
  const lines: DrawnLine[] = [];
  const fills: Fill[] = [];
  const strokes: [number, number, number, number][][] = [];
  const matrices: number[][] = [];
  const xObjects: string[] = [];
  let path: [number, number, number, number][] = [];
  let gray: number | null = null;
  let font: FontInfo | undefined;
  let size = 0;
  let line: DrawnLine | undefined;
  for (const { op, args } of ops) {
    switch (op) {
      case "cm":
        matrices.push(args as number[]);
        break;
      case "g":
        gray = args[0] as number;
        break;
      case "rg":
        gray = null;
        break;
      case "re":
        path.push(args as [number, number, number, number]);
        break;
      case "f":
      case "F":
      case "f*":
        fills.push({ gray, rects: path });
        path = [];
        break;
      case "S":
        strokes.push(path);
        path = [];
        break;
      case "n":
        path = [];
        break;
      case "Tf":
        font = fonts.get((args[0] as { name: string }).name);
        size = args[1] as number;
        break;
      case "Tm":
        line = { x: args[4] as number, y: args[5] as number, text: "", fonts: [], sizes: [] };
        lines.push(line);
        break;
      case "Tj": {
        const operand = args[0]!;
        const text =
          typeof operand === "object" && "hex" in operand
            ? (font?.decode(operand.hex) ?? "")
            : typeof operand === "object" && "literal" in operand
              ? operand.literal
              : "";
        if (!line) {
          line = { x: 0, y: 0, text: "", fonts: [], sizes: [] };
          lines.push(line);
        }
        line.text += text;
        line.fonts.push(font?.baseFont ?? "?");
        line.sizes.push(size);
        break;
      }
      case "Do":
        xObjects.push((args[0] as { name: string }).name);
        break;
    }
  }
  return { ops, lines, fills, strokes, matrices, xObjects };
}

/** The page's XObject of that resource name. */
export function xObject(page: PDFPage, name: string): { ref: PDFRef; stream: PDFStream } {
  const context = page.doc.context;
  const resources = context.lookup(page.node.get(PDFName.of("Resources"))) as PDFDict;
  const dict = resources.lookup(PDFName.of("XObject")) as PDFDict;
  const ref = dict.get(PDFName.of(name)) as PDFRef;
  return { ref, stream: context.lookup(ref) as PDFStream };
}

export function hexOf(text: string): string {
  return [...text]
    .map((c) => c.charCodeAt(0).toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}
