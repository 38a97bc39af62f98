import type { VolumePrice } from "../db/schema";

/** Prices of decisions.md 5.5 and 13 ("VAT"), in integer cents. Prices include VAT. */

/** The unit price for `count` tickets: the price of the largest volume threshold not above the count, else the price. */
export function unitPriceCents(priceCents: number, volume: readonly VolumePrice[], count: number): number {
  let unit = priceCents;
  for (const v of volume) if (v.count <= count) unit = v.cents;
  return unit;
}

/** round_half_up(numerator / denominator) for non-negative integers, exactly. */
export function divideRoundHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/** The VAT contained in a VAT-inclusive amount: round_half_up(cents * vat / (100 + vat)), vat in hundredths. */
export function includedVatCents(cents: number, vatHundredths: number): number {
  return divideRoundHalfUp(cents * vatHundredths, 10_000 + vatHundredths);
}

/**
 * Spreads `discount` over line totals in proportion; the lines with the largest remainders take the leftover
 * cents (earlier lines first on ties), so the shares add up to the discount exactly.
 */
export function spreadDiscount(lineTotals: readonly number[], discount: number): number[] {
  const sum = lineTotals.reduce((a, b) => a + b, 0);
  if (sum === 0 || discount === 0) return lineTotals.map(() => 0);
  const shares = lineTotals.map((t) => Math.floor((discount * t) / sum));
  let left = discount - shares.reduce((a, b) => a + b, 0);
  const byRemainder = lineTotals
    .map((t, i) => ({ i, remainder: (discount * t) % sum }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

export interface PricedLine {
  count: number;
  unitCents: number;
  vatHundredths: number;
}

export interface OrderTotals {
  listCents: number;
  totalCents: number;
  discountCents: number;
  vatCents: number;
}

/** List total, charged total (`chargedCents` when given, e.g. a dashboard `amount`), discount and VAT. */
export function orderTotals(lines: readonly PricedLine[], chargedCents?: number): OrderTotals {
  const lineTotals = lines.map((l) => l.unitCents * l.count);
  const listCents = lineTotals.reduce((a, b) => a + b, 0);
  const totalCents = chargedCents ?? listCents;
  const discountCents = Math.max(0, listCents - totalCents);
  const discounts = spreadDiscount(lineTotals, discountCents);
  const vatCents = lines.reduce((sum, l, i) => sum + includedVatCents(lineTotals[i]! - discounts[i]!, l.vatHundredths), 0);
  return { listCents, totalCents, discountCents, vatCents };
}
