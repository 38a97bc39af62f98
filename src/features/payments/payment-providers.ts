import { API_BASE } from "../../config";
import { ApiError } from "../../domain/errors";
import type { Deps } from "../../platform/deps";
import { stripeProvider } from "./stripe";

/**
 * How customers pay (decisions.md 5.3). A provider starts a checkout for the orders paid together, can expire it,
 * and refunds. Whatever the provider, completion arrives through `completePayment` (payments.service.ts), the
 * same path a real provider's webhook takes.
 */
export interface CheckoutGroup {
  /** The payment group's uid (the first order's uid). */
  uid: string;
  /** The first order's id, for the status address a customer returns to. */
  orderId: number;
  totalCents: number;
  currency: string;
  /** Our payment deadline, epoch seconds. */
  expiresAt: number;
  description: string;
}

export interface PaymentProvider {
  readonly name: string;
  startCheckout(deps: Deps, group: CheckoutGroup): Promise<{ checkoutUrl: string; paymentId: string }>;
  expireCheckout(deps: Deps, paymentId: string): Promise<void>;
  /** `idempotencyKey`: the same refund asked twice moves the money once (the provider remembers the key). */
  refund(deps: Deps, paymentId: string, amountCents: number, idempotencyKey?: string): Promise<{ ok: true } | { ok: false; message: string }>;
}

/**
 * The built-in test provider: its checkout is this service's own page `/pay/test/<uid>` with Pay and Cancel
 * buttons. Nothing leaves the service; refunds always succeed.
 */
export const testProvider: PaymentProvider = {
  name: "test",
  async startCheckout(deps, group) {
    return { checkoutUrl: `${deps.origin}${API_BASE}/pay/test/${group.uid}`, paymentId: `test_${group.uid.slice(0, 24)}` };
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
    case null:
      throw new ApiError(503, "rest_payment_unavailable", "No payment provider is configured");
  }
}

/** The provider a payment went through, told by its id (`test_...` for the test provider). */
export function providerOfPayment(paymentId: string): PaymentProvider {
  return paymentId.startsWith("test_") ? testProvider : stripeProvider;
}
