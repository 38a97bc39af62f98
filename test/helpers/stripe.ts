import { env } from "cloudflare:workers";
import { stubUrl } from "./stubs";

/** The Stripe settings tests run with: the API is a named route of the local stub server. */

export const SECRET_KEY = "sk_test_x";
export const WEBHOOK_SECRET = "whsec_test";

const encoder = new TextEncoder();
export const toHex = (bytes: ArrayBuffer | Uint8Array) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** The deployment's settings with Stripe as the payment provider, its API being the stub named `apiName`. */
export function stripeEnv(apiName: string, overrides: Record<string, unknown> = {}): typeof env {
  return {
    ...env,
    PAYMENT_PROVIDER: "stripe",
    STRIPE_API_URL: stubUrl(`/${apiName}`),
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...overrides,
  } as typeof env;
}

/** v1 as Stripe computes it: hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint's secret. */
export async function hmacHex(secret: string, t: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(`${t}.${body}`)));
}

/** A `Stripe-Signature` header for `body`, signed now (or at `t`) with the webhook secret (or another). */
export async function stripeSignature(body: string, options: { t?: number; secret?: string } = {}): Promise<string> {
  const t = options.t ?? Math.floor(Date.now() / 1000);
  return `t=${t},v1=${await hmacHex(options.secret ?? WEBHOOK_SECRET, t, body)}`;
}
