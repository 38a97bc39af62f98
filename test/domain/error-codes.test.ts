import { describe, expect, it } from "vitest";
import { codeOfStatus, codeToStatus, ERROR_CODES, type ErrorStatus, ID_RESOURCES, type RegisteredCode } from "../../src/domain/error-codes";
import { ApiError, fail, invalidId } from "../../src/domain/errors";

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
