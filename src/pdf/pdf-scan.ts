/**
 * What pdf-lib's parser would find in a PDF, found without parsing it into a document: every indirect object, and
 * every stream with the dictionary entries that decide how it is unpacked, its data delimited exactly as pdf-lib
 * delimits it. The scan errs towards finding more: it starts at every object header, also at one inside another
 * object's data, so that no object pdf-lib would read after recovering from broken syntax is missed.
 */

/** A dictionary value as far as the scan keeps it: a name (without `/`), a number, an array, or `null` for others. */
export type ScanValue = string | number | ScanValue[] | null;

export interface ScannedStream {
  /** Only the entries named in `STREAM_KEYS`; arrays only as their direct values. */
  dict: ReadonlyMap<string, ScanValue>;
  data: Uint8Array;
}

const STREAM_KEYS = new Set(["Filter", "Type", "N", "Length"]);

// pdf-lib's header: two integers and `obj`, with whitespace or comments between (none needed before `obj`). Digit
// runs and comments are matched atomically (a lookahead's capture, then a backreference to it), so that a long run
// of digits or percent signs cannot make the expression backtrack for ever.
const SPACE = (group: number) => `(?:[\\0\\t\\n\\f\\r ]|(?=(%[^\\r\\n]*))\\${group})`;
const OBJECT_HEADER = new RegExp(`(?<!\\d)(?=(\\d+))\\1${SPACE(2)}+(?=(\\d+))\\3${SPACE(4)}*obj`, "g");

/**
 * Objects overlap when a header lies inside another object (in a string, say), and each is read from its own header
 * on. Text built so that every object reads on to the end of the file would make that quadratic; past this many
 * characters read (outside stream data) per character of the file, the scan gives up.
 */
const MAX_READS_PER_CHARACTER = 8;

/**
 * The streams of each object, one entry per object header; `null` (and the end) when the text is built to make the
 * scan read it over and over.
 */
export function* scanObjects(bytes: Uint8Array): Generator<ScannedStream[] | null> {
  // latin1 keeps one character per byte, so positions in the text are positions in the bytes.
  const text = new TextDecoder("latin1").decode(bytes);
  const nesting = new KeywordNesting(text);
  let reads = 0;
  for (const header of text.matchAll(OBJECT_HEADER)) {
    const { found, read } = parseValue(text, header.index + header[0].length, nesting);
    reads += read;
    if (reads > MAX_READS_PER_CHARACTER * text.length) {
      yield null;
      return;
    }
    yield found.map(({ dict, start, end }) => ({ dict, data: bytes.subarray(start, end) }));
  }
}

interface Found {
  dict: Map<string, ScanValue>;
  start: number;
  end: number;
}

type Frame = { dict: Map<string, ScanValue>; key: string | null } | { items: ScanValue[] | null };

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number) => "()<>[]{}/%".includes(String.fromCharCode(c));
const isNumeric = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

function skipSpace(text: string, pos: number): number {
  for (;;) {
    while (pos < text.length && isWhite(text.charCodeAt(pos))) pos += 1;
    if (text.charCodeAt(pos) !== 0x25) return pos;
    while (pos < text.length && text[pos] !== "\n" && text[pos] !== "\r") pos += 1;
  }
}

/**
 * Reads the value starting at `pos` (without recursion, so deep nesting cannot exhaust the stack) and returns the
 * streams in it, and how many characters it read besides their data. Syntax pdf-lib refuses is read leniently where
 * that is simple; where pdf-lib gives up on the whole object (end of file, an unbalanced string), the scan stops too:
 * pdf-lib keeps nothing of such an object.
 */
function parseValue(text: string, pos: number, nesting: KeywordNesting): { found: Found[]; read: number } {
  const found: Found[] = [];
  const stack: Frame[] = [];
  const from = pos;
  let skipped = 0;
  const done = (at: number) => ({ found, read: at - from - skipped });
  // Hands a finished value to its container; true when it was the object's own value.
  const deliver = (value: ScanValue): boolean => {
    const top = stack.at(-1);
    if (!top) return true;
    if ("dict" in top) {
      if (top.key !== null && STREAM_KEYS.has(top.key)) top.dict.set(top.key, value);
      top.key = null;
    } else {
      top.items?.push(value);
    }
    return false;
  };
  for (;;) {
    pos = skipSpace(text, pos);
    if (pos >= text.length) return done(pos);
    const c = text.charCodeAt(pos);
    const top = stack.at(-1);
    let value: ScanValue;
    if (text.startsWith("<<", pos)) {
      stack.push({ dict: new Map(), key: null });
      pos += 2;
      continue;
    } else if (text.startsWith(">>", pos) && top && "dict" in top) {
      stack.pop();
      pos += 2;
      const stream = streamAfter(text, pos, top.dict, nesting);
      if (stream === "unbalanced") return done(pos);
      if (stream) {
        found.push({ dict: top.dict, start: stream.start, end: stream.end });
        skipped += stream.end - stream.start;
        pos = stream.after;
      }
      value = null;
    } else if (c === 0x5b /* [ */) {
      const kept = top && "dict" in top && top.key !== null && STREAM_KEYS.has(top.key);
      stack.push({ items: kept ? [] : null });
      pos += 1;
      continue;
    } else if (c === 0x5d /* ] */ && top && "items" in top) {
      stack.pop();
      pos += 1;
      value = top.items;
    } else if (c === 0x2f /* / */) {
      let end = pos + 1;
      while (end < text.length && !isWhite(text.charCodeAt(end)) && !isDelimiter(text.charCodeAt(end))) end += 1;
      const name = text.slice(pos + 1, end).replace(/#([\dABCDEF]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
      pos = end;
      if (top && "dict" in top && top.key === null) {
        top.key = name;
        continue;
      }
      value = name;
    } else if (c === 0x28 /* ( */) {
      pos = stringEnd(text, pos);
      if (pos < 0) return done(text.length);
      value = null;
    } else if (c === 0x3c /* < */) {
      pos = text.indexOf(">", pos);
      if (pos < 0) return done(text.length);
      pos += 1;
      value = null;
    } else if (isNumeric(c)) {
      const number = numberAt(text, pos);
      if (!number) return done(pos);
      pos = number.end;
      value = number.value;
      const ref = refAfter(text, pos);
      if (ref !== null) {
        pos = ref;
        value = null;
      }
    } else {
      const keyword = ["true", "false", "null"].find((k) => text.startsWith(k, pos));
      if (!keyword) return done(pos);
      pos += keyword.length;
      value = null;
    }
    if (deliver(value)) return done(pos);
  }
}

/** pdf-lib's string: parentheses balance unless escaped; -1 when the text ends first. */
function stringEnd(text: string, pos: number): number {
  let depth = 0;
  let escaped = false;
  for (; pos < text.length; pos += 1) {
    const ch = text[pos];
    if (!escaped && ch === "(") depth += 1;
    if (!escaped && ch === ")") depth -= 1;
    escaped = ch === "\\" ? !escaped : false;
    if (depth === 0) return pos + 1;
  }
  return -1;
}

/** pdf-lib's number: sign, digits and a point, then digits. */
function numberAt(text: string, pos: number): { value: number; end: number } | null {
  const m = /[+\-\d]*\.?\d*/y;
  m.lastIndex = pos;
  const token = m.exec(text)?.[0] ?? "";
  const value = Number(token);
  return token && Number.isFinite(value) ? { value, end: pos + token.length } : null;
}

/** The position after `G R` when the number just read is an object number, else null. */
function refAfter(text: string, pos: number): number | null {
  const at = skipSpace(text, pos);
  if (!isDigit(text.charCodeAt(at))) return null;
  const generation = numberAt(text, at);
  if (!generation) return null;
  const r = skipSpace(text, generation.end);
  return text[r] === "R" ? r + 1 : null;
}

// pdf-lib accepts these line ends after `stream`, tried in this order, and also none.
const STREAM_EOLS = [" \r\n", "\r\n", "\r", "\n"];

/** The data after a dictionary ending before `pos`, when a stream follows, as pdf-lib delimits it. */
function streamAfter(
  text: string,
  pos: number,
  dict: Map<string, ScanValue>,
  nesting: KeywordNesting,
): { start: number; end: number; after: number } | "unbalanced" | null {
  const keyword = skipSpace(text, pos);
  if (!text.startsWith("stream", keyword)) return null;
  const eol = STREAM_EOLS.find((e) => text.startsWith(e, keyword + 6)) ?? "";
  const start = keyword + 6 + eol.length;
  const length = dict.get("Length");
  if (typeof length === "number" && Number.isInteger(length)) {
    const end = start + length;
    const close = skipSpace(text, end);
    if (end >= 0 && text.startsWith("endstream", close)) return { start, end: Math.max(start, end), after: close + 9 };
  }
  return nesting.end(start) ?? "unbalanced";
}

/**
 * pdf-lib's fallback when /Length does not lead to `endstream`: from the data on, every `stream` opens and every
 * `endstream` closes, and the data ends where they balance. Worked out once for the whole text, so that many
 * streams without an end cost no more than one.
 */
class KeywordNesting {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** below[k]: the first k' > k with fewer open after k' keywords than after k; a scan from keyword k closes at k' - 1. */
  private readonly below: Int32Array;

  constructor(text: string) {
    const depth = [0];
    for (const m of text.matchAll(/stream|\r\nendstream|\rendstream|\nendstream|endstream/g)) {
      this.starts.push(m.index);
      this.ends.push(m.index + m[0].length);
      depth.push(depth.at(-1)! + (m[0] === "stream" ? 1 : -1));
    }
    this.below = new Int32Array(depth.length).fill(-1);
    const open: number[] = [];
    for (let k = depth.length - 1; k >= 0; k -= 1) {
      while (open.length > 0 && depth[open.at(-1)!]! >= depth[k]!) open.pop();
      if (open.length > 0) this.below[k] = open.at(-1)!;
      open.push(k);
    }
  }

  end(start: number): { start: number; end: number; after: number } | null {
    // The first keyword that ends after `start` (an end-of-line before `endstream` may begin before it).
    let low = 0;
    let high = this.ends.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.ends[mid]! > start) high = mid;
      else low = mid + 1;
    }
    const next = this.below[low]!;
    if (next < 0) return null;
    const closing = next - 1;
    return { start, end: Math.max(start, this.starts[closing]!), after: this.ends[closing]! };
  }
}
