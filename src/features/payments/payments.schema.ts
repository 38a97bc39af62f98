import { z } from "zod";
import { answers, type RouteDoc } from "../../http/route-docs";

/** The payment pages and notices (decisions.md 5.3, 12, 13): no key; the order's uid or Stripe's signature is the capability. */
export const paymentsApi = {
  testPage: {
    operationId: "getTestPaymentPage",
    summary: "The test provider's checkout page",
    description: "The page of the no-money test provider (`PAYMENT_PROVIDER=test`): the orders of the payment and Pay and Cancel buttons.",
    success: answers.html("The checkout page; nobody should mistake it for a real checkout."),
  },
  testDecide: {
    operationId: "submitTestPayment",
    summary: "Pay or cancel on the test provider's page",
    description:
      "The form post of the test checkout page (`action=pay` or `action=cancel`): completes the payment the way a real provider's notice does (matched with the checkout stored for the group, its total and currency), then redirects.",
    success: answers.redirect(303, "To the event's `redirect`, or to the order's status."),
  },
  stripeWebhook: {
    operationId: "receiveStripeNotice",
    summary: "Stripe's payment notices",
    description:
      "Stripe Checkout events (`checkout.session.completed`, `async_payment_succeeded`, `async_payment_failed`, `expired`) complete or cancel the payment group they name, only when the Checkout Session is the group's own: its id the checkout stored for the group, `amount_total` and `currency` the group's total and currency. A notice that does not match changes nothing, is logged (`Payment`) and is acknowledged all the same; other events are acknowledged and ignored.",
    headers: {
      "Stripe-Signature": { description: "Stripe's signature of the exact body with the endpoint's secret.", required: true, schema: { type: "string" } },
    },
    success: answers.ok(z.object({ received: z.literal(true) }), "Acknowledged."),
    errors: { "400": "`payment_signature_invalid`: `Stripe-Signature` does not verify this body (forged, or too old)." },
  },
} satisfies Record<string, RouteDoc>;
