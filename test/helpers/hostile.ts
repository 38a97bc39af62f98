import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { expect } from "vitest";
import { ADMIN, API_KEY, ORIGIN, basic } from "./api";

/**
 * Hostile input (decisions.md 3: bad input gets a 4xx in the error shape, never a 500): generators of requests that
 * are invalid by construction, the checks every answer to them must pass, and fingerprints of the storage they must
 * leave alone.
 *
 * Generators yield small descriptors (what to send), never the bytes themselves, so that fast-check prints a
 * counterexample that can be read; `materialise` turns a descriptor into a `Request`.
 */

// ---------------------------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------------------------

export interface Route {
  method: string;
  /** Hono's pattern, e.g. `/ticketing/v1/admin/events/:id/ticket-types/:typeId`. */
  path: string;
  /** Path parameter names in order. */
  params: string[];
  /** What the OpenAPI document says the route takes as body (content types), empty when none. */
  bodyTypes: string[];
  /** JSON body schema (top level), when there is one. */
  jsonSchema?: JsonSchema;
  /** Form body schema (top level), when there is one. */
  formSchema?: JsonSchema;
  /** Known query parameter names. */
  query: string[];
}

export interface JsonSchema {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
}

export const key = (r: Pick<Route, "method" | "path">) => `${r.method} ${r.path}`;

/** Routes as the OpenAPI document describes them (paths `{x}` turned back into Hono's `:x`). */
export function routesFromDocument(doc: any): Route[] {
  const out: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters ?? []) as { in: string; name: string }[];
      const content = (op.requestBody?.content ?? {}) as Record<string, { schema: JsonSchema }>;
      out.push({
        method: method.toUpperCase(),
        path: path.replace(/\{([^}]+)\}/g, ":$1"),
        params: params.filter((p) => p.in === "path").map((p) => p.name),
        bodyTypes: Object.keys(content),
        jsonSchema: content["application/json"]?.schema,
        formSchema: content["multipart/form-data"]?.schema,
        query: params.filter((p) => p.in === "query").map((p) => p.name),
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Storage fingerprints: bad input must change nothing
// ---------------------------------------------------------------------------------------------------------------

export type Fingerprint = Record<string, string>;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const bytesAsHex = (_key: string, value: unknown) =>
  value instanceof ArrayBuffer ? [...new Uint8Array(value)].map((b) => b.toString(16).padStart(2, "0")).join("") : value;

/**
 * Every D1 table (its row count and a hash of all its rows) and every R2 object (key, etag, size). Durable Object
 * storage is not included: no request here reaches an event object with something it could write (scan bodies and
 * order bodies are refused before).
 */
/**
 * Columns a valid request may change as a matter of course: a sign-in records when its application password was
 * last used (at most once a minute), whatever the rest of the request was.
 */
const IN_USE: Record<string, string[]> = { application_passwords: ["last_used_at"] };

export async function fingerprint(): Promise<Fingerprint> {
  const out: Fingerprint = {};
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' AND substr(name, 1, 4) <> '_cf_' ORDER BY name",
  ).all<{ name: string }>();
  for (const { name } of results) {
    const all = await env.DB.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}" ORDER BY rowid`)
      .all<Record<string, unknown>>()
      .catch(() => env.DB.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all<Record<string, unknown>>()); // WITHOUT ROWID tables
    const skipped = IN_USE[name] ?? [];
    const rows = all.results.map((row) => Object.entries(row).filter(([column]) => !skipped.includes(column)));
    out[`d1:${name}`] = `${rows.length} rows ${await sha256(JSON.stringify(rows, bytesAsHex))}`;
  }
  const objects: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ cursor, limit: 1000 });
    for (const o of page.objects) objects.push(`${o.key} ${o.etag} ${o.size}`);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  objects.sort();
  out["r2:FILES"] = `${objects.length} objects ${await sha256(objects.join("\n"))}`;
  return out;
}

export function changedParts(before: Fingerprint, after: Fingerprint): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).map((n) => `${n}: ${before[n] ?? "(absent)"} -> ${after[n] ?? "(absent)"}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The fingerprint once storage has been quiet for `quietMs`: deferred work (webhook fan-out, event object
 * pushes) and queue consumers started by earlier requests, this file's set-up or other test files, finish first.
 */
export async function settledFingerprint(quietMs = 600, maxMs = 20_000): Promise<Fingerprint> {
  const started = Date.now();
  let previous = await fingerprint();
  let quietSince = Date.now();
  while (Date.now() - started < maxMs) {
    await sleep(200);
    const current = await fingerprint();
    if (changedParts(previous, current).length > 0) {
      previous = current;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) {
      return current;
    }
  }
  return previous;
}

// ---------------------------------------------------------------------------------------------------------------
// Answers: never a 5xx, errors in the envelope
// ---------------------------------------------------------------------------------------------------------------

export interface Sent {
  method: string;
  url: string;
  /** A short description of the descriptor, for failure messages. */
  what: string;
  /** Invalid by construction: a 2xx or 3xx answer is itself a failure (bad input was accepted). */
  mustFail: boolean;
}

/** Sends `request` through the Worker's own fetch handler; a rejection is what a client would see as a 500. */
export async function send(request: Request): Promise<Response> {
  try {
    return await exports.default.fetch(request);
  } catch (err) {
    return new Response(`the Worker threw: ${String(err)}`, { status: 599 });
  }
}

function describeSent(sent: Sent, res: Response, text: string): string {
  const url = sent.url.length > 300 ? `${sent.url.slice(0, 300)}...(${sent.url.length} chars)` : sent.url;
  return `${sent.method} ${url}\n  sent: ${sent.what}\n  answer: ${res.status} ${res.headers.get("Content-Type")} ${text.slice(0, 400)}`;
}

/** A shop page or its form's post (`/shop/<event_id>`, not its assets) answering as a page. */
function isBoxOfficePage(url: string, res: Response): boolean {
  const path = new URL(url).pathname;
  return /^\/ticketing\/v1\/shop\/(?!assets\/)/.test(path) && /^text\/html/i.test(res.headers.get("Content-Type") ?? "");
}

/** The checks every answer to hostile input must pass (decisions.md 3) on one answer. Returns the answer's status. */
export async function checkAnswer(sent: Sent, res: Response): Promise<number> {
  // Decoded by hand: Response.text() warns about PDF answers (a template's file read with a real id).
  const text = sent.method === "HEAD" ? "" : new TextDecoder().decode(await res.arrayBuffer());
  const where = describeSent(sent, res, text);
  expect(res.status, `5xx for hostile input:\n${where}`).toBeLessThan(500);
  const requestId = res.headers.get("X-Request-Id");
  expect(requestId ?? "", `X-Request-Id is not a safe token:\n${where}`).toMatch(/^[\w.:-]{1,128}$/);
  if (res.status >= 400) {
    if (sent.method === "HEAD") return res.status;
    if (isBoxOfficePage(sent.url, res)) {
      // The box office's pages answer a person, not a client: an error is a page in the page's language (decisions.md 15).
      expect(text.slice(0, 15).toLowerCase(), `error page not HTML:\n${where}`).toBe("<!doctype html>");
      return res.status;
    }
    expect(res.headers.get("Content-Type") ?? "", `error not JSON:\n${where}`).toMatch(/^application\/json/i);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      expect.fail(`error body is not JSON:\n${where}`);
    }
    expect(body !== null && typeof body === "object" && !Array.isArray(body), `error body not an object:\n${where}`).toBe(true);
    expect(Object.keys(body).sort(), `error envelope keys:\n${where}`).toEqual(["code", "data", "message"]);
    expect(typeof body.code === "string" && body.code.length > 0, `envelope code:\n${where}`).toBe(true);
    expect(typeof body.message === "string" && body.message.length > 0, `envelope message:\n${where}`).toBe(true);
    expect(body.data !== null && typeof body.data === "object", `envelope data:\n${where}`).toBe(true);
    expect(body.data.status, `data.status differs from the HTTP status:\n${where}`).toBe(res.status);
    const extra = Object.keys(body.data).filter((k) => k !== "status" && k !== "params");
    expect(extra, `unexpected data fields:\n${where}`).toEqual([]);
    if (body.data.params !== undefined) {
      expect(typeof body.data.params === "object" && body.data.params !== null, `data.params:\n${where}`).toBe(true);
      for (const v of Object.values(body.data.params)) expect(typeof v, `data.params values are strings:\n${where}`).toBe("string");
    }
  } else if (sent.mustFail) {
    const preflight = sent.method === "OPTIONS" && res.status === 204;
    expect(preflight, `invalid input was accepted:\n${where}`).toBe(true);
  }
  return res.status;
}

// ---------------------------------------------------------------------------------------------------------------
// Credentials and client addresses
// ---------------------------------------------------------------------------------------------------------------

let addressSequence = 0;

/**
 * A client address of its own for each request (TEST-NET / benchmarking ranges), so that rate limits counted per
 * address (failed logins, customer orders) never spill from these requests into other tests.
 */
export function freshAddress(): string {
  addressSequence += 1;
  return `198.18.${(addressSequence >> 8) & 255}.${addressSequence & 255}`;
}

export const adminHeaders = (): Record<string, string> => ({
  "X-EVT-API-KEY": API_KEY,
  Authorization: basic(ADMIN),
  "CF-Connecting-IP": freshAddress(),
});

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const utf8 = (s: string) => new TextEncoder().encode(s);

/** `Authorization` values that authenticate nobody. Wrong passwords only for users no other test signs in as. */
export function badAuthorization(knownUsername: string): fc.Arbitrary<string | null> {
  const token = fc.string({ unit: "binary-ascii", minLength: 0, maxLength: 40 });
  return fc.oneof(
    fc.constant(null),
    fc.constantFrom("", "Basic", "Basic ", "Basic ====", "Basic !!!!", "Bearer abc.def.ghi", 'Digest username="admin"', "Basic\tYWRtaW4="),
    fc.constant(`Basic ${b64(utf8("no-colon-here"))}`),
    fc.constant(`Basic ${b64(utf8(`:${ADMIN.password}`))}`),
    fc.constant(`Basic ${b64(utf8("admin:"))}`),
    fc.constant(`Basic ${b64(new Uint8Array([0x61, 0x3a, 0xff, 0xfe, 0xc0, 0x80]))}`),
    fc.constant(`Basic ${"A".repeat(12_000)}`),
    fc.constant(`Basic ${b64(utf8(`${knownUsername}:wrong-password`))}`),
    fc.tuple(token, token).map(([u, p]) => `Basic ${b64(utf8(`hostile-${u}:${p}x`))}`),
    fc.string({ unit: "binary-ascii", maxLength: 60 }).map((s) => `Basic ${s.replace(/[\r\n\0]/g, "")}`),
  );
}

/** `X-EVT-API-KEY` values that are not the service key (nor any scan key or ordering key). */
export const badApiKey: fc.Arbitrary<string | null> = fc.oneof(
  fc.constant(null),
  fc.constantFrom("", "test-api-ke", "test-api-keyy", "TEST-API-KEY", "test api key", `${API_KEY},${API_KEY}`, "x".repeat(10_000), "AAAAAAAAAAAAAAAA", "\xe9\xe8"),
  fc.string({ unit: "binary-ascii", maxLength: 64 }).map((s) => `hk-${s.replace(/[\r\n\0]/g, "")}`),
);

/** `Idempotency-Key` values the service must refuse (1-255 visible ASCII characters are valid). */
export const badIdempotencyKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", " ", "a b", "tab\there", "\xe9t\xe9", "k".repeat(256), "k".repeat(5000)),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 30 }).map((s) => `${s} ${s}`),
);

// ---------------------------------------------------------------------------------------------------------------
// Strings with edges
// ---------------------------------------------------------------------------------------------------------------

// biome-ignore format: a table, kept packed by hand
export const EDGE_STRINGS = [
  "0", "-1", "+1", "01", "007", "1.0", "1e3", "0x1f", " 1", "1 ", "1\t", "１", "١٢", "⁹", "Ⅻ",
  "9007199254740991", "9007199254740992", "9007199254740993", "9999999999999999", "99999999999999999999999",
  "-9223372036854775808", "18446744073709551616", "Infinity", "-Infinity", "NaN", "null", "undefined", "true",
  "[]", "{}", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty",
  "..", ".", "...", "../..", "..%2F..%2Fadmin%2Fusers", "%2e%2e%2f%2e%2e%2fadmin", "..\\..\\windows\\win.ini",
  "%2e%2e", "%252e%252e%252f", "/etc/passwd", "....//....//", "%c0%ae%c0%ae/", "..;/", ";a=b", "a?b=c", "a#b",
  "%00", "\u0000", "%", "%zz", "%ff", "%ed%a0%80", "%c0%80", "%u0041",
  "\u202e", "\u200b", "\ufeff", "\ud800", "\udfff", "\udc00\ud800", "😀", "👩‍👩‍👧‍👦", "e\u0301", "\u0130", "ß", "ﬀ", "Ω",
  "\uffff", "\u{10ffff}", "𝟙𝟚𝟛", "\u0085", "\u2028", "\u00a0",
  "' OR '1'='1", "1; DROP TABLE events; --", "1 UNION SELECT * FROM users", "<script>alert(1)</script>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  "${7*7}", "{{7*7}}", "%0d%0aSet-Cookie:%20x=1", "\r\nX-Injected: 1", "a".repeat(101), "1".repeat(101), "x".repeat(5000),
];

// biome-ignore format: a table, kept packed by hand
const weirdChar = fc.constantFrom(
  "\u0000", "\u0001", "\u001f", "\u007f", "\u0080", "\u00ad", "\u200b", "\u200d", "\u202e", "\u2028", "\ufeff", "\ufffd",
  "\uffff", "\ud800", "\udbff", "\udc00", "\udfff", "😀", "\u0301", "İ", "ı", "ẞ", "%", "/", "\\", "?", "#", "&", "=", "+", ".",
  " ", "\t", "\n", "\r", '"', "'", "<", ">", "`", "{", "}", "[", "]", ",", ";", ":", "@", "|", "~", "^", "*", "\u0660", "１",
);

/** Short strings that are mostly edges: unicode oddities, lone surrogates, control characters, URL syntax. */
export const edgeString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...EDGE_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: weirdChar, minLength: 1, maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 24 }), weight: 2 },
  { arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String), weight: 1 },
  { arbitrary: fc.double().map(String), weight: 1 },
);

// ---------------------------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------------------------

/** `encodeURIComponent`, but lone surrogates become bytes that are not UTF-8 instead of throwing. */
export function percentEncode(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += cp >= 0xd800 && cp <= 0xdfff ? "%ED%A0%80" : encodeURIComponent(ch);
  }
  return out.replace(/\./g, "%2E");
}

export type Segment = { text: string; raw: boolean };

/** A path segment that names nothing: sent raw (when that keeps the route's shape) or percent-encoded. */
export const hostileSegment: fc.Arbitrary<Segment> = fc.record({ text: edgeString, raw: fc.boolean() });

/**
 * The path of `route` with each parameter replaced. Raw segments that would change the path's shape (a `/`, a
 * `?`, a dot segment the URL parser resolves) fall back to percent-encoding, so the request still targets `route`
 * and never, by normalisation, another one (`/admin/events/../users/1`).
 */
export function buildPath(route: Route, values: Record<string, Segment | string>): string {
  const template = route.path.split("/");
  const encoded = (seg: Segment | string, raw: boolean): string => {
    if (typeof seg === "string") return seg;
    // The URL parser drops tabs and newlines anywhere in a URL: sent raw, "1\t" would be the id 1.
    let s = raw && !/[\t\n\r]/.test(seg.text) ? seg.text : percentEncode(seg.text);
    if (s === "") s = "%20";
    if (/^(\.|%2e){1,2}$/i.test(s)) s = "%2E%2E%2F";
    // A hostile id must never name a row: what reads as a positive integer (after decoding) gets a leading zero.
    if (/^[1-9]\d{0,15}$/.test(decoded(s))) s = `0${s}`;
    return s;
  };
  const assemble = (raw: boolean) => template.map((part) => (part.startsWith(":") ? encoded(values[part.slice(1)]!, raw) : part)).join("/");
  const candidate = assemble(true);
  if (keepsShape(candidate, template)) return candidate;
  return assemble(false);
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function keepsShape(path: string, template: string[]): boolean {
  let url: URL;
  try {
    url = new URL(`${ORIGIN}${path}`);
  } catch {
    return false;
  }
  if (url.search !== "" || url.hash !== "" || path.includes("?") || path.includes("#")) return false;
  const parts = url.pathname.split("/");
  if (parts.length !== template.length) return false;
  return template.every((t, i) => (t.startsWith(":") ? parts[i] !== "" && !/^[1-9]\d{0,15}$/.test(decoded(parts[i]!)) : parts[i] === t));
}

// ---------------------------------------------------------------------------------------------------------------
// Query strings
// ---------------------------------------------------------------------------------------------------------------

export type QueryPart = { name: string; value: string; raw: boolean };

const queryName = (known: string[]) =>
  fc.oneof(
    ...(known.length > 0 ? [{ arbitrary: fc.constantFrom(...known), weight: 4 }] : []),
    {
      arbitrary: fc.constantFrom("_fields", "_embed", "_envelope", "_method", "page", "per_page", "offset", "orderby", "order", "search", "force", "since", "event_id"),
      weight: 3,
    },
    { arbitrary: edgeString, weight: 1 },
  );

const queryValue = fc.oneof(
  { arbitrary: edgeString, weight: 4 },
  { arbitrary: fc.constantFrom("-1", "0", "1000000", "1.5", "asc,desc", "ASC", "id,id", "1,,2", ",", "a.b.c", "_links,_embedded", "1".repeat(400)), weight: 2 },
  { arbitrary: fc.nat({ max: 200_000 }).map((n) => "q".repeat(n)), weight: 1 },
);

export function hostileQuery(known: string[]): fc.Arbitrary<QueryPart[]> {
  return fc.array(fc.record({ name: queryName(known), value: queryValue, raw: fc.boolean() }), { minLength: 1, maxLength: 5 });
}

export function buildQuery(parts: QueryPart[]): string {
  if (parts.length === 0) return "";
  const enc = (s: string, raw: boolean) => (raw ? s.replace(/#/g, "%23") : percentEncode(s));
  return `?${parts.map((p) => `${enc(p.name, p.raw)}=${enc(p.value, p.raw)}`).join("&")}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------------------

/** A body descriptor. Every kind is invalid for every route that takes JSON, whatever its schema. */
export type JsonBody =
  | { kind: "malformed"; text: string }
  | { kind: "deep"; depth: number; shape: "array" | "object" | "field" }
  | { kind: "not-an-object"; json: string }
  | { kind: "unknown-field"; fields: [string, unknown][]; unknown: string }
  | { kind: "missing-required"; fields: [string, unknown][] }
  | { kind: "oversized"; bytes: number; streamed: boolean }
  | { kind: "wrong-type"; contentType: string; text: string }
  | { kind: "empty-json" }
  | { kind: "bad-utf8" }
  | { kind: "duplicate-keys"; field: string }
  | { kind: "odd-number"; field: string; number: string }
  | { kind: "many-keys"; count: number };

const RESERVED_KEYS = new Set(["_links"]);

/** A JSON value that is odd: unicode, huge numbers, nesting, prototype names. */
const oddJson: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
  { arbitrary: edgeString, weight: 3 },
  { arbitrary: fc.constantFrom(1e308, -1e308, 5e-324, 2 ** 53 + 2, -0, 0.30000000000000004, 12.345, -1, 0), weight: 2 },
  { arbitrary: fc.constantFrom<unknown>({ __proto__: null, constructor: 1 }, [[[[]]]], { "": "" }, { _links: {} }), weight: 1 },
);

function isJson(text: string): boolean {
  try {
    // What the service reads: the UTF-8 decoder drops a leading byte order mark.
    JSON.parse(text.replace(/^\ufeff/, ""));
    return true;
  } catch {
    return false;
  }
}

export function jsonBody(route: Route): fc.Arbitrary<JsonBody> {
  const props = Object.keys(route.jsonSchema?.properties ?? {});
  const required = route.jsonSchema?.required ?? [];
  const strict = route.jsonSchema?.additionalProperties === false;
  const known = props.length > 0 ? fc.constantFrom(...props) : fc.constant("name");
  const someFields = fc.array(fc.tuple(known, oddJson), { maxLength: 4 });
  // Never a read-only field's name (an update sets those aside and compares them): odd names, or "x_" and an edge.
  const unknownName = fc
    .oneof(
      fc.constantFrom("x_hostile", "__proto__", "constructor", "ID", "Event_Name", "event_name ", "\u0000", "😀", ""),
      edgeString.map((e) => `x_${e}`),
    )
    .filter((n) => !props.includes(n) && !RESERVED_KEYS.has(n));
  const kinds: fc.Arbitrary<JsonBody>[] = [
    fc
      .oneof(
        fc.constantFrom(
          "{",
          "}",
          "{'a':1}",
          '{"a":1,}',
          "[1,]",
          "NaN",
          '{"a":1}{}',
          '{"a" 1}',
          "undefined",
          "\ufeff\ufeff{}",
          '{"a":"\\ud800\\"}',
          "tru",
          '{"a":01}',
          "\u0000",
        ),
        fc.string({ unit: "binary", maxLength: 60 }).map((s) => `{${s}`),
        fc.string({ unit: "binary", maxLength: 60 }).map((s) => `${s}}`),
      )
      .filter((t) => !isJson(t))
      .map((text) => ({ kind: "malformed" as const, text })),
    fc
      .record({ depth: fc.constantFrom(1_000, 10_000, 100_000), shape: fc.constantFrom("array" as const, "object" as const, "field" as const) })
      .map((d) => ({ kind: "deep" as const, ...d })),
    fc
      .oneof(fc.array(oddJson, { maxLength: 3 }), fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
      .map((v) => ({ kind: "not-an-object" as const, json: JSON.stringify(v) })),
    fc
      .record({ bytes: fc.constantFrom(1024 * 1024 + 1, 1024 * 1024 + 4096, 3 * 1024 * 1024), streamed: fc.boolean() })
      .map((d) => ({ kind: "oversized" as const, ...d })),
    fc
      .record({
        contentType: fc.constantFrom(
          "text/plain",
          "application/xml",
          "text/json",
          "application/javascript",
          "application/x-www-form-urlencoded",
          "application/octet-stream",
          "json",
          "*/*",
          "application/jsonx",
          "application/ json",
          "application/json-seq",
        ),
        text: fc.constantFrom('{"x_hostile":1}', "x_hostile=1", "<a/>", "garbage"),
      })
      .map((d) => ({ kind: "wrong-type" as const, ...d })),
    fc.constant({ kind: "empty-json" as const }),
    fc.constant({ kind: "bad-utf8" as const }),
    known.map((field) => ({ kind: "duplicate-keys" as const, field })),
    fc
      .record({ field: known, number: fc.constantFrom("1e400", "-1e400", "1e-400", "123456789012345678901234567890", "-0.0", "0.1e1", "1E2", "-9007199254740993") })
      .map((d) => ({ kind: "odd-number" as const, ...d })),
    fc.constantFrom(1_000, 50_000).map((count) => ({ kind: "many-keys" as const, count })),
  ];
  // An unknown field fails a strict object schema (all of the service's are); prove it from the document.
  if (strict) kinds.push(fc.record({ fields: someFields, unknown: unknownName }).map((d) => ({ kind: "unknown-field" as const, ...d })));
  // Leaving out a required field fails whatever the other fields are.
  const optional = props.filter((p) => !required.includes(p));
  if (required.length > 0) {
    const fields = optional.length > 0 ? fc.array(fc.tuple(fc.constantFrom(...optional), oddJson), { maxLength: 3 }) : fc.constant<[string, unknown][]>([]);
    kinds.push(fields.map((f) => ({ kind: "missing-required" as const, fields: f })));
  }
  return fc.oneof(...kinds);
}

export interface MaterialBody {
  body: BodyInit | null;
  headers: Record<string, string>;
}

const deepCache = new Map<string, string>();

function deepText(depth: number, shape: "array" | "object" | "field", firstField: string): string {
  const cacheKey = `${depth} ${shape} ${firstField}`;
  let text = deepCache.get(cacheKey);
  if (text === undefined) {
    if (shape === "array") text = "[".repeat(depth) + "]".repeat(depth);
    else if (shape === "object") text = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    // A known field holding the nesting, beside an unknown one (so the body is invalid even if deep values were
    // allowed).
    else text = `{"x_hostile":1,${JSON.stringify(firstField)}:${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
    deepCache.set(cacheKey, text);
  }
  return text;
}

/** Objects as JSON text, keeping `__proto__` as an ordinary key (as a client would send it). */
function objectText(entries: [string, unknown][]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`;
}

export function materialiseJson(route: Route, b: JsonBody): MaterialBody {
  const json = { "Content-Type": "application/json" };
  const firstField = Object.keys(route.jsonSchema?.properties ?? {})[0] ?? "name";
  switch (b.kind) {
    case "malformed":
      return { body: b.text, headers: json };
    case "deep":
      return { body: deepText(b.depth, b.shape, firstField), headers: json };
    case "not-an-object":
      return { body: b.json, headers: json };
    case "unknown-field":
      return { body: objectText([...b.fields, [b.unknown, 1]]), headers: json };
    case "missing-required":
      return { body: objectText(b.fields), headers: json };
    case "oversized": {
      const text = `{"x_hostile":"${"x".repeat(b.bytes)}"}`;
      return { body: b.streamed ? new Blob([text]).stream() : text, headers: json };
    }
    case "wrong-type":
      return { body: b.text, headers: { "Content-Type": b.contentType } };
    case "empty-json":
      return { body: "", headers: json };
    case "bad-utf8":
      return { body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), headers: json }; // {"\xff\xfe":1}
    case "duplicate-keys":
      return { body: `{${JSON.stringify(b.field)}:1,${JSON.stringify(b.field)}:"x","x_hostile":2}`, headers: json };
    case "odd-number":
      // The known field is parsed (and transformed) beside the unknown one that makes the body invalid.
      return { body: `{${JSON.stringify(b.field)}:${b.number},"x_hostile":${b.number}}`, headers: json };
    case "many-keys": {
      const parts: string[] = [];
      for (let i = 0; i < b.count; i += 1) parts.push(`"x${i}":${i}`);
      return { body: `{${parts.join(",")}}`, headers: json };
    }
  }
}

/** What a body descriptor looks like in a failure message. */
export function describeBody(b: unknown): string {
  const text = JSON.stringify(b) ?? String(b);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

// ---------------------------------------------------------------------------------------------------------------
// Uploads (multipart and form posts)
// ---------------------------------------------------------------------------------------------------------------

/** Files no route may accept: `pdf:*` are prepared once (and checked to be refused), the rest are generated. */
export type FileBody =
  | { kind: "garbage"; bytes: Uint8Array }
  | { kind: "pdf-header-garbage"; bytes: Uint8Array }
  | { kind: "prepared"; name: string }
  | { kind: "csv"; text: string }
  | { kind: "csv-bytes"; bytes: Uint8Array }
  | { kind: "csv-big"; lines: number };

export type FormPart = { name: string; text: string } | { name: string; file: FileBody; filename: string; type: string };

export type FormBody =
  | { kind: "multipart"; parts: FormPart[] }
  | { kind: "multipart-streamed"; parts: FormPart[] }
  | { kind: "urlencoded"; text: string }
  | { kind: "raw-multipart"; contentType: string; text: string }
  | { kind: "many-parts"; count: number }
  | { kind: "json-instead"; text: string };

/** Large prepared files, built once: `oversized` is over the 10 MiB upload limit. */
export const prepared = new Map<string, Uint8Array>();

const noAt = (bytes: Uint8Array) => bytes.map((b) => (b === 0x40 ? 0x23 : b));

/** A CSV that can hold no address: it has no `@` at all (every email list row needs one). */
export const badCsv: fc.Arbitrary<FileBody> = fc.oneof(
  fc
    .oneof(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.constantFrom(
        "",
        "\ufeff",
        "name,email\n",
        '"unterminated,quote\n',
        'a,"b""\n',
        "a,b,c,d,e\n",
        "\u0000,\u0000\n",
        "a;b;c\r\nd;e;f",
        "=cmd|' /C calc'!A0,x\n",
        "a,b\n".repeat(1000),
      ),
      fc
        .array(
          fc.array(edgeString, { maxLength: 5 }).map((cells) => cells.join(",")),
          { maxLength: 20 },
        )
        .map((rows) => rows.join("\n")),
    )
    .map((text) => ({ kind: "csv" as const, text: text.replace(/@/g, "#").replace(/\uff20/g, "#") })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: "csv-bytes" as const, bytes: noAt(bytes) })),
  fc.constantFrom(20_000, 200_000).map((lines) => ({ kind: "csv-big" as const, lines })),
  fc.constant({ kind: "prepared" as const, name: "oversized" }),
);

/** A file that is not a one-page, unencrypted PDF (what a template must be). */
export const badPdf: fc.Arbitrary<FileBody> = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => ({ kind: "garbage" as const, bytes })),
  fc.uint8Array({ maxLength: 400 }).map((bytes) => ({ kind: "pdf-header-garbage" as const, bytes })),
  fc.constantFrom("zero-pages", "two-pages", "encrypted", "truncated", "header-only", "big-garbage", "oversized").map((name) => ({ kind: "prepared" as const, name })),
);

const fileName = fc.oneof(fc.constantFrom("upload.pdf", "list.csv", "../../etc/passwd", "a\u0000b.pdf", "😀.pdf", "", "x".repeat(2000)), edgeString);
const fileType = fc.constantFrom("application/pdf", "text/csv", "application/octet-stream", "text/html", "", "image/png");

export function filePart(file: fc.Arbitrary<FileBody>): fc.Arbitrary<FormPart> {
  return fc.record({ name: fc.constant("file"), file, filename: fileName, type: fileType });
}

/** Other parts: the route's own field names or unknown ones, with edge values. */
export function textParts(known: string[]): fc.Arbitrary<FormPart[]> {
  const name = fc.oneof(...(known.length > 0 ? [fc.constantFrom(...known)] : []), fc.constantFrom("x_hostile", "__proto__", "file"), edgeString);
  return fc.array(fc.record({ name, text: fc.oneof(edgeString, fc.constantFrom("ticket", "invoice", "pay", "cancel", "1", "", " ", "t".repeat(201))) }), {
    maxLength: 3,
  });
}

/**
 * Form bodies for an upload route. Every multipart body carries at least one bad `file` part, so it is refused
 * whatever its other parts are; the other kinds are refused before any part is looked at.
 */
/** Raw multipart texts that may parse as a form without parts: refused only where the form requires a part. */
const MAYBE_EMPTY_MULTIPART = new Set(["", "--b\r\n", "--b--\r\n", "--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--b--\r\n", "garbage without any boundary"]);

export function formBody(route: Route, file: fc.Arbitrary<FileBody>): fc.Arbitrary<FormBody> {
  const known = Object.keys(route.formSchema?.properties ?? {}).filter((k) => k !== "file");
  const requiresPart = (route.formSchema?.required ?? []).length > 0;
  const parts = fc
    .tuple(textParts(known), fc.array(filePart(file), { minLength: 1, maxLength: 2 }), fc.boolean())
    .map(([texts, files, filesFirst]) => (filesFirst ? [...files, ...texts] : [...texts, ...files]));
  return fc.oneof(
    { arbitrary: parts.map((p) => ({ kind: "multipart" as const, parts: p })), weight: 6 },
    { arbitrary: parts.map((p) => ({ kind: "multipart-streamed" as const, parts: p })), weight: 1 },
    {
      arbitrary: fc
        .record({
          contentType: fc.constantFrom(
            "multipart/form-data",
            "multipart/form-data; boundary=",
            'multipart/form-data; boundary=""',
            "multipart/form-data; boundary=b",
            `multipart/form-data; boundary=${"b".repeat(200)}`,
            "multipart/mixed; boundary=b",
            "multipart/form-data; boundary=b; charset=utf-16",
          ),
          text: fc.constantFrom(
            "",
            "--b\r\n",
            "--b--\r\n",
            '--b\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 truncated',
            '--b\r\nContent-Disposition: form-data; name="file"\r\n\r\nnot a file\r\n--b--\r\n',
            "--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--b--\r\n",
            '--b\r\nContent-Disposition: form-data; name="\u0000"; filename="\u202e.pdf"\r\nContent-Type: application/pdf\r\n\r\n\u0000\r\n--b--\r\n',
            "garbage without any boundary",
          ),
        })
        .filter((d) => requiresPart || !MAYBE_EMPTY_MULTIPART.has(d.text))
        .map((d) => ({ kind: "raw-multipart" as const, ...d })),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom("action=", "action=%ff", "action=pay&action=cancel", "x_hostile=1", "%zz=%zz", "&&&==", "title=".concat("t".repeat(300)))
        .map((text) => ({ kind: "urlencoded" as const, text })),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(2_000, 20_000).map((count) => ({ kind: "many-parts" as const, count })), weight: 1 },
    // JSON where an upload is expected; invalid JSON too, since one route (a template's PUT) takes either.
    { arbitrary: fc.constantFrom('{"x_hostile":1}', "[]", "garbage", '{"title":').map((text) => ({ kind: "json-instead" as const, text })), weight: 1 },
  );
}

function fileBytes(f: FileBody): Uint8Array | string {
  switch (f.kind) {
    case "garbage":
      // Never the PDF signature, so never a PDF.
      return f.bytes.length >= 5 && new TextDecoder().decode(f.bytes.subarray(0, 5)) === "%PDF-" ? f.bytes.subarray(1) : f.bytes;
    case "pdf-header-garbage": {
      const out = new Uint8Array(9 + f.bytes.length);
      out.set(new TextEncoder().encode("%PDF-1.7\n"), 0);
      out.set(f.bytes, 9);
      return out;
    }
    case "prepared":
      return prepared.get(f.name)!;
    case "csv":
      return f.text;
    case "csv-bytes":
      return f.bytes;
    case "csv-big":
      return "name,number,note\n".concat("Someone,12345,x\n".repeat(f.lines));
  }
}

/** The runtime refuses part names and file names ending in a backslash; such a part is not sendable at all. */
const sendableName = (name: string) => (name.endsWith("\\") ? `${name}_` : name);

function toForm(parts: FormPart[]): FormData {
  const form = new FormData();
  for (const p of parts.map((part) => ({ ...part, name: sendableName(part.name), ...("filename" in part ? { filename: sendableName(part.filename) } : {}) }))) {
    if ("file" in p) {
      const bytes = fileBytes(p.file);
      form.append(p.name, new Blob([typeof bytes === "string" ? bytes : bytes.slice()], { type: p.type }), p.filename);
    } else {
      form.append(p.name, p.text);
    }
  }
  return form;
}

export async function materialiseForm(b: FormBody): Promise<MaterialBody> {
  switch (b.kind) {
    case "multipart":
      return { body: toForm(b.parts), headers: {} };
    case "multipart-streamed": {
      // The same body without a length: the limit must hold for a stream too.
      const req = new Request("http://x/", { method: "POST", body: toForm(b.parts) });
      return { body: req.body, headers: { "Content-Type": req.headers.get("Content-Type")! } };
    }
    case "urlencoded":
      return { body: b.text, headers: { "Content-Type": "application/x-www-form-urlencoded" } };
    case "raw-multipart":
      return { body: b.text, headers: { "Content-Type": b.contentType } };
    case "many-parts": {
      const form = new FormData();
      for (let i = 0; i < b.count; i += 1) form.append(`p${i}`, "x");
      form.append("file", new Blob([new Uint8Array([1, 2, 3])]), "x.bin");
      return { body: form, headers: {} };
    }
    case "json-instead":
      return { body: b.text, headers: { "Content-Type": "application/json" } };
  }
}

export function describeForm(b: FormBody): string {
  const short = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return `<${v.length} bytes>`;
    if (typeof v === "string" && v.length > 60) return `${v.slice(0, 60)}...(${v.length} chars)`;
    if (Array.isArray(v)) return v.map(short);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, short(x)]));
    return v;
  };
  return JSON.stringify(short(b));
}
