const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A string of `length` characters drawn uniformly from `alphabet` with crypto.getRandomValues.
 * Bytes at or above the largest multiple of the alphabet size are rejected so that no character is favoured.
 */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function randomHex(length: number): string {
  return randomString(length, "0123456789abcdef");
}
