/**
 * PNG images of 8-bit grayscale pixels (PNG specification, ISO/IEC 15948): the signature, `IHDR`, one `IDAT` and
 * `IEND`. Rows go unfiltered (filter type 0): the images drawn here are flat runs of black and white, which deflate
 * shrinks well without a filter. The pixel data is compressed by the runtime's `CompressionStream("deflate")`, whose
 * output is the zlib format `IDAT` requires; apart from that stream this is pure.
 */

/** Row-major pixels, one byte each: 0 black to 255 white. */
export interface GrayImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** The largest width or height the format allows (2^31 - 1). */
const MAX_SIDE = 0x7fffffff;

/** CRC-32 (ISO 3309, the polynomial of zlib and PNG), one entry per byte value. */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A chunk: its data's length, its type, the data, and the CRC of type and data (all integers big-endian). */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function header(width: number, height: number): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data[8] = 8; // bits a sample
  data[9] = 0; // colour type: grayscale
  // Compression (deflate), filter method (adaptive) and interlace (none) are the 0 already there.
  return data;
}

async function deflate(data: Uint8Array): Promise<Uint8Array> {
  const compressed = new Blob([data]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(compressed).arrayBuffer());
}

/** The image as PNG bytes. */
export async function encodeGrayPng({ width, height, pixels }: GrayImage): Promise<Uint8Array<ArrayBuffer>> {
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_SIDE) throw new RangeError(`a PNG side must be 1 to ${MAX_SIDE} pixels, not ${side}`);
  }
  if (pixels.length !== width * height) throw new RangeError(`${width} x ${height} pixels, but ${pixels.length} given`);
  // Each row: its filter type (0, none), then its pixels.
  const rows = new Uint8Array(height * (width + 1));
  for (let y = 0; y < height; y++) rows.set(pixels.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  const parts = [Uint8Array.from(SIGNATURE), chunk("IHDR", header(width, height)), chunk("IDAT", await deflate(rows)), chunk("IEND", new Uint8Array(0))];
  return new Uint8Array(await new Blob(parts).arrayBuffer());
}
