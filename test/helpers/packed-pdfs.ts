import { PDFDocument } from "pdf-lib";
import { makePdf } from "./uploads";

/** PDFs that unpack to much more than they weigh (decisions.md 14), made without holding the unpacked bytes. */

export const MiB = 1024 * 1024;

/** A stream of `size` zero bytes, a MiB at a time. */
function zeros(size: number): ReadableStream<Uint8Array> {
  let left = size;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left === 0) return controller.close();
      const n = Math.min(left, MiB);
      left -= n;
      controller.enqueue(new Uint8Array(n));
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** zlib data (a PDF's FlateDecode) of `size` zero bytes: about a thousandth of `size`. */
export function deflatedZeros(size: number): Promise<Uint8Array> {
  return collect(zeros(size).pipeThrough(new CompressionStream("deflate")));
}

export function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  return collect(new Blob([bytes.slice()]).stream().pipeThrough(new CompressionStream("deflate")));
}

export interface ExtraStream {
  /** The stream's bytes as they are written (already encoded). */
  data: Uint8Array;
  /** Its dictionary besides /Length: strings are names (`{ Filter: "FlateDecode" }`). */
  dict?: Record<string, string | number | string[]>;
}

/** A one-page PDF made by pdf-lib with extra stream objects, unreferenced: a parser still reads every object. */
export async function pdfWithStreams(streams: ExtraStream[], useObjectStreams = true): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await makePdf(1, { text: "packed" }));
  for (const { data, dict } of streams) doc.context.register(doc.context.stream(data, dict ?? {}));
  return doc.save({ useObjectStreams, addDefaultPage: false });
}

/** A one-page PDF with `count` extra objects, which pdf-lib packs into object streams of 50. */
export async function pdfWithObjects(count: number): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await makePdf(1, { text: "many objects" }));
  for (let i = 0; i < count; i += 1) doc.context.register(doc.context.obj(i));
  return doc.save({ useObjectStreams: true, addDefaultPage: false });
}

export type RawObject = string | { dict: string; data: Uint8Array };

/**
 * A PDF written by hand, numbered from 1: a string is an object's body, `{dict, data}` a stream with exactly that
 * dictionary text (so a test may leave out /Length or give a wrong one) and those bytes. No cross-reference table:
 * pdf-lib reads the objects in order without one.
 */
export function rawPdf(objects: RawObject[]): Uint8Array {
  const parts: Uint8Array[] = [ascii("%PDF-1.7\n")];
  objects.forEach((object, i) => {
    if (typeof object === "string") {
      parts.push(ascii(`${i + 1} 0 obj\n${object}\nendobj\n`));
    } else {
      parts.push(ascii(`${i + 1} 0 obj\n<< ${object.dict} >>\nstream\n`), object.data, ascii("\nendstream\nendobj\n"));
    }
  });
  parts.push(ascii("trailer\n<< /Size " + (objects.length + 1) + " >>\n%%EOF\n"));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}
