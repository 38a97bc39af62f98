import { describe, expect, it } from "vitest";
import { hmacSha256, matchesAnySecret, secretsEqual, toBase64, toHex } from "../../src/lib/crypto";
import { randomHex, randomString } from "../../src/lib/random";

describe("randomString", () => {
  it("gives the requested length", () => {
    for (const length of [0, 1, 6, 16, 40, 100, 1000]) expect(randomString(length)).toHaveLength(length);
  });

  it("uses only [A-Za-z0-9] by default", () => {
    expect(randomString(2000)).toMatch(/^[A-Za-z0-9]{2000}$/);
  });

  it("uses every character of the default alphabet over many draws", () => {
    const seen = new Set(randomString(10_000));
    expect(seen.size).toBe(62);
  });

  // getRandomValues refuses more than 65536 bytes a call, so long strings are drawn in chunks.
  it("gives strings longer than 32768 characters", () => {
    expect(randomString(40_000)).toHaveLength(40_000);
  });

  it("draws only from a given alphabet", () => {
    expect(randomString(500, "xyz")).toMatch(/^[xyz]{500}$/);
    expect(randomString(50, "a")).toBe("a".repeat(50));
  });

  it("gives distinct values over many draws", () => {
    const draws = new Set(Array.from({ length: 5000 }, () => randomString(16)));
    expect(draws.size).toBe(5000);
  });

  it("is roughly uniform over the alphabet (no favoured characters)", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const text = Array.from({ length: 62 }, () => randomString(1000)).join("");
    const counts = new Map<string, number>();
    for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    // Expected 1000 each; a standard deviation is about 31. Modulo bias without rejection would give the first
    // eight characters some 1032 on average; this bound only catches gross skew, never flakes in practice.
    for (const ch of alphabet) {
      const n = counts.get(ch) ?? 0;
      expect(n, ch).toBeGreaterThan(800);
      expect(n, ch).toBeLessThan(1200);
    }
  });
});

describe("randomHex", () => {
  it("gives lowercase hex of the requested length", () => {
    expect(randomHex(32)).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(5)).toMatch(/^[0-9a-f]{5}$/);
    expect(randomHex(0)).toBe("");
  });

  it("uses all sixteen digits and gives distinct values", () => {
    expect(new Set(randomHex(2000)).size).toBe(16);
    const draws = new Set(Array.from({ length: 2000 }, () => randomHex(32)));
    expect(draws.size).toBe(2000);
  });
});

describe("secretsEqual", () => {
  it("is true for equal secrets", async () => {
    expect(await secretsEqual("test-api-key", "test-api-key")).toBe(true);
    expect(await secretsEqual("", "")).toBe(true);
    expect(await secretsEqual("ключ-🔑", "ключ-🔑")).toBe(true);
  });

  it("is false for different secrets of the same length", async () => {
    expect(await secretsEqual("test-api-key", "test-api-kez")).toBe(false);
    expect(await secretsEqual("Test-api-key", "test-api-key")).toBe(false);
  });

  it("is false for secrets of different lengths, including prefixes and the empty string", async () => {
    expect(await secretsEqual("test-api-key", "test-api-key2")).toBe(false);
    expect(await secretsEqual("test-api-key2", "test-api-key")).toBe(false);
    expect(await secretsEqual("test", "test-api-key")).toBe(false);
    expect(await secretsEqual("", "test-api-key")).toBe(false);
    expect(await secretsEqual("test-api-key", "")).toBe(false);
  });
});

describe("matchesAnySecret", () => {
  it("is true when the sent secret equals any accepted one", async () => {
    expect(await matchesAnySecret("old", ["old", "new"])).toBe(true);
    expect(await matchesAnySecret("new", ["old", "new"])).toBe(true);
    expect(await matchesAnySecret("only", ["only"])).toBe(true);
  });

  it("is false when it equals none, and for an empty list", async () => {
    expect(await matchesAnySecret("other", ["old", "new"])).toBe(false);
    expect(await matchesAnySecret("ol", ["old", "new"])).toBe(false);
    expect(await matchesAnySecret("old ", ["old", "new"])).toBe(false);
    expect(await matchesAnySecret("", [])).toBe(false);
    expect(await matchesAnySecret("old", [])).toBe(false);
  });
});

describe("hmacSha256", () => {
  it("matches RFC 4231 test case 2", async () => {
    const mac = await hmacSha256("Jefe", "what do ya want for nothing?");
    expect(mac).toBeInstanceOf(Uint8Array);
    expect(mac).toHaveLength(32);
    expect(toHex(mac)).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  it("gives the same answer for the message as bytes and as text, and again from the cached key", async () => {
    const bytes = new TextEncoder().encode("what do ya want for nothing?");
    const a = await hmacSha256("Jefe", bytes);
    const b = await hmacSha256("Jefe", "what do ya want for nothing?");
    expect(toHex(a)).toBe(toHex(b));
    expect(toHex(a)).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  it("depends on the key and the message", async () => {
    const base = toHex(await hmacSha256("Jefe", "what do ya want for nothing?"));
    expect(toHex(await hmacSha256("jefe", "what do ya want for nothing?"))).not.toBe(base);
    expect(toHex(await hmacSha256("Jefe", "what do ya want for nothing!"))).not.toBe(base);
  });

  it("signs the empty message (a webhook ping's body)", async () => {
    expect(toHex(await hmacSha256("key", ""))).toBe("5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0");
    expect(toHex(await hmacSha256("key", new Uint8Array()))).toBe("5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0");
  });

  it("matches a second published vector", async () => {
    expect(toHex(await hmacSha256("key", "The quick brown fox jumps over the lazy dog"))).toBe("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
  });

  it("rejects an empty key: WebCrypto refuses zero-length HMAC keys, so callers must not accept empty secrets", async () => {
    await expect(hmacSha256("", "body")).rejects.toThrow();
  });
});

describe("toHex and toBase64", () => {
  it("encode bytes", () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 255]))).toBe("00010f10ff");
    expect(toBase64(new Uint8Array([]))).toBe("");
    expect(toBase64(new TextEncoder().encode("f"))).toBe("Zg==");
    expect(toBase64(new TextEncoder().encode("fo"))).toBe("Zm8=");
    expect(toBase64(new TextEncoder().encode("foo"))).toBe("Zm9v");
    expect(toBase64(new TextEncoder().encode("foobar"))).toBe("Zm9vYmFy");
    expect(toBase64(new Uint8Array([0xff, 0xfe, 0x00, 0x80]))).toBe("//4AgA==");
  });

  it("encodes the RFC 4231 MAC in standard base64", async () => {
    const mac = await hmacSha256("Jefe", "what do ya want for nothing?");
    expect(toBase64(mac)).toBe("W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=");
  });

  it("round-trips through atob for every byte value", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const back = Uint8Array.from(atob(toBase64(bytes)), (ch) => ch.charCodeAt(0));
    expect(Array.from(back)).toEqual(Array.from(bytes));
  });
});
