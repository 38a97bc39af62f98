import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, type ListCursor, parseSyncToken, utf8Length } from "../../src/domain/offline-list";

/**
 * The offline list's cursor and sync token (docs/scanning.md "Offline list"): a cursor goes out in a `next` link and
 * comes back as it was; anything else a client sends as a cursor is refused rather than read as some other position.
 */

describe("cursors", () => {
  it("come back as they went out, for walks of the whole list and of changes", () => {
    const cursors: ListCursor[] = [
      { kind: "full", snapshot: 0, after: "" },
      { kind: "full", snapshot: 123_456, after: "aZ09bY18cX27dW36" },
      { kind: "full", snapshot: 7, after: 'odd "id" ü' },
      { kind: "delta", snapshot: 900, since: 10, after: 10 },
      { kind: "delta", snapshot: Number.MAX_SAFE_INTEGER, since: 0, after: 5 },
    ];
    for (const c of cursors) {
      const text = encodeCursor(c);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(text)).toEqual(c);
    }
  });

  it("refuse what this service did not make", () => {
    const b64 = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    for (const text of [
      "",
      "not a cursor!",
      "%%%",
      b64("not json"),
      b64("{}"),
      b64("[]"),
      b64('[2,"f",1,"a"]'), // another version
      b64('[1,"x",1,"a"]'),
      b64('[1,"f",-1,"a"]'),
      b64('[1,"f",1.5,"a"]'),
      b64('[1,"f","1","a"]'),
      b64('[1,"f",1,2]'),
      b64('[1,"f",1,"a","extra"]'),
      b64('[1,"d",10,2,1]'), // after before since
      b64('[1,"d",10,2,11]'), // after past the snapshot
      b64('[1,"d",10,11,11]'),
      b64('[1,"d",10,"2",3]'),
      b64(`[1,"f",1,"${"x".repeat(201)}"]`),
      b64('[1,"f",1e300,"a"]'),
    ]) {
      expect(decodeCursor(text), text).toBeNull();
    }
  });
});

describe("sync tokens", () => {
  it("are change numbers in decimal", () => {
    expect(parseSyncToken("0")).toBe(0);
    expect(parseSyncToken("42")).toBe(42);
    for (const bad of ["", "-1", "1.5", "1e3", " 1", "abc", "2024-01-01 10:00:00", "1".repeat(16)]) expect(parseSyncToken(bad), bad).toBeNull();
  });
});

describe("utf8Length", () => {
  it("counts the bytes a string takes on the wire", () => {
    for (const s of ["", "abc", "Zoë", "€", "名前", "😀", "a😀b", "\ud800", '"\\']) expect(utf8Length(s), s).toBe(new TextEncoder().encode(s).length);
  });
});
