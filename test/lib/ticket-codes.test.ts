import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { looksSigned, qrPayload, signerFor, TicketSigner, ticketIdOfCode, type SigningKeyJwk } from "../../src/lib/ticket-codes";

/**
 * Signed ticket codes (src/lib/ticket-codes.ts): `<kid>.<event id>.<ticket id>.<base64url Ed25519 signature>`.
 * The test configuration (vitest.config.ts) has "test1" (signs) and "test0" (public part only, verifies).
 */

const KEYS = loadConfig(env).ticketSigningKeys;
const [TEST1, TEST0] = KEYS as [SigningKeyJwk, SigningKeyJwk];
const TICKET = "K7Q2M9X4D1F8H3J6";
const OTHER_TICKET = "AAAAAAAAAAAAAAAA";
const CODE_SHAPE = /^([A-Za-z0-9]{1,8})\.([1-9][0-9]*)\.([A-Za-z0-9]{16})\.([A-Za-z0-9_-]{86})$/;
const encoder = new TextEncoder();

function base64url(bytes: ArrayBuffer | Uint8Array): string {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** A fresh Ed25519 key pair as the configuration's JWK (with `d`), under `kid`. */
async function freshKey(kid: string): Promise<SigningKeyJwk> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return { kid, kty: "OKP", crv: "Ed25519", x: jwk.x!, d: jwk.d! };
}

const publicOnly = (k: SigningKeyJwk): SigningKeyJwk => ({ kid: k.kid, kty: k.kty, crv: k.crv, x: k.x });

/** Replaces the character at `i` with another base64url character (never the same one). */
function alterAt(text: string, i: number): string {
  const c = text[i]!;
  return text.slice(0, i) + (c === "Q" ? "g" : "Q") + text.slice(i + 1);
}

describe("the test configuration", () => {
  it("holds test1 (signing, with d) then test0 (verify only)", () => {
    expect(KEYS.map((k) => k.kid)).toEqual(["test1", "test0"]);
    expect(TEST1.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(TEST0.d).toBeUndefined();
  });
});

describe("sign and verify", () => {
  it("signs with the first key: kid, event id, ticket id and an 86-character base64url signature", async () => {
    const signer = signerFor(KEYS);
    expect(signer.enabled).toBe(true);
    const code = await signer.sign(42, TICKET);
    const m = CODE_SHAPE.exec(code);
    expect(m, code).not.toBeNull();
    expect(m!.slice(1, 4)).toEqual(["test1", "42", TICKET]);
    expect(fromBase64url(m![4]!)).toHaveLength(64);
    expect(code.length).toBeLessThanOrEqual(120);
    expect(looksSigned(code)).toBe(true);
    expect(looksSigned(TICKET)).toBe(false);
  });

  it("is deterministic (Ed25519): the same ticket gives the same code; other tickets and events other codes", async () => {
    const signer = signerFor(KEYS);
    const a = await signer.sign(42, TICKET);
    expect(await signer.sign(42, TICKET)).toBe(a);
    // A new signer over the same keys (another isolate) signs the same.
    expect(await new TicketSigner(KEYS).sign(42, TICKET)).toBe(a);
    const others = [await signer.sign(43, TICKET), await signer.sign(42, OTHER_TICKET)];
    expect(new Set([a, ...others]).size).toBe(3);
  });

  it("round trip: verify answers the code's kid, event id and ticket id", async () => {
    const signer = signerFor(KEYS);
    for (const [eventId, ticket] of [
      [1, TICKET],
      [42, OTHER_TICKET],
      [9_999_999_999, "abcdefghijklmnop"],
    ] as const) {
      const code = await signer.sign(eventId, ticket);
      expect(await signer.verify(code)).toEqual({ kid: "test1", eventId, ticketId: ticket });
    }
  });

  it("the signature is a plain Ed25519 signature over '<kid>.<event id>.<ticket id>', checkable with WebCrypto alone", async () => {
    const code = await signerFor(KEYS).sign(7, TICKET);
    const [kid, eventId, ticketId, signature] = code.split(".") as [string, string, string, string];
    const key = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: TEST1.x }, { name: "Ed25519" }, false, ["verify"]);
    const message = encoder.encode(`${kid}.${eventId}.${ticketId}`);
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64url(signature), message)).toBe(true);
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64url(signature), encoder.encode(`${kid}.8.${ticketId}`))).toBe(false);
  });

  it("a signer is made once per configuration (imported keys are reused)", () => {
    expect(signerFor(KEYS)).toBe(signerFor(KEYS));
    expect(signerFor([...KEYS])).not.toBe(signerFor(KEYS));
  });
});

describe("verify refuses every tampered or foreign code", () => {
  it("an altered signature (first, middle, or a different signature of the same key)", async () => {
    const signer = signerFor(KEYS);
    const code = await signer.sign(42, TICKET);
    const head = code.slice(0, code.lastIndexOf(".") + 1);
    const signature = code.slice(head.length);
    for (const i of [0, 1, 40, 84]) {
      const altered = head + alterAt(signature, i);
      expect(altered).not.toBe(code);
      expect(await signer.verify(altered), `signature altered at ${i}`).toBeNull();
    }
    // Another ticket's valid signature on this ticket.
    const other = await signer.sign(42, OTHER_TICKET);
    expect(await signer.verify(head + other.slice(other.lastIndexOf(".") + 1))).toBeNull();
  });

  it("an altered last signature character is refused too, even where it only changes the 4 unused trailing bits", async () => {
    // 64 bytes take 85 and a third base64url characters: the last one carries 2 bits of the signature and 4 unused
    // bits. A verifier that ignores those accepts 16 spellings of every code; only the canonical one may pass.
    const signer = signerFor(KEYS);
    const code = await signer.sign(42, TICKET);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const accepted: string[] = [];
    for (const c of alphabet) {
      const variant = code.slice(0, -1) + c;
      if (variant !== code && (await signer.verify(variant)) !== null) accepted.push(c);
    }
    expect(accepted, `last character ${code.at(-1)} replaced`).toEqual([]);
  });

  it("an altered ticket id, event id or kid", async () => {
    const signer = signerFor(KEYS);
    const code = await signer.sign(42, TICKET);
    expect(await signer.verify(code.replace(TICKET, OTHER_TICKET))).toBeNull();
    expect(await signer.verify(code.replace(TICKET, TICKET.toLowerCase()))).toBeNull();
    expect(await signer.verify(code.replace(".42.", ".43."))).toBeNull();
    expect(await signer.verify(code.replace(".42.", ".420."))).toBeNull();
    // The other configured kid: known key, but it did not sign this.
    expect(await signer.verify(code.replace(/^test1\./, "test0."))).toBeNull();
    // A kid nobody configured.
    expect(await signer.verify(code.replace(/^test1\./, "test9."))).toBeNull();
  });

  it("a code signed by an unconfigured key, even under a configured kid", async () => {
    const signer = signerFor(KEYS);
    for (const kid of ["test1", "test0", "rogue"]) {
      const forged = await new TicketSigner([await freshKey(kid)]).sign(42, TICKET);
      expect(forged.startsWith(`${kid}.42.${TICKET}.`)).toBe(true);
      expect(await signer.verify(forged), `forged under ${kid}`).toBeNull();
    }
  });

  it("malformed codes: wrong shape, padding, lengths, characters, leading zeros", async () => {
    const signer = signerFor(KEYS);
    const code = await signer.sign(42, TICKET);
    const [kid, , , signature] = code.split(".") as [string, string, string, string];
    const malformed = [
      "",
      ".",
      "...",
      TICKET,
      `${kid}.42.${TICKET}`,
      `${kid}.42.${TICKET}.`,
      `42.${TICKET}.${signature}`,
      `${code}.extra`,
      `${code}==`,
      `${code} `,
      ` ${code}`,
      `${code}\n`,
      code.slice(0, -1),
      `${code}A`,
      `${kid}.042.${TICKET}.${signature}`,
      `${kid}.0.${TICKET}.${signature}`,
      `${kid}.-42.${TICKET}.${signature}`,
      `${kid}.12345678901.${TICKET}.${signature}`,
      `${kid}.42.${TICKET.slice(1)}.${signature}`,
      `${kid}.42.${TICKET}X.${signature}`,
      `${kid}.42.${TICKET.slice(0, 15)}-.${signature}`,
      `toolongkid.42.${TICKET}.${signature}`,
      `${kid}.42.${TICKET}.${signature.slice(0, 85)}+`,
      `${kid}.42.${TICKET}.${signature.slice(0, 85)}/`,
      `${kid}.4 2.${TICKET}.${signature}`,
      `${kid}.42.${TICKET}.${signature.slice(0, 84)}é`,
    ];
    for (const m of malformed) expect(await signer.verify(m), JSON.stringify(m)).toBeNull();
  });
});

describe("key rotation", () => {
  it("a code signed under a second configured key verifies; new codes come from the first key", async () => {
    const current = await freshKey("k2");
    const previous = await freshKey("k1");
    const before = await new TicketSigner([previous]).sign(42, TICKET);
    const rotated = new TicketSigner([current, publicOnly(previous)]);
    expect(rotated.enabled).toBe(true);
    expect(await rotated.verify(before)).toEqual({ kid: "k1", eventId: 42, ticketId: TICKET });
    const after = await rotated.sign(42, TICKET);
    expect(after.startsWith(`k2.42.${TICKET}.`)).toBe(true);
    expect(await rotated.verify(after)).toEqual({ kid: "k2", eventId: 42, ticketId: TICKET });
    // Once the old key is dropped, its codes stop verifying.
    expect(await new TicketSigner([current]).verify(before)).toBeNull();
    // The service's test configuration does not know either key.
    expect(await signerFor(KEYS).verify(before)).toBeNull();
    expect(await signerFor(KEYS).verify(after)).toBeNull();
  });

  it("a configuration whose second key is the service's test1 (public part only) verifies the service's codes", async () => {
    const code = await signerFor(KEYS).sign(42, TICKET);
    const rotated = new TicketSigner([await freshKey("test2"), publicOnly(TEST1)]);
    expect(await rotated.verify(code)).toEqual({ kid: "test1", eventId: 42, ticketId: TICKET });
  });
});

describe("publicKeys()", () => {
  it("lists every configured key, in order: kid, alg, the raw public key, and a public JWK (never d)", () => {
    const views = signerFor(KEYS).publicKeys();
    expect(views).toStrictEqual(KEYS.map((k) => ({ kid: k.kid, alg: "Ed25519", public_key: k.x, jwk: { kty: "OKP", crv: "Ed25519", x: k.x, kid: k.kid } })));
    for (const v of views) {
      expect(Object.keys(v)).toEqual(["kid", "alg", "public_key", "jwk"]);
      expect(Object.keys(v.jwk).sort()).toEqual(["crv", "kid", "kty", "x"]);
      expect(fromBase64url(v.public_key)).toHaveLength(32);
    }
    const text = JSON.stringify(views);
    expect(text).not.toContain('"d"');
    expect(text).not.toContain(TEST1.d!);
  });

  it("the raw public key and the JWK verify the same codes", async () => {
    const code = await signerFor(KEYS).sign(5, TICKET);
    const [kid, eventId, ticketId, signature] = code.split(".") as [string, string, string, string];
    const view = signerFor(KEYS)
      .publicKeys()
      .find((k) => k.kid === kid)!;
    const raw = await crypto.subtle.importKey("raw", fromBase64url(view.public_key), { name: "Ed25519" }, true, ["verify"]);
    const jwk = await crypto.subtle.importKey("jwk", view.jwk, { name: "Ed25519" }, false, ["verify"]);
    const message = encoder.encode(`${kid}.${eventId}.${ticketId}`);
    for (const key of [raw, jwk]) expect(await crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64url(signature), message)).toBe(true);
    // The exported raw key equals the published one.
    expect(base64url((await crypto.subtle.exportKey("raw", raw)) as ArrayBuffer)).toBe(view.public_key);
  });

  it("is empty without keys", () => {
    expect(signerFor([]).publicKeys()).toEqual([]);
  });
});

describe("without signing keys", () => {
  it("is disabled: the QR payload is the plain ticket id, nothing can be signed, nothing verifies", async () => {
    const signer = signerFor([]);
    expect(signer.enabled).toBe(false);
    expect(await qrPayload(signer, { eventId: 42, id: TICKET })).toBe(TICKET);
    await expect(signer.sign(42, TICKET)).rejects.toThrow();
    expect(await signer.verify(await signerFor(KEYS).sign(42, TICKET))).toBeNull();
  });

  it("verify-only keys cannot sign: disabled, plain ids in QR codes, but codes of those keys still verify", async () => {
    const key = await freshKey("old");
    const code = await new TicketSigner([key]).sign(42, TICKET);
    const signer = new TicketSigner([publicOnly(key)]);
    expect(signer.enabled).toBe(false);
    expect(await qrPayload(signer, { eventId: 42, id: TICKET })).toBe(TICKET);
    await expect(signer.sign(42, TICKET)).rejects.toThrow();
    expect(await signer.verify(code)).toEqual({ kid: "old", eventId: 42, ticketId: TICKET });
  });

  it("with keys, the QR payload is the signed code of the ticket at its event", async () => {
    const signer = signerFor(KEYS);
    const payload = await qrPayload(signer, { eventId: 42, id: TICKET });
    expect(payload).toBe(await signer.sign(42, TICKET));
    expect(await signer.verify(payload)).toEqual({ kid: "test1", eventId: 42, ticketId: TICKET });
  });
});

describe("ticketIdOfCode: the one reading of a scanned code, for the service and the door app", () => {
  it("a plain ticket id as it is; a signed code of this event as its ticket id", async () => {
    const signer = signerFor(KEYS);
    expect(await ticketIdOfCode(signer, 7, TICKET)).toBe(TICKET);
    expect(await ticketIdOfCode(signer, 7, await signer.sign(7, TICKET))).toBe(TICKET);
  });

  it("null for another event's code, a forged one, and anything that is neither (a product's barcode)", async () => {
    const signer = signerFor(KEYS);
    const code = await signer.sign(8, TICKET);
    expect(await ticketIdOfCode(signer, 7, code)).toBeNull();
    expect(await ticketIdOfCode(signer, 8, `${code.slice(0, -2)}AA`)).toBeNull();
    for (const other of ["8712345678906", "", "short", `${TICKET}x`, "abc.def"]) expect(await ticketIdOfCode(signer, 7, other), other).toBeNull();
  });
});
