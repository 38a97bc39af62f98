import { Hono } from "hono";
import { z } from "zod";
import { eq } from "drizzle-orm";
import { events } from "../../db/schema";
import type { AppEnv } from "../../http/context";
import { paymentsApi } from "./payments.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { invalidId } from "../../domain/errors";
import { formBody, keyParam, pathParams } from "../../http/validate";
import { escapeHtml } from "../../lib/html";
import { centsToDecimal } from "../../lib/money";
import { ordersOfPaymentGroup } from "../ordering/order-placement";
import { completePayment } from "./payments.service";
import { testCheckoutId } from "./payment-providers";
import { returnAddress } from "./return-address";
import type { Deps } from "../../platform/deps";

const params = pathParams({ uid: keyParam("order") });
/** Said first, in the title and the heading: nobody should mistake this page for a real checkout. */
const TITLE = "Test payment: no money is taken";
const decision = z.strictObject({ action: z.enum(["pay", "cancel"], "must be pay or cancel") });

/** The orders paid through the test provider's checkout `uid`; anything else is unknown here. */
async function testCheckout(deps: Deps, uid: string) {
  const grouped = await ordersOfPaymentGroup(deps, uid);
  if (grouped.length === 0 || !grouped.every((o) => o.paymentId.startsWith("test_"))) throw invalidId("order");
  return grouped;
}

function page(title: string, inner: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem">${inner}</body></html>`;
}

/**
 * `/pay/test/<uid>` (decisions.md 5.3 and 12): the test provider's checkout page. No key: the uid is the
 * capability. Pay or Cancel drives the same completion path a real provider's webhook does, then redirects (303)
 * where the order returns to (return-address.ts): the event's `redirect`, the shop's order page or the status route.
 */
export const testPaymentsRoutes = new Hono<AppEnv>()
  .get("/:uid", describeRoute(paymentsApi.testPage), params, async (c) => {
    const deps = depsOf(c);
    const { uid } = c.req.valid("param");
    const grouped = await testCheckout(deps, uid);
    const total = grouped.reduce((n, o) => n + o.totalCents, 0);
    const first = grouped[0]!;
    const open = grouped.some((o) => o.paymentStatus === "open");
    const summary = `<h1>${TITLE}</h1><p>${grouped.length} order(s) for ${escapeHtml(first.name)}: <strong>${centsToDecimal(total)} ${escapeHtml(first.currency)}</strong></p>`;
    const form = open
      ? `<form method="post"><button name="action" value="pay">Pay</button> <button name="action" value="cancel">Cancel</button></form>`
      : `<p>This payment is ${escapeHtml(first.paymentStatus)}.</p>`;
    return c.html(page(TITLE, summary + form));
  })

  .post("/:uid", describeRoute(paymentsApi.testDecide), params, formBody(decision, { urlencoded: true }), async (c) => {
    const deps = depsOf(c);
    const { uid } = c.req.valid("param");
    const grouped = await testCheckout(deps, uid);
    const action = c.req.valid("form").action;
    // The page's own record of the payment: the checkout it is (told by the uid), the total and currency it shows.
    // Matched like any provider's notice (decisions.md 15): a group whose stored checkout is another changes nothing.
    const checkout = { checkoutId: testCheckoutId(uid), amountCents: grouped.reduce((n, o) => n + o.totalCents, 0), currency: grouped[0]!.currency };
    const outcome = action === "pay" ? { status: "paid" as const, paymentId: checkout.checkoutId } : { status: "canceled" as const };
    const after = await completePayment(deps, uid, { source: `Test checkout page (${action})`, checkout, outcome });
    const first = after[0]!;
    const event = await deps.db.select({ redirect: events.redirect }).from(events).where(eq(events.id, first.eventId)).get();
    return c.redirect(returnAddress(deps.origin, { redirect: event?.redirect ?? "" }, first), 303);
  });
