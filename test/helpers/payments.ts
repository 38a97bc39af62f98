import { eq } from "drizzle-orm";
import { orders } from "../../src/db/schema";
import { completePayment, type PaymentOutcome } from "../../src/features/payments/payments.service";
import type { Deps } from "../../src/platform/deps";
import { db } from "./catalogue";

/**
 * `completePayment` with a genuine notice: the provider's record is the checkout, total and currency stored for the
 * payment group (decisions.md 15 "Payments are matched, not trusted"), as a provider would report them, so only the
 * outcome is the test's. For tests of what a matched notice does; test/features/payments/stripe.test.ts and the
 * checkout page's tests hold the matching itself.
 */
export async function completeGenuine(deps: Deps, group: string, outcome: PaymentOutcome) {
  const grouped = await db.select().from(orders).where(eq(orders.paymentGroup, group));
  const checkout = {
    checkoutId: grouped[0]?.checkoutId ?? "",
    amountCents: grouped.reduce((n, o) => n + o.totalCents, 0),
    currency: grouped[0]?.currency ?? "EUR",
  };
  return completePayment(deps, group, { source: "A test's genuine notice", checkout, outcome });
}
