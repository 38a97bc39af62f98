import { API_BASE } from "../http/context";
import type { Deps } from "./deps";

/**
 * How customers pay (decisions.md 5.3). A provider starts a checkout for the orders paid together, can expire it,
 * and refunds. Whatever the provider, completion arrives through `completePayment` (payments.service.ts), the
 * same path a real provider's webhook takes.
 */
export interface PaymentProvider {
  readonly name: string;
  startCheckout(deps: Deps, group: { uid: string; totalCents: number; currency: string; expiresAt: number }): Promise<{ checkoutUrl: string; paymentId: string }>;
  expireCheckout(deps: Deps, paymentId: string): Promise<void>;
  refund(deps: Deps, paymentId: string, amountCents: number): Promise<{ ok: true } | { ok: false; message: string }>;
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

export function paymentProvider(_deps: Deps): PaymentProvider {
  return testProvider;
}
