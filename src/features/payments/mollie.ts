import { API_BASE } from "../../config";
import { centsToDecimal, exactCents } from "../../lib/money";
import { exchange } from "../../lib/outbound";
import type { Deps } from "../../platform/deps";
import type { PaymentProvider } from "./payment-provider";

/**
 * Mollie's Payments API v2 (decisions.md 15 "Selling like the peers"; docs/who-may-order.md "Mollie"): one payment
 * per payment group, its `webhookUrl` our `/payments/mollie/webhook`, which Mollie calls with the payment's id only;
 * the payment is then fetched with the API key and matched (decisions.md 15 "Payments are matched, not trusted").
 * Refunds go through the payment's refunds with Mollie's `Idempotency-Key`. Speaks JSON with Bearer auth.
 */

/** A Mollie payment id as Mollie writes them (`tr_` and letters and digits); nothing else is sent on to Mollie. */
export const MOLLIE_PAYMENT_ID = /^tr_[A-Za-z0-9]{1,64}$/;

/** Mollie's payment resources are a few KB; the whole answer is read, never a cut one. */
const ANSWER_CHARS = 256 * 1024;

type MollieAnswer = { status: number | null; body: Record<string, unknown>; error: string };

async function call(deps: Deps, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<MollieAnswer> {
  const { apiUrl, apiKey } = deps.config.mollie;
  const x = await exchange(
    `${apiUrl}${path}`,
    {
      method,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        Accept: "application/hal+json",
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : "",
    },
    { allowHttp: deps.config.allowHttpOutbound, timeoutMs: 10_000, answerChars: ANSWER_CHARS },
  );
  let parsed: Record<string, unknown> = {};
  try {
    const value = JSON.parse(x.response?.body || "{}") as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) parsed = value as Record<string, unknown>;
  } catch {
    parsed = {};
  }
  // Mollie's errors: `{status, title, detail, field?}` (application/hal+json).
  const detail = typeof parsed.detail === "string" ? parsed.detail : null;
  const error = detail ?? x.error ?? `HTTP ${x.response?.code}`;
  return { status: x.response?.code ?? null, body: parsed, error };
}

const ok = (a: MollieAnswer) => a.status !== null && a.status >= 200 && a.status < 300;

/** Mollie's amount object: the currency and the value as a string with exactly two decimals, from integer cents. */
const amountOf = (cents: number, currency: string) => ({ currency: currency.toUpperCase(), value: centsToDecimal(cents) });

/** The payment as Mollie's API answers it, or why it could not be read. */
export type MolliePaymentLookup =
  | { kind: "found"; payment: Record<string, unknown> }
  /** Mollie knows no such payment (404, or 410 for one deleted from the test account). */
  | { kind: "unknown" }
  /** Mollie unreachable, 5xx, or an answer we cannot read: ask again later. */
  | { kind: "unavailable"; message: string };

/** `GET /v2/payments/<id>`: Mollie's own record of a payment. */
export async function fetchMolliePayment(deps: Deps, id: string): Promise<MolliePaymentLookup> {
  const answer = await call(deps, "GET", `/v2/payments/${encodeURIComponent(id)}`);
  if (answer.status === 404 || answer.status === 410) return { kind: "unknown" };
  if (!ok(answer) || answer.body.id !== id) return { kind: "unavailable", message: answer.error };
  return { kind: "found", payment: answer.body };
}

/** What the payment's own record says it is, for matching (decisions.md 15): its id, amount in cents and currency. */
export function mollieRecord(payment: Record<string, unknown>) {
  const amount = (payment.amount ?? {}) as { currency?: unknown; value?: unknown };
  return {
    checkoutId: typeof payment.id === "string" ? payment.id : "",
    amountCents: exactCents(amount.value),
    currency: typeof amount.currency === "string" ? amount.currency : "",
  };
}

export const mollieProvider: PaymentProvider = {
  name: "mollie",
  async startCheckout(deps, group) {
    const answer = await call(deps, "POST", "/v2/payments", {
      amount: amountOf(group.totalCents, group.currency),
      description: group.description,
      redirectUrl: group.returnUrl,
      // Sent with every payment (there is no dashboard setting for it): the service's public origin (decisions.md 15
      // "Links in emails and pages").
      webhookUrl: `${deps.origin}${API_BASE}/payments/mollie/webhook`,
      metadata: { payment_group: group.uid },
    });
    const checkout = ((answer.body._links as Record<string, unknown> | undefined)?.checkout as { href?: unknown } | undefined)?.href;
    const id = answer.body.id;
    if (!ok(answer) || typeof id !== "string" || !MOLLIE_PAYMENT_ID.test(id) || typeof checkout !== "string") {
      throw new Error(`Mollie refused the payment: ${answer.error}`);
    }
    return { checkoutUrl: checkout, paymentId: id };
  },
  async expireCheckout(deps, paymentId) {
    if (!MOLLIE_PAYMENT_ID.test(paymentId)) return;
    // Only a payment Mollie still calls cancelable can be cancelled; a paid or closed one is left alone.
    const found = await fetchMolliePayment(deps, paymentId);
    if (found.kind === "unavailable") throw new Error(`Mollie could not be asked about the payment: ${found.message}`);
    if (found.kind === "unknown" || found.payment.isCancelable !== true) return;
    const answer = await call(deps, "DELETE", `/v2/payments/${encodeURIComponent(paymentId)}`);
    if (!ok(answer)) throw new Error(`Mollie did not cancel the payment: ${answer.error}`);
  },
  async refund(deps, paymentId, amountCents, currency, idempotencyKey) {
    if (!MOLLIE_PAYMENT_ID.test(paymentId)) return { ok: false, message: `${paymentId} is not a Mollie payment` };
    const answer = await call(deps, "POST", `/v2/payments/${encodeURIComponent(paymentId)}/refunds`, { amount: amountOf(amountCents, currency) }, idempotencyKey);
    return ok(answer) ? { ok: true } : { ok: false, message: answer.error };
  },
};
