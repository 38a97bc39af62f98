import { pemBlock } from "./pem";
import { base64url } from "./base64url";

/**
 * RS256 JSON Web Tokens (RFC 7519, RFC 7518 3.3) signed with WebCrypto (RSASSA-PKCS1-v1_5, SHA-256), the key an RSA
 * private key in a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), as a Google service account's JSON key holds it. Pure:
 * no platform beyond WebCrypto.
 */

/** The DER bytes of a PKCS#8 PEM, or null when the text is not one (a PKCS#1 `RSA PRIVATE KEY` is not). */
export function pkcs8FromPem(pem: string): Uint8Array<ArrayBuffer> | null {
  const der = pemBlock(pem, "PRIVATE KEY");
  // A DER SEQUENCE: anything else is not a key, whatever its armour says.
  return der && der.length > 64 && der[0] === 0x30 ? der : null;
}

const textBase64url = (text: string) => base64url(new TextEncoder().encode(text));

const keys = new Map<string, Promise<CryptoKey>>();

/** The imported signing key, once per PEM and isolate (importing RSA keys is not free). */
function signingKey(pem: string): Promise<CryptoKey> {
  let key = keys.get(pem);
  if (!key) {
    const der = pkcs8FromPem(pem);
    if (!der) throw new Error("not a PKCS#8 PEM private key");
    key = crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
    key.catch(() => keys.delete(pem));
    keys.set(pem, key);
  }
  return key;
}

/** `<header>.<claims>.<signature>`, base64url each, the header `{"alg":"RS256","typ":"JWT"}`. */
export async function signRs256Jwt(claims: Record<string, unknown>, privateKeyPem: string): Promise<string> {
  const input = `${textBase64url(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${textBase64url(JSON.stringify(claims))}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", await signingKey(privateKeyPem), new TextEncoder().encode(input));
  return `${input}.${base64url(signature)}`;
}
