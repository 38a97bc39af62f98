/**
 * WOFF (1.0) to plain sfnt (TrueType/OpenType) bytes. fontkit reads WOFF, but inflates a table every time it reads
 * from it, and its glyph decoding and subsetting read `glyf` once per glyph: a ten-ticket render with CJK names
 * spends most of its time inflating the same tables again. Unpacking once, when the face is loaded, avoids that.
 */

const WOFF_SIGNATURE = 0x774f4646; // "wOFF"
const HEADER = 44;
const WOFF_ENTRY = 20;
const SFNT_ENTRY = 16;

export function isWoff(bytes: Uint8Array): boolean {
  return bytes.length >= HEADER && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0) === WOFF_SIGNATURE;
}

async function inflate(data: Uint8Array): Promise<Uint8Array> {
  // zlib-wrapped deflate, which is what the Compression Streams standard calls "deflate".
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The sfnt inside a WOFF file; throws on a malformed one. */
export async function woffToSfnt(woff: Uint8Array): Promise<Uint8Array> {
  const view = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  if (!isWoff(woff)) throw new Error("not a WOFF file");
  const flavor = view.getUint32(4);
  const numTables = view.getUint16(12);
  if (numTables === 0 || HEADER + numTables * WOFF_ENTRY > woff.length) throw new Error("malformed WOFF table directory");

  const tables: { tag: number; checksum: number; data: Uint8Array }[] = [];
  for (let i = 0; i < numTables; i++) {
    const at = HEADER + i * WOFF_ENTRY;
    const tag = view.getUint32(at);
    const offset = view.getUint32(at + 4);
    const compLength = view.getUint32(at + 8);
    const origLength = view.getUint32(at + 12);
    const checksum = view.getUint32(at + 16);
    if (offset + compLength > woff.length || compLength > origLength) throw new Error("malformed WOFF table");
    const stored = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? await inflate(stored) : stored;
    if (data.length !== origLength) throw new Error("WOFF table of the wrong length");
    tables.push({ tag, checksum, data });
  }
  tables.sort((a, b) => a.tag - b.tag);

  let size = 12 + numTables * SFNT_ENTRY;
  for (const t of tables) size += (t.data.length + 3) & ~3;
  const out = new Uint8Array(size);
  const o = new DataView(out.buffer);
  let power = 1;
  let log = 0;
  while (power * 2 <= numTables) {
    power *= 2;
    log++;
  }
  o.setUint32(0, flavor);
  o.setUint16(4, numTables);
  o.setUint16(6, power * 16);
  o.setUint16(8, log);
  o.setUint16(10, numTables * 16 - power * 16);
  let offset = 12 + numTables * SFNT_ENTRY;
  tables.forEach((t, i) => {
    const at = 12 + i * SFNT_ENTRY;
    o.setUint32(at, t.tag);
    o.setUint32(at + 4, t.checksum);
    o.setUint32(at + 8, offset);
    o.setUint32(at + 12, t.data.length);
    out.set(t.data, offset);
    offset += (t.data.length + 3) & ~3;
  });
  return out;
}
