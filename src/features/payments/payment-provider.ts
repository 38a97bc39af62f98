import type { Deps } from "../../platform/deps";

/**
 * How customers pay (decisions.md 5.3). A provider starts a checkout for the orders paid together, can expire it,
 * and refunds. Whatever the provider, completion arrives through `completePayment` (payments.service.ts), the
 * same path a real provider's webhook takes.
 */
interface CheckoutGroup {
  /** The payment group's uid (the first order's uid). */
  uid: string;
  /** Where the customer returns to from the provider's checkout, paid or not (return-address.ts). */
  returnUrl: string;
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
  /**
   * `currency`: the order's (ISO 4217). `idempotencyKey`: the same refund asked twice moves the money once (the
   * provider remembers the key).
   */
  refund(deps: Deps, paymentId: string, amountCents: number, currency: string, idempotencyKey?: string): Promise<{ ok: true } | { ok: false; message: string }>;
}
