const encoder = new TextEncoder();

const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function hmacSha256(secret: string, message: string | Uint8Array): Promise<Uint8Array> {
  const data = typeof message === "string" ? encoder.encode(message) : message;
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), data));
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

async function sha256(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
}

/** SHA-256 of a text, in hex: a stable name for it that gives the text away to no one. */
export async function sha256Hex(value: string): Promise<string> {
  return toHex(await sha256(value));
}

/**
 * Constant-time equality of two secrets. Both sides are hashed first so that neither the content nor the length
 * of the expected secret leaks through timing.
 */
export async function secretsEqual(sent: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(sent), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** Constant-time check of `sent` against every accepted secret (each compared, none skipped). */
export async function matchesAnySecret(sent: string, accepted: readonly string[]): Promise<boolean> {
  const results = await Promise.all(accepted.map((secret) => secretsEqual(sent, secret)));
  return results.includes(true);
}
