import { hmacSha256, secretsEqual, toHex } from "../../lib/crypto";
import { exchange } from "../../lib/outbound";
import type { Deps } from "../../platform/deps";
import type { PaymentProvider } from "./payment-provider";

/**
 * Stripe Checkout (docs/who-may-order.md "Stripe"): a session per payment group, expired at our deadline where Stripe
 * allows it, completion through Stripe's signed webhook, refunds of the payment intent. Speaks Stripe's form-encoded
 * API.
 */

/** Stripe takes a session's expiry 30 minutes to 24 hours ahead; ours may be sooner (late payments are handled). */
const STRIPE_MIN_EXPIRY_S = 31 * 60;
const SIGNATURE_TOLERANCE_S = 300;

/**
 * The Stripe API version every call names in `Stripe-Version`, so the account's default version (which a dashboard
 * upgrade changes) never changes what we send or read. The webhook endpoint should be created with the same version;
 * events of another one are still handled and logged (docs/who-may-order.md "Stripe").
 */
export const STRIPE_API_VERSION = "2026-09-30.endive";

async function call(deps: Deps, path: string, form: Record<string, string>, idempotencyKey?: string) {
  const { apiUrl, secretKey } = deps.config.stripe;
  const x = await exchange(
    `${apiUrl}${path}`,
    {
      method: "POST",
      headers: {
        Authorization: `Bearer ${secretKey}`,
        "Content-Type": "application/x-www-form-urlencoded",
        "Stripe-Version": STRIPE_API_VERSION,
        ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
      },
      body: new URLSearchParams(form).toString(),
    },
    { allowHttp: deps.config.allowHttpOutbound, timeoutMs: 10_000 },
  );
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(x.response?.body ?? "{}") as Record<string, unknown>;
  } catch {
    body = {};
  }
  const ok = x.response !== null && x.response.code >= 200 && x.response.code < 300;
  const error = (body.error as { message?: string } | undefined)?.message ?? x.error ?? `HTTP ${x.response?.code}`;
  return { ok, body, error };
}

export const stripeProvider: PaymentProvider = {
  name: "stripe",
  async startCheckout(deps, group) {
    const result = await call(deps, "/v1/checkout/sessions", {
      mode: "payment",
      client_reference_id: group.uid,
      "metadata[payment_group]": group.uid,
      success_url: group.returnUrl,
      cancel_url: group.returnUrl,
      expires_at: String(Math.max(group.expiresAt, deps.now() + STRIPE_MIN_EXPIRY_S)),
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": group.currency.toLowerCase(),
      "line_items[0][price_data][unit_amount]": String(group.totalCents),
      "line_items[0][price_data][product_data][name]": group.description,
    });
    if (!result.ok || typeof result.body.id !== "string" || typeof result.body.url !== "string") {
      throw new Error(`Stripe refused the checkout session: ${result.error}`);
    }
    return { checkoutUrl: result.body.url, paymentId: result.body.id };
  },
  async expireCheckout(deps, paymentId) {
    if (paymentId.startsWith("cs_")) await call(deps, `/v1/checkout/sessions/${encodeURIComponent(paymentId)}/expire`, {});
  },
  async refund(deps, paymentId, amountCents, _currency, idempotencyKey) {
    // The payment intent's currency is the refund's: Stripe takes no other.
    const key = paymentId.startsWith("pi_") ? "payment_intent" : "charge";
    const result = await call(deps, "/v1/refunds", { [key]: paymentId, amount: String(amountCents) }, idempotencyKey);
    return result.ok ? { ok: true } : { ok: false, message: result.error };
  },
};

/** An event as Stripe posts it; `api_version` is the webhook endpoint's version, which shapes `data.object`. */
export type StripeEvent = { id: string; type: string; api_version?: string | null; data: { object: Record<string, unknown> } };

/**
 * Verifies a webhook as Stripe specifies: `Stripe-Signature: t=<seconds>,v1=<hex>`, where v1 is HMAC-SHA256 of
 * `<t>.<raw body>` under the endpoint's secret, within five minutes of now. Answers the parsed event, or null.
 */
export async function verifyStripeWebhook(deps: Deps, header: string | undefined, raw: string): Promise<StripeEvent | null> {
  if (!header || !deps.config.stripe.webhookSecret) return null; // no secret configured: nothing can verify
  const parts = header.split(",").map((p) => p.trim().split("=") as [string, string]);
  const t = parts.find(([k]) => k === "t")?.[1];
  const signatures = parts.filter(([k]) => k === "v1").map(([, v]) => v);
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) return null;
  if (Math.abs(deps.now() - Number(t)) > SIGNATURE_TOLERANCE_S) return null;
  const expected = toHex(await hmacSha256(deps.config.stripe.webhookSecret, `${t}.${raw}`));
  const matches = await Promise.all(signatures.map((s) => secretsEqual(s, expected)));
  if (!matches.includes(true)) return null;
  try {
    return JSON.parse(raw) as StripeEvent;
  } catch {
    return null;
  }
}
