import { z } from "zod";
import { answers, type RouteDoc } from "../../http/route-docs";

/** The payment pages and notices (decisions.md 5.3, 12, 13, 15): no key; the order's uid, Stripe's signature, or Mollie's own record fetched with our key is the capability. */
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
  mollieWebhook: {
    operationId: "receiveMollieNotice",
    summary: "Mollie's payment notices",
    description:
      "No API key. Mollie calls this with a form body (`application/x-www-form-urlencoded`) `id=tr_...` whenever a payment changes (the URL is sent with each payment). Nothing in the request is trusted: the payment is fetched from Mollie with the API key, and its status acts on the payment group in its `metadata.payment_group` (`paid` pays; `canceled` and `expired` cancel; `failed` fails; `open`, `pending` and `authorized` change nothing) only when it is the group's own: its id the payment stored for the group, its `amount` the group's total and currency. A payment that does not match changes nothing, is logged (`Payment`) and is acknowledged all the same, as is an id Mollie does not know. A deployment without `MOLLIE_API_KEY` acknowledges every notice without calling Mollie.",
    success: answers.ok(z.object({ received: z.literal(true) }), "Acknowledged (also for an id Mollie does not know, and for a payment of no group of ours)."),
    errors: {
      "400": "`rest_invalid_param`: the body is not one form field `id` holding a Mollie payment id.",
      "503":
        "`payment_provider_unavailable` with `Retry-After`: Mollie could not be reached (or answered 5xx) to fetch the payment; nothing changed, and Mollie sends the notice again.",
    },
    errorHeaders: { "503": ["Retry-After"] },
  },
} satisfies Record<string, RouteDoc>;
