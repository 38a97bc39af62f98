/** Order `payment_status` values (decisions.md 5.3) and what they mean for stock and tickets. */

export const FINAL_STATUSES = ["paid", "dashboard", "booked", "booked - confirmed", "dashboard - confirmed"] as const;

/** Orders that count for unique users, email-list caps and per-user coupon limits (decisions.md 13). */
export const LIVE_STATUSES = ["open", ...FINAL_STATUSES] as const;

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** An order is final when its status says so and it no longer waits for its customer's confirmation. */
export function isFinalOrder(order: { paymentStatus: string; awaitsConfirmation: boolean }): boolean {
  return isFinal(order.paymentStatus) && !order.awaitsConfirmation;
}
