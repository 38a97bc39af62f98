/**
 * A PNG reader for tests, written apart from src/lib/png.ts so that it checks the encoder rather than repeat it:
 * the signature, every chunk's CRC, `IHDR`, the `IDAT`s inflated with `DecompressionStream("deflate")` (zlib), and
 * the rows unfiltered. Reads what the service writes, 8-bit grayscale without interlace, rows of filter type 0 (none),
 * and refuses anything else, so that a change of the encoder shows here first.
 */

export interface ReadPng {
  width: number;
  height: number;
  /** Chunk types in file order. */
  chunks: string[];
  /** The zlib stream's first two bytes (CMF, FLG). */
  zlibHeader: [number, number];
  /** Row-major, one byte a pixel. */
  pixels: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** CRC-32 bit by bit (no table), as the PNG specification's sample code computes it. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function readPng(bytes: Uint8Array): Promise<ReadPng> {
  if (SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error("not a PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: string[] = [];
  const idat: Uint8Array[] = [];
  let width = 0;
  let height = 0;
  let at = 8;
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (data.length !== length || at + 12 + length > bytes.length) throw new Error(`chunk ${type} runs past the end`);
    const crc = view.getUint32(at + 8 + length);
    if (crc !== crc32(bytes.subarray(at + 4, at + 8 + length))) throw new Error(`chunk ${type}: CRC mismatch`);
    chunks.push(type);
    if (type === "IHDR") {
      const h = new DataView(data.buffer, data.byteOffset, data.byteLength);
      width = h.getUint32(0);
      height = h.getUint32(4);
      const [depth, colour, compression, filter, interlace] = data.subarray(8, 13);
      if (length !== 13 || depth !== 8 || colour !== 0 || compression !== 0 || filter !== 0 || interlace !== 0) {
        throw new Error(`IHDR not 8-bit grayscale without interlace: ${[...data]}`);
      }
    }
    if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  if (chunks[0] !== "IHDR" || chunks.at(-1) !== "IEND") throw new Error(`chunks out of order: ${chunks}`);
  const compressed = new Uint8Array(idat.reduce((n, d) => n + d.length, 0));
  let offset = 0;
  for (const d of idat) {
    compressed.set(d, offset);
    offset += d.length;
  }
  const raw = await inflate(compressed);
  if (raw.length !== height * (width + 1)) throw new Error(`${raw.length} bytes of rows for ${width} x ${height}`);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (width + 1)]!;
    if (filter !== 0) throw new Error(`row ${y}: filter type ${filter}`);
    pixels.set(raw.subarray(y * (width + 1) + 1, (y + 1) * (width + 1)), y * width);
  }
  return { width, height, chunks, zlibHeader: [compressed[0]!, compressed[1]!], pixels };
}
