import { env } from "cloudflare:workers";

/**
 * A throwaway Google service account (an RSA key made here with WebCrypto, its private part as the PKCS#8 PEM a
 * service account's JSON key holds) and readers of the save JWT it signs (docs/wallet.md).
 */

export const ISSUER_ID = "3388000000012345678";
export const CLIENT_EMAIL = "wallet@tickets-test.iam.gserviceaccount.com";

export interface ServiceAccount {
  json: string;
  pem: string;
  publicKey: CryptoKey;
}

function pemOf(der: ArrayBuffer): string {
  let s = "";
  for (const b of new Uint8Array(der)) s += String.fromCharCode(b);
  const lines = btoa(s).match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

export async function serviceAccount(): Promise<ServiceAccount> {
  const pair = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const pem = pemOf((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const json = JSON.stringify({ type: "service_account", project_id: "tickets-test", private_key_id: "k1", private_key: pem, client_email: CLIENT_EMAIL });
  return { json, pem, publicKey: pair.publicKey };
}

/** The two Google Wallet settings with `account`, as overrides of the test env (helpers/limited.ts `fetchWith`). */
export function googleWalletSettings(account: ServiceAccount): Record<string, string> {
  return { GOOGLE_WALLET_SERVICE_ACCOUNT: account.json, GOOGLE_WALLET_ISSUER_ID: ISSUER_ID };
}

/** The deployment's settings with Google Wallet configured by `account`. */
export function walletEnv(account: ServiceAccount, overrides: Record<string, unknown> = {}): typeof env {
  return { ...env, ...googleWalletSettings(account), ...overrides } as typeof env;
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export interface DecodedJwt {
  header: Record<string, any>;
  claims: Record<string, any>;
  /** Whether the signature verifies with `publicKey` (RS256). */
  verified: boolean;
}

export async function decodeJwt(jwt: string, publicKey: CryptoKey): Promise<DecodedJwt> {
  const [h, c, s] = jwt.split(".") as [string, string, string];
  const json = (part: string) => JSON.parse(new TextDecoder().decode(fromBase64url(part)));
  const verified = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", publicKey, fromBase64url(s), new TextEncoder().encode(`${h}.${c}`));
  return { header: json(h), claims: json(c), verified };
}
