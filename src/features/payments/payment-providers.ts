import { API_BASE } from "../../config";
import { fail } from "../../domain/errors";
import type { Deps } from "../../platform/deps";
import type { PaymentProvider } from "./payment-provider";
import { mollieProvider } from "./mollie";
import { stripeProvider } from "./stripe";

/** The test provider's checkout of payment group `uid`: its own record of it, as its page knows it. */
export function testCheckoutId(uid: string): string {
  return `test_${uid.slice(0, 24)}`;
}

/**
 * The built-in test provider: its checkout is this service's own page `/pay/test/<uid>` with Pay and Cancel
 * buttons. Nothing leaves the service; refunds always succeed.
 */
const testProvider: PaymentProvider = {
  name: "test",
  async startCheckout(deps, group) {
    return { checkoutUrl: `${deps.origin}${API_BASE}/pay/test/${group.uid}`, paymentId: testCheckoutId(group.uid) };
  },
  async expireCheckout() {},
  async refund() {
    return { ok: true };
  },
};

/**
 * The provider a new checkout uses: the test provider when the event asks for test payments (its organizer's
 * explicit choice) or the deployment chose `test`. With none configured a paid order is refused, never free.
 */
export function providerForEvent(deps: Deps, event: { testPaymentsNeeded: boolean }): PaymentProvider {
  if (event.testPaymentsNeeded) return testProvider;
  switch (deps.config.paymentProvider) {
    case "test":
      return testProvider;
    case "stripe":
      return stripeProvider;
    case "mollie":
      return mollieProvider;
    case null:
      throw fail.rest_payment_unavailable();
  }
}

/** The provider a payment went through, told by its id (`test_...` the test provider, `tr_...` Mollie's payments). */
export function providerOfPayment(paymentId: string): PaymentProvider {
  if (paymentId.startsWith("test_")) return testProvider;
  if (paymentId.startsWith("tr_")) return mollieProvider;
  return stripeProvider;
}
