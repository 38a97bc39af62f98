import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { paymentsApi } from "./payments.schema";
import { describeRoute } from "../../http/route-docs";
import { bodyText } from "../../http/body-text";
import { depsOf } from "../../http/deps";
import { ApiError, fail, invalidParams } from "../../domain/errors";
import { log } from "../../lib/log";
import { completePayment, type PaymentOutcome } from "./payments.service";
import { fetchMolliePayment, MOLLIE_PAYMENT_ID, mollieRecord } from "./mollie";

/** What a Mollie payment's status means for its payment group; null: nothing (yet). */
function outcomeOf(status: unknown, paymentId: string): PaymentOutcome | null {
  switch (status) {
    case "paid":
      return { status: "paid", paymentId };
    case "canceled":
    case "expired":
      return { status: "canceled" };
    case "failed":
      return { status: "failed", message: "Mollie reports the payment failed" };
    default:
      return null; // open, pending, authorized: still on its way
  }
}

/** The payment id of Mollie's notice: the form body's one `id`, or null when the body is not that. */
function noticedId(raw: string): string | null {
  const ids = new URLSearchParams(raw).getAll("id");
  return ids.length === 1 && MOLLIE_PAYMENT_ID.test(ids[0]!) ? ids[0]! : null;
}

/**
 * `POST /payments/mollie/webhook`: Mollie's notice that a payment changed, a form body `id=tr_...` and nothing else
 * (decisions.md 15 "Selling like the peers"). No API key (Mollie sends none) and no signature: nothing in the request
 * is trusted; the payment is fetched from Mollie with our key, and its own record (id, amount, currency, status,
 * `metadata.payment_group`) is matched by `completePayment` (decisions.md 15 "Payments are matched, not trusted").
 * Every id Mollie could send is answered 200, known or not, so the answer tells nothing; Mollie unreachable is a 503,
 * so Mollie sends the notice again.
 */
export const mollieWebhooksRoutes = new Hono<AppEnv>().post("/webhook", describeRoute(paymentsApi.mollieWebhook), async (c) => {
  const deps = depsOf(c);
  const id = noticedId(await bodyText(c));
  if (id === null) throw invalidParams({ id: "must be one Mollie payment id (tr_...), form-encoded" });
  if (deps.config.mollie.apiKey === "") {
    // Not a Mollie deployment (the key is required with PAYMENT_PROVIDER=mollie): nothing can be fetched, so nothing
    // can be matched, and an anonymous post must not make the service call out.
    log("warn", "mollie notice but no MOLLIE_API_KEY is set: ignored", { payment_id: id });
    return c.json({ received: true }, 200);
  }
  const found = await fetchMolliePayment(deps, id);
  if (found.kind === "unavailable") {
    log("warn", "mollie payment could not be fetched for its notice", { payment_id: id, error: found.message.slice(0, 200) });
    throw fail.payment_provider_unavailable(undefined, { headers: { "Retry-After": "60" } });
  }
  if (found.kind === "unknown") return c.json({ received: true }, 200);
  const { payment } = found;
  const group = (payment.metadata as { payment_group?: unknown } | null | undefined)?.payment_group;
  const outcome = outcomeOf(payment.status, id);
  if (typeof group !== "string" || group === "" || outcome === null) return c.json({ received: true }, 200);
  try {
    // A payment that does not match the group's checkout (another payment, amount or currency) changes nothing and
    // is logged there; Mollie still gets 200.
    await completePayment(deps, group, { source: `Mollie payment ${id} (${String(payment.status)})`, checkout: mollieRecord(payment), outcome });
  } catch (err) {
    // A payment group we do not know will never become known: acknowledge, so Mollie stops resending it.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    log("warn", "mollie payment for an unknown payment group", { payment_id: id });
  }
  return c.json({ received: true }, 200);
});
