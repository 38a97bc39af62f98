import { centsToDecimal } from "../lib/money";

/**
 * Payments are matched, not trusted (decisions.md 15): a provider's notice acts on a payment group only when the
 * provider's own record (signed or fetched) names the checkout stored for the group at checkout and charges exactly
 * the group's total in its currency. A notice for another checkout of the same account (another Checkout, a Payment
 * Link), for another amount or in another currency changes nothing.
 */

/** What the provider's own record says the payment is: its checkout, its amount in cents and its currency. */
export interface CheckoutRecord {
  checkoutId: string;
  /** Minor units as the provider counts them (cents: only two-decimal currencies are taken, decisions.md 13); null when absent. */
  amountCents: number | null;
  currency: string;
}

/** What we stored of each order of the payment group. */
export interface StoredPayment {
  checkoutId: string;
  totalCents: number;
  currency: string;
}

/** A value the provider sent, quoted for the log: short, and without control characters. */
function quoted(value: string): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, "?");
  return `"${clean.length > 80 ? `${clean.slice(0, 80)}...` : clean}"`;
}

/**
 * Null when `record` matches the group, else what differs, in words for the log entry (the provider's values and
 * ours; no secret is part of either). An order without a stored checkout matches nothing.
 */
export function paymentMismatch(record: CheckoutRecord, group: readonly StoredPayment[]): string | null {
  const first = group[0];
  if (!first) return "no order of the payment group";
  const problems: string[] = [];
  const ids = [...new Set(group.map((o) => o.checkoutId))];
  if (record.checkoutId === "" || ids.length !== 1 || ids[0] !== record.checkoutId) {
    problems.push(`the provider's payment ${quoted(record.checkoutId)} is not the one stored (${ids.map((id) => quoted(id)).join(", ")})`);
  }
  const total = group.reduce((n, o) => n + o.totalCents, 0);
  if (record.amountCents === null || !Number.isSafeInteger(record.amountCents)) {
    problems.push(`the notice carries no amount (expected ${centsToDecimal(total)})`);
  } else if (record.amountCents !== total) {
    problems.push(`the amount ${centsToDecimal(record.amountCents)} is not the total ${centsToDecimal(total)}`);
  }
  const currencies = [...new Set(group.map((o) => o.currency.toUpperCase()))];
  if (currencies.length !== 1 || record.currency.toUpperCase() !== currencies[0]) {
    problems.push(`the currency ${quoted(record.currency.toUpperCase())} is not ${currencies.join(", ")}`);
  }
  return problems.length === 0 ? null : problems.join("; ");
}
