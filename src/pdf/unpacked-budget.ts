import { scanObjects, type ScannedStream, type ScanValue } from "./pdf-scan";

/**
 * decisions.md 14: an uploaded PDF may unpack to at most this much, all streams together, and hold at most this many
 * objects. pdf-lib unpacks object streams while it loads a document and holds everything in memory, so a small file
 * can exhaust the isolate; this is measured on the raw bytes before pdf-lib sees them.
 */
export const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;
export const MAX_OBJECTS = 100_000;

/**
 * The most bytes one input byte can become, for each filter pdf-lib decodes: a deflate match of 258 bytes costs at
 * least two bits; an LZW code of nine bits or more names at most 4,096 bytes; two run-length bytes repeat one at most
 * 128 times; ASCII85's `z` is four zero bytes; hexadecimal only shrinks.
 */
const MAX_GROWTH: Record<string, number> = {
  FlateDecode: 1032,
  LZWDecode: 4096,
  RunLengthDecode: 64,
  ASCII85Decode: 4,
  ASCIIHexDecode: 1,
};

/** The filters measured by running them; the others are counted at their largest growth. */
const DECODERS: Record<string, () => ReadableWritablePair<Uint8Array, Uint8Array>> = {
  FlateDecode: () => new DecompressionStream("deflate"),
  ASCII85Decode: ascii85Decoder,
  ASCIIHexDecode: asciiHexDecoder,
};

/** Input is handed to the decoders in pieces this small, so that no piece unpacks to more than a few MiB at once. */
const PIECE = 4096;

export async function exceedsUnpackedBudget(bytes: Uint8Array): Promise<boolean> {
  let objects = 0;
  let unpacked = 0;
  for (const streams of scanObjects(bytes)) {
    if (streams === null) return true;
    objects += 1;
    for (const stream of streams) {
      objects += packedObjects(stream.dict);
      if (objects > MAX_OBJECTS) return true;
      unpacked += await unpackedSize(stream, MAX_UNPACKED_BYTES - unpacked);
      if (unpacked > MAX_UNPACKED_BYTES) return true;
    }
    if (objects > MAX_OBJECTS) return true;
  }
  return false;
}

/** The objects an object stream holds. pdf-lib looks /Type up, so one given by reference may be /ObjStm too. */
function packedObjects(dict: ReadonlyMap<string, ScanValue>): number {
  const type = dict.get("Type");
  const count = dict.get("N");
  if ((type !== "ObjStm" && type !== null) || count === undefined) return 0;
  return typeof count === "number" ? Math.max(0, Math.ceil(count)) : Infinity;
}

/** The stream's filters in order; null when they are not all names (a reference, which only the full parse resolves). */
function filtersOf(value: ScanValue | undefined): string[] | null {
  if (value === undefined || typeof value === "number") return [];
  if (typeof value === "string") return [value];
  if (value === null || !value.every((f) => typeof f === "string")) return null;
  return value as string[];
}

/** The stream's size once decoded as pdf-lib would decode it, or any number above `allowance` once that is certain. */
async function unpackedSize({ dict, data }: ScannedStream, allowance: number): Promise<number> {
  const filters = filtersOf(dict.get("Filter"));
  if (filters === null) return Infinity;
  // pdf-lib decodes nothing of a stream with a filter it does not know (an image's DCTDecode, for one).
  if (!filters.every((f) => f in MAX_GROWTH)) return data.length;
  const measured = filters.findIndex((f) => !(f in DECODERS));
  const run = measured < 0 ? filters : filters.slice(0, measured);
  const growth = filters.slice(run.length).reduce((g, f) => g * MAX_GROWTH[f]!, 1);
  if (run.length === 0) return data.length * growth;
  if (run[0] === "FlateDecode" && !hasZlibHeader(data)) return data.length;
  let size = await decodedLength(data, run, allowance / growth);
  const trimmed = trimEnd(data);
  if (size === null && trimmed.length < data.length) size = await decodedLength(trimmed, run, allowance / growth);
  // Data the decoders refuse may still unpack in pdf-lib's more forgiving ones: count the most it could become.
  return size === null ? data.length * filters.reduce((g, f) => g * MAX_GROWTH[f]!, 1) : size * growth;
}

/** pdf-lib's check of a zlib header; without one it unpacks nothing. */
function hasZlibHeader(data: Uint8Array): boolean {
  const [cmf, flg] = data;
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;
}

/** Writers that count the line end before `endstream` in /Length leave it after the zlib data. */
function trimEnd(data: Uint8Array): Uint8Array {
  let end = data.length;
  while (end > 0 && (data[end - 1] === 0x0a || data[end - 1] === 0x0d)) end -= 1;
  return data.subarray(0, end);
}

/** The length of `data` through `filters`, counted and dropped piece by piece; null when a decoder fails. */
async function decodedLength(data: Uint8Array, filters: string[], limit: number): Promise<number | null> {
  let at = 0;
  let stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= data.length) return controller.close();
        controller.enqueue(data.subarray(at, (at += PIECE)));
      },
    },
    { highWaterMark: 0 },
  );
  for (const filter of filters) stream = stream.pipeThrough(DECODERS[filter]!());
  let length = 0;
  try {
    for await (const piece of stream) {
      length += piece.length;
      if (length > limit) break;
    }
    return length;
  } catch {
    return null;
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** pdf-lib's ASCII85 decoding: any other character counts as a digit, `z` only between groups, `~` ends. */
function ascii85Decoder(): TransformStream<Uint8Array, Uint8Array> {
  const group: number[] = [];
  let ended = false;
  const decode = (digits: number[]) => {
    const kept = digits.length - 1;
    let t = 0;
    for (let i = 0; i < 5; i += 1) t = t * 85 + ((digits[i] ?? 0x75) - 0x21);
    const out = new Uint8Array(4);
    for (let i = 3; i >= 0; i -= 1) {
      out[i] = t & 0xff;
      t >>= 8;
    }
    return out.subarray(0, kept);
  };
  return new TransformStream({
    transform(chunk, controller) {
      const out: number[] = [];
      for (const c of chunk) {
        if (ended || isSpace(c)) continue;
        if (c === 0x7e) {
          ended = true;
          if (group.length > 0) out.push(...decode(group.splice(0)));
        } else if (c === 0x7a && group.length === 0) {
          out.push(0, 0, 0, 0);
        } else {
          group.push(c);
          if (group.length === 5) out.push(...decode(group.splice(0)));
        }
      }
      controller.enqueue(Uint8Array.from(out));
    },
    flush(controller) {
      if (!ended && group.length > 0) controller.enqueue(decode(group.splice(0)));
    },
  });
}

/** pdf-lib's hexadecimal decoding: other characters are skipped, `>` ends (completing a last half byte). */
function asciiHexDecoder(): TransformStream<Uint8Array, Uint8Array> {
  let high = -1;
  let ended = false;
  return new TransformStream({
    transform(chunk, controller) {
      const out: number[] = [];
      for (const c of chunk) {
        if (ended) break;
        const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
        if (c === 0x3e) {
          ended = true;
          if (high >= 0) out.push(high << 4);
        } else if (digit >= 0 && high < 0) {
          high = digit;
        } else if (digit >= 0) {
          out.push((high << 4) | digit);
          high = -1;
        }
      }
      controller.enqueue(Uint8Array.from(out));
    },
  });
}
