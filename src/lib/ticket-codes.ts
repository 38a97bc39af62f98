import { base64url, fromBase64url } from "./base64url";

/**
 * Signed ticket codes (docs/scanning.md): what a ticket's QR code carries once signing keys are configured.
 *
 *   <kid>.<event id>.<ticket id>.<signature>
 *
 * The signature is Ed25519 (WebCrypto) over the UTF-8 bytes of `<kid>.<event id>.<ticket id>`, in base64url
 * without padding (86 characters): about 115 characters in all. `kid` names the key, so keys can rotate: the first
 * configured key signs, every configured key verifies, and a scanner holding the public keys
 * (`GET /scan-keys/public-keys`) checks a code offline. The event id lets it refuse another event's ticket.
 */

export interface SigningKeyJwk {
  kid: string;
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  /** The private part: present on the key that signs (the first), optional on keys kept only to verify. */
  d?: string;
}

export interface PublicKeyView {
  kid: string;
  alg: "Ed25519";
  /** The raw 32-byte public key, base64url. */
  public_key: string;
  jwk: { kty: "OKP"; crv: "Ed25519"; x: string; kid: string };
}

export interface TicketCode {
  kid: string;
  eventId: number;
  ticketId: string;
}

// 64 signature bytes are 86 base64url characters whose last one carries 4 unused bits: only their zero spelling
// (A, Q, g, w) is accepted, so every code has exactly one written form.
const CODE = /^([A-Za-z0-9]{1,8})\.([1-9][0-9]{0,9})\.([A-Za-z0-9]{16})\.([A-Za-z0-9_-]{85}[AQgw])$/;

export function looksSigned(code: string): boolean {
  return code.includes(".");
}

/** A ticket id as the service draws them: 16 letters and digits. */
const PLAIN_ID = /^[A-Za-z0-9]{16}$/;

/**
 * The ticket a scanned code names at event `eventId`: a plain ticket id as it is, a signed code once its signature
 * holds and it names that event; null for anything else (a forgery, another event's code, a barcode of something
 * else). The service and the door app both read a scan with it (decisions.md 13 "Signed ticket codes").
 */
export async function ticketIdOfCode(signer: TicketSigner, eventId: number, code: string): Promise<string | null> {
  if (PLAIN_ID.test(code)) return code;
  if (!looksSigned(code)) return null;
  const verified = await signer.verify(code);
  return verified && verified.eventId === eventId ? verified.ticketId : null;
}

const encoder = new TextEncoder();

const signers = new WeakMap<readonly SigningKeyJwk[], TicketSigner>();

/** One signer per configuration (per isolate), so imported keys are reused across requests. */
export function signerFor(keys: readonly SigningKeyJwk[]): TicketSigner {
  let signer = signers.get(keys);
  if (!signer) signers.set(keys, (signer = new TicketSigner(keys)));
  return signer;
}

/** What a ticket's QR code carries: its signed code when a signing key is configured, else its id. */
export async function qrPayload(signer: TicketSigner, ticket: { eventId: number; id: string }): Promise<string> {
  return signer.enabled ? signer.sign(ticket.eventId, ticket.id) : ticket.id;
}

export class TicketSigner {
  private readonly verifying = new Map<string, Promise<CryptoKey>>();
  private signing: Promise<CryptoKey> | null = null;

  constructor(private readonly keys: readonly SigningKeyJwk[]) {}

  get enabled(): boolean {
    return this.keys.length > 0 && this.keys[0]!.d !== undefined;
  }

  publicKeys(): PublicKeyView[] {
    return this.keys.map((k) => ({
      kid: k.kid,
      alg: "Ed25519",
      public_key: k.x,
      jwk: { kty: "OKP", crv: "Ed25519", x: k.x, kid: k.kid },
    }));
  }

  async sign(eventId: number, ticketId: string): Promise<string> {
    const key = this.keys[0];
    if (!key?.d) throw new Error("no signing key configured");
    this.signing ??= crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.x, d: key.d }, { name: "Ed25519" }, false, ["sign"]);
    const message = `${key.kid}.${eventId}.${ticketId}`;
    const signature = await crypto.subtle.sign({ name: "Ed25519" }, await this.signing, encoder.encode(message));
    return `${message}.${base64url(signature)}`;
  }

  /** The code's ticket when its signature holds under a configured key; null for anything else. */
  async verify(code: string): Promise<TicketCode | null> {
    const m = CODE.exec(code);
    if (!m) return null;
    const [, kid, eventId, ticketId, signature] = m as unknown as [string, string, string, string, string];
    const jwk = this.keys.find((k) => k.kid === kid);
    if (!jwk) return null;
    let key = this.verifying.get(kid);
    if (!key) {
      key = crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
      this.verifying.set(kid, key);
    }
    const valid = await crypto.subtle.verify({ name: "Ed25519" }, await key, fromBase64url(signature), encoder.encode(`${kid}.${eventId}.${ticketId}`));
    return valid ? { kid, eventId: Number(eventId), ticketId } : null;
  }
}
