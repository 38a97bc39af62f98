import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { paymentsApi } from "./payments.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { ApiError, fail } from "../../domain/errors";
import { log } from "../../lib/log";
import { completePayment, type PaymentNotice, type PaymentOutcome } from "./payments.service";
import { STRIPE_API_VERSION, verifyStripeWebhook, type StripeEvent } from "./stripe";

/** What a Stripe Checkout event means for the payment group it names, or null when it means nothing to us. */
function outcomeOf(event: StripeEvent, session: Record<string, unknown>): PaymentOutcome | null {
  const paymentId = typeof session.payment_intent === "string" ? session.payment_intent : String(session.id ?? "");
  switch (event.type) {
    case "checkout.session.completed":
      return session.payment_status === "paid" ? { status: "paid", paymentId } : null;
    case "checkout.session.async_payment_succeeded":
      return { status: "paid", paymentId };
    case "checkout.session.async_payment_failed":
      return { status: "failed", message: "Stripe reports the payment failed" };
    case "checkout.session.expired":
      return { status: "canceled" };
    default:
      return null;
  }
}

/**
 * The notice a signed Stripe event carries for the payment group it names: the Checkout Session is Stripe's own
 * record of the payment (its id, `amount_total` in cents, `currency`), matched by `completePayment` against what
 * was stored at checkout (decisions.md 15 "Payments are matched, not trusted").
 */
function noticeOf(event: StripeEvent): { group: string; notice: PaymentNotice } | null {
  const session = event.data.object;
  const group = typeof session.client_reference_id === "string" ? session.client_reference_id : null;
  const outcome = group ? outcomeOf(event, session) : null;
  if (!group || !outcome) return null;
  const amount = session.amount_total;
  return {
    group,
    notice: {
      source: `Stripe ${event.type} ${String(event.id).slice(0, 80)}`,
      checkout: {
        checkoutId: typeof session.id === "string" ? session.id : "",
        amountCents: typeof amount === "number" && Number.isSafeInteger(amount) ? amount : null,
        currency: typeof session.currency === "string" ? session.currency : "",
      },
      outcome,
    },
  };
}

/**
 * `POST /payments/stripe/webhook`: Stripe's completion notices. No API key (Stripe cannot send one); the
 * `Stripe-Signature` over the exact body is the authentication, and a forged or stale one is a 400.
 */
export const stripeWebhooksRoutes = new Hono<AppEnv>().post("/webhook", describeRoute(paymentsApi.stripeWebhook), async (c) => {
  const deps = depsOf(c);
  const raw = await c.req.text();
  const event = await verifyStripeWebhook(deps, c.req.header("Stripe-Signature"), raw);
  if (!event) throw fail.payment_signature_invalid();
  // The endpoint's version shapes the payload. What is read here (type, client_reference_id, payment_status,
  // payment_intent as an id, the session's id, amount_total and currency) is read as the pinned version shows it; an
  // event of another version is still handled, and logged so that the endpoint can be set to the pin.
  if (typeof event.api_version === "string" && event.api_version !== STRIPE_API_VERSION) {
    log("warn", "stripe webhook endpoint uses another API version than the one pinned", {
      event_id: event.id,
      api_version: event.api_version,
      pinned: STRIPE_API_VERSION,
    });
  }
  const meant = noticeOf(event);
  if (meant) {
    try {
      // A notice that does not match the group's checkout changes nothing and is logged there; Stripe still gets
      // 200, so it stops resending what will never match.
      await completePayment(deps, meant.group, meant.notice);
    } catch (err) {
      // An unknown payment group will never become known: acknowledge, so Stripe stops resending it.
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      log("warn", "stripe event for an unknown payment group", { event_id: event.id, type: event.type });
    }
  }
  return c.json({ received: true }, 200);
});
