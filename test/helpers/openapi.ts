import { registerSchema, unregisterSchema, validate } from "@hyperjump/json-schema/openapi-3-1";
import { expect } from "vitest";
import { ORIGIN } from "./api";

/**
 * Answers checked against the OpenAPI document: the status is one the operation declares, the content type one of
 * that response's, the body valid against its schema (@hyperjump/json-schema, OpenAPI 3.1 dialect), each header it
 * declares present when required and valid, and no header the document knows sent where it is not declared.
 */

export type Json = Record<string, any>;

const DIALECT = "https://spec.openapis.org/oas/3.1/schema-base";

/** Where the committed document's servers and the examples' links point (docs/openapi.json). */
export const EXAMPLE_ORIGIN = "http://127.0.0.1:8787";

/** Registers `doc` with the validator under `uri`, so that its schemas can be named by JSON pointer. */
export function registerDocument(doc: Json, uri: string): void {
  try {
    unregisterSchema(uri);
  } catch {
    // not registered yet
  }
  registerSchema(doc, uri, DIALECT);
}

/** A JSON pointer in a URI fragment: `~` and `/` escaped, then percent-encoded (`{id}`). */
export function pointer(...parts: string[]): string {
  return `#/${parts.map((p) => encodeURIComponent(p.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/")}`;
}

/** `GET /admin/events/{id}` to the operation's key in the document and NOTED_RESPONSES: `get /ticketing/v1/admin/events/{id}`. */
export function operationKey(route: string): string {
  const [method, path] = route.split(" ") as [string, string];
  return `${method.toLowerCase()} /ticketing/v1${path === "/" ? "" : path}`;
}

export interface CheckedAnswer {
  key: string;
  status: number;
  mediaType: string | null;
  body: unknown;
  headers: Headers;
}

/** Is `instance` valid against the schema at `ref` (a pointer into the document registered as `uri`)? */
export async function validAt(uri: string, ref: string, instance: unknown): Promise<{ valid: boolean; errors: string }> {
  const output = await validate(`${uri}${ref}`, instance as never, "BASIC");
  return { valid: output.valid, errors: output.valid ? "" : JSON.stringify(output.errors ?? []).slice(0, 1500) };
}

/** Checks `res`, the answer of `route` (`GET /admin/events/{id}`), against the document registered as `uri`. */
export async function checkAnswer(doc: Json, uri: string, route: string, res: Response): Promise<CheckedAnswer> {
  const key = operationKey(route);
  const [method, path] = key.split(" ") as [string, string];
  const operation = doc.paths[path]?.[method];
  expect(operation, `${route} is in the document`).toBeDefined();
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const status = String(res.status);
  const declared = operation.responses[status];
  expect(declared, `${route} answered ${status}, which the document does not declare: ${text.slice(0, 300)}`).toBeDefined();

  // Headers: every declared one present when required and valid; none the document knows sent undeclared.
  const declaredHeaders = Object.entries((declared.headers ?? {}) as Record<string, Json>).map(([name, h]) => [name, h.$ref ? h.$ref.split("/").pop() : name] as const);
  for (const [name, component] of declaredHeaders) {
    const header = doc.components.headers[component];
    const value = res.headers.get(name);
    if (value === null) {
      expect(header.required, `${route} ${status}: the required header ${name} is missing`).not.toBe(true);
      continue;
    }
    const instance = header.schema.type === "integer" && /^\d+$/.test(value) ? Number(value) : value;
    const { valid, errors } = await validAt(uri, pointer("components", "headers", component, "schema"), instance);
    expect(valid, `${route} ${status}: header ${name}: ${value} ${errors}`).toBe(true);
  }
  const names = new Set(declaredHeaders.map(([name]) => name.toLowerCase()));
  for (const known of Object.keys(doc.components.headers)) {
    if (res.headers.has(known)) expect(names.has(known.toLowerCase()), `${route} ${status} sent ${known}, which the document does not declare there`).toBe(true);
  }

  // Content.
  const mediaType = res.headers.get("Content-Type")?.split(";")[0]?.trim().toLowerCase() ?? null;
  let body: unknown = null;
  if (!declared.content) {
    expect(text, `${route} ${status} declares no body`).toBe("");
  } else {
    expect(mediaType !== null && mediaType in declared.content, `${route} ${status}: ${mediaType} is not one of ${Object.keys(declared.content)}`).toBe(true);
    if (mediaType === "application/json") {
      body = JSON.parse(text);
      const { valid, errors } = await validAt(uri, pointer("paths", path, method, "responses", status, "content", "application/json", "schema"), body);
      expect(valid, `${route} ${status}: the body does not match the document: ${errors}\n${text.slice(0, 1500)}`).toBe(true);
    } else if (mediaType === "application/pdf") {
      expect(text.startsWith("%PDF-"), `${route}: a PDF`).toBe(true);
      body = bytes;
    } else if (mediaType === "application/vnd.apple.pkpass") {
      expect([...bytes.subarray(0, 4)], `${route}: a zip`).toEqual([0x50, 0x4b, 0x03, 0x04]);
      body = bytes;
    } else if (mediaType === "image/png") {
      expect([...bytes.subarray(0, 8)], `${route}: a PNG`).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      body = bytes;
    } else if (mediaType === "image/svg+xml") {
      expect(text.startsWith("<svg "), `${route}: an SVG image`).toBe(true);
      body = text;
    } else if (mediaType === "text/csv") {
      expect([...bytes.subarray(0, 3)], `${route}: a CSV file with its BOM`).toEqual([0xef, 0xbb, 0xbf]);
      body = text;
    } else if (mediaType === "text/html") {
      expect(text.slice(0, 15).toLowerCase(), `${route}: an HTML page`).toBe("<!doctype html>");
      body = text;
    }
  }
  return { key, status: res.status, mediaType, body, headers: res.headers };
}

/** A real answer as an example: links point at EXAMPLE_ORIGIN, and lists are cut to their first two entries. */
export function asExample(value: unknown): unknown {
  if (typeof value === "string") return value.split(ORIGIN).join(EXAMPLE_ORIGIN);
  if (Array.isArray(value)) return value.slice(0, 2).map(asExample);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asExample(v)]));
  return value;
}

/**
 * Where two answers differ in their fields: the same keys in every object, recursively (arrays compare their first
 * entries; a null on either side is not compared further). Values may differ: ids, dates and uids change every run.
 */
export function fieldDifferences(a: unknown, b: unknown, at = "$"): string[] {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return typeof a === typeof b || a === null || b === null ? [] : [`${at}: ${typeof a} vs ${typeof b}`];
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return [`${at}: array vs object`];
    return a.length > 0 && b.length > 0 ? fieldDifferences(a[0], b[0], `${at}[0]`) : [];
  }
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join() !== kb.join()) return [`${at}: {${ka.join(", ")}} vs {${kb.join(", ")}}`];
  return ka.flatMap((k) => fieldDifferences((a as Json)[k], (b as Json)[k], `${at}.${k}`));
}
