/**
 * PEM (RFC 7468): the DER bytes inside a `-----BEGIN <label>-----` block, as the wallet settings hold certificates and
 * PKCS#8 keys (docs/wallet.md). Pure.
 */

/** The DER bytes of the first PEM block labelled `label`; null when there is none or it is not base64. */
export function pemBlock(pem: string, label: string): Uint8Array<ArrayBuffer> | null {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem);
  if (!match) return null;
  try {
    const binary = atob(match[1]!.replace(/\s+/g, ""));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
