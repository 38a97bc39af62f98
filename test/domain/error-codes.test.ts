import { describe, expect, it } from "vitest";
import { codeOfStatus, codeToStatus, ERROR_CODES, type ErrorStatus, ID_RESOURCES, type RegisteredCode } from "../../src/domain/error-codes";
import { ApiError, fail, invalidId } from "../../src/domain/errors";
import { call, expectJson } from "../helpers/api";

/**
 * The error-code registry (domain/error-codes.ts): every code the service answers with, its status and default
 * message, written once; everything else makes its errors through the registry's factories (domain/errors.ts).
 * The wire shape `{code, message, data}` is decisions.md 3's and is held by test/http/wire.test.ts.
 */

type Entry = { status: ErrorStatus; message: string; also?: Partial<Record<ErrorStatus, string>>; fallbackFor?: readonly number[] };
const entries = Object.entries(ERROR_CODES) as [RegisteredCode, Entry][];
const registered = new Set<string>(Object.keys(ERROR_CODES));
const isFailureStatus = (s: number) => Number.isInteger(s) && s >= 400 && s <= 599;

/** The statuses `code` may answer with: its own and those listed under `also`. */
function statusesOf(code: string): number[] {
  if (!registered.has(code)) return /^rest_[a-z_]+_invalid_id$/.test(code) ? [404] : [];
  const entry = ERROR_CODES[code as RegisteredCode] as Entry;
  return [entry.status, ...Object.keys(entry.also ?? {}).map(Number)];
}

describe("the registry", () => {
  it("gives every code a 4xx or 5xx status and a non-empty default message", () => {
    expect(entries.length).toBeGreaterThan(50);
    for (const [code, entry] of entries) {
      expect(code, code).toMatch(/^[a-z]+(_[a-z]+)+$/);
      expect(isFailureStatus(entry.status), `${code}: ${entry.status}`).toBe(true);
      expect(entry.message.trim(), code).not.toBe("");
    }
  });

  it("lists a second status only with the case that answers it, never the code's own status again", () => {
    for (const [code, entry] of entries) {
      for (const [status, why] of Object.entries(entry.also ?? {})) {
        expect(isFailureStatus(Number(status)), `${code}: ${status}`).toBe(true);
        expect(Number(status), code).not.toBe(entry.status);
        expect(String(why).trim(), `${code} ${status}`).not.toBe("");
      }
    }
  });

  it("answers an exception without a code under one code per status, which answers with that status", () => {
    const claimed = entries.flatMap(([code, e]) => (e.fallbackFor ?? []).map((status) => ({ code, status })));
    expect(new Set(claimed.map((c) => c.status)).size).toBe(claimed.length);
    for (const { code, status } of claimed) {
      expect(codeOfStatus(status)).toBe(code);
      expect(statusesOf(code), code).toContain(status);
    }
    expect(codeOfStatus(418)).toBeUndefined();
  });

  it("codeToStatus answers each code's status, and 404 for the invalid-id family", () => {
    for (const [code, entry] of entries) expect(codeToStatus(code)).toBe(entry.status);
    for (const resource of ID_RESOURCES) expect(codeToStatus(`rest_${resource}_invalid_id`)).toBe(404);
  });
});

describe("the factories", () => {
  it("make each registered code with its status and default message, or the caller's text", () => {
    for (const [code, entry] of entries) {
      const made = fail[code]();
      expect(made).toBeInstanceOf(ApiError);
      expect({ status: made.status, code: made.code, message: made.message }).toEqual({ status: entry.status, code, message: entry.message });
      expect(fail[code]("More precise.").message).toBe("More precise.");
    }
  });

  it("give a second status only where the registry lists it", () => {
    expect(fail.order_event_not_found(undefined, { status: 409 }).status).toBe(409);
    expect(fail.order_already_ordered("x", { status: 409 }).status).toBe(409);
    // @ts-expect-error: order_no_seats answers only 409.
    expect(fail.order_no_seats(undefined, { status: 400 }).status).toBe(400);
  });

  it("name each resource of a path in its invalid-id code", () => {
    for (const resource of ID_RESOURCES) {
      const err = invalidId(resource);
      expect({ status: err.status, code: err.code }).toEqual({ status: 404, code: `rest_${resource}_invalid_id` });
      expect(err.message).toBe(`Invalid ${resource.replace(/_/g, " ")} ID.`);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Each rule once: the source itself (src/**) is read and held to the registry.
// ---------------------------------------------------------------------------------------------------------------

const SOURCES = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const sourceFiles = Object.entries(SOURCES).map(([path, text]) => ({ path: path.replace(/^(\.\.\/)+/, ""), text }));
const REGISTRY_FILE = "src/domain/error-codes.ts";

const KEYWORDS_BEFORE_AN_EXPRESSION = new Set(["return", "typeof", "case", "throw", "in", "of", "delete", "void", "yield", "await", "instanceof", "new", "else", "do"]);

/** Whether a `/` at `i` starts a regular expression (after an operator or keyword) rather than dividing. */
function startsRegex(source: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && /\s/.test(source[j] as string)) j--;
  if (j < 0) return true;
  const prev = source[j] as string;
  if (/[\w$]/.test(prev)) {
    let k = j;
    while (k >= 0 && /[\w$]/.test(source[k] as string)) k--;
    return KEYWORDS_BEFORE_AN_EXPRESSION.has(source.slice(k + 1, j + 1));
  }
  return !/[)\]}]/.test(prev);
}

/**
 * The whole string literals of a TypeScript source: quoted strings and templates without a substitution, with
 * comments and regular expressions skipped. Enough of a lexer for this house's sources (the tests below check it).
 */
function stringLiterals(source: string): string[] {
  const found: string[] = [];
  const openTemplates: number[] = []; // the brace depth at which each open template's `${` began
  let braces = 0;
  let i = 0;
  const readTemplate = (from: number, whole: boolean): number => {
    let j = from;
    let text = "";
    while (j < source.length) {
      const c = source[j];
      if (c === "\\") {
        text += source.slice(j, j + 2);
        j += 2;
      } else if (c === "`") {
        if (whole) found.push(text);
        return j + 1;
      } else if (c === "$" && source[j + 1] === "{") {
        openTemplates.push(braces);
        braces++;
        return j + 2;
      } else {
        text += c;
        j++;
      }
    }
    return j;
  };
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? source.length : end;
    } else if (c === "/" && next === "*") {
      i = source.indexOf("*/", i + 2) + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let text = "";
      while (j < source.length && source[j] !== c) {
        text += source[j] === "\\" ? source.slice(j, j + 2) : source[j];
        j += source[j] === "\\" ? 2 : 1;
      }
      found.push(text);
      i = j + 1;
    } else if (c === "`") {
      i = readTemplate(i + 1, true);
    } else if (c === "/" && startsRegex(source, i)) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && (inClass || source[j] !== "/")) {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        j++;
      }
      i = j + 1;
    } else if (c === "{") {
      braces++;
      i++;
    } else if (c === "}") {
      braces--;
      i++;
      if (openTemplates.length > 0 && openTemplates[openTemplates.length - 1] === braces) {
        openTemplates.pop();
        i = readTemplate(i, false);
      }
    } else {
      i++;
    }
  }
  return found;
}

const INVALID_ID_CODE = /^rest_[a-z_]+_invalid_id$/;

describe("each error made once, through the registry (src/**)", () => {
  it("the lexer finds whole string literals and skips comments, templates with substitutions and regular expressions", () => {
    const sample = [
      'const a = "order_x"; // "comment_code"',
      "/* 'block_code' */ const b = 'single_code';",
      'const c = `plain_template`, d = `rest_#{r}_invalid_id`, e = /"not_a_string"/g.test(a) ? x / 2 : `in #{`nested_code`} template`;',
      "const f = { g: `#{h}` }; const i = 'after_braces';",
    ]
      .join("\n")
      .replaceAll("#{", "$" + "{"); // substitutions, written so that this file has none in a plain string
    expect(stringLiterals(sample)).toEqual(["order_x", "single_code", "plain_template", "nested_code", "after_braces"]);
    const service = sourceFiles.find((f) => f.path === "src/features/checkout/customer-orders.service.ts");
    expect(stringLiterals(service?.text ?? "")).toContain("Event does not exist");
    expect(sourceFiles.length).toBeGreaterThan(200);
  });

  it("no ApiError is constructed outside src/domain/ (callers use the factories)", () => {
    const outside = sourceFiles.filter((f) => !f.path.startsWith("src/domain/") && /\bnew ApiError\s*\(/.test(f.text)).map((f) => f.path);
    expect(outside).toEqual([]);
  });

  it("no error code is written as a string outside the registry, so none is written twice", () => {
    const written: string[] = [];
    for (const file of sourceFiles) {
      if (file.path === REGISTRY_FILE) continue;
      for (const literal of stringLiterals(file.text)) {
        if (registered.has(literal) || INVALID_ID_CODE.test(literal)) written.push(`${file.path}: "${literal}"`);
      }
      // The invalid-id family is spelt once too (`invalidIdCode`).
      if (/`rest_\$\{/.test(file.text)) written.push(`${file.path}: rest_\${...}`);
    }
    expect(written).toEqual([]);
    // And the registry writes each code once, as its key: the entries only refer to each other by key.
    const registry = sourceFiles.find((f) => f.path === REGISTRY_FILE)?.text ?? "";
    expect(stringLiterals(registry).filter((l) => registered.has(l))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The route tables (describeRoute, documented) name codes in prose: each must exist, with the status it is under.
// ---------------------------------------------------------------------------------------------------------------

const CODE_PREFIXES = /^(rest|order|coupon|scan|ticket|tickets|payment|idempotency|incorrect|waiting|wallet)_[a-z_]+$/;
/** Fields the failure descriptions name, shaped like codes. */
const FIELD_NAMES = new Set(["ticket_id"]);

describe("the codes the OpenAPI document names", () => {
  it("exist in the registry and answer with the status they are listed under", async () => {
    const doc = await expectJson<{ paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>> }>(
      call("GET", "/openapi.json", { key: null, auth: null }),
      200,
    );
    const wrong: string[] = [];
    let named = 0;
    const unknown = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (!/^[45]\d\d$/.test(status)) continue;
          for (const [, token] of (response.description ?? "").matchAll(/`([a-z_]+)`/g)) {
            if (!CODE_PREFIXES.test(token as string)) continue;
            if (!(registered.has(token as string) || INVALID_ID_CODE.test(token as string))) {
              unknown.add(token as string);
              continue;
            }
            named++;
            if (!statusesOf(token as string).includes(Number(status))) wrong.push(`${method.toUpperCase()} ${path} ${status}: ${token}`);
          }
        }
      }
    }
    expect(named).toBeGreaterThan(50);
    expect(wrong).toEqual([]);
    // A code-like name that is no code must be a field the prose names, not a misspelt code.
    expect([...unknown].filter((name) => !FIELD_NAMES.has(name))).toEqual([]);
  });
});
