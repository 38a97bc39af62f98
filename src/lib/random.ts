const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A string of `length` characters drawn uniformly from `alphabet` with crypto.getRandomValues.
 * Bytes at or above the largest multiple of the alphabet size are rejected so that no character is favoured.
 */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  if (alphabet.length < 1 || alphabet.length > 256) throw new RangeError("alphabet must have 1 to 256 characters");
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    // getRandomValues gives at most 65536 bytes a call.
    const bytes = crypto.getRandomValues(new Uint8Array(Math.min(65536, (length - out.length) * 2)));
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
