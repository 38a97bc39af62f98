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
  const byRemainder = lineTotals.map((t, i) => ({ i, remainder: (discount * t) % sum })).sort((a, b) => b.remainder - a.remainder || a.i - b.i);
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
  const listCents = lines.reduce((sum, l) => sum + l.unitCents * l.count, 0);
  const totalCents = chargedCents ?? listCents;
  const discountCents = Math.max(0, listCents - totalCents);
  const vatCents = invoiceLines(lines, discountCents).lines.reduce((sum, l) => sum + l.vatCents, 0);
  return { listCents, totalCents, discountCents, vatCents };
}

export interface InvoiceLine extends PricedLine {
  /** count x unit price, before the discount. */
  listCents: number;
  /** This line's share of the order's discount. */
  discountCents: number;
  /** What the line was charged: list less its discount share. */
  chargedCents: number;
  /** The VAT contained in what it was charged. */
  vatCents: number;
}

export interface VatRateTotal {
  vatHundredths: number;
  /** Charged, VAT included. */
  grossCents: number;
  vatCents: number;
  netCents: number;
}

/**
 * An invoice's arithmetic (decisions.md 13, "VAT"): each line's share of the discount (spread in proportion),
 * its VAT computed per line, and the totals per VAT rate (rates ascending). The charged amounts add up to the
 * order's total.
 */
export function invoiceLines<L extends PricedLine>(lines: readonly L[], discountCents: number): { lines: (L & InvoiceLine)[]; byRate: VatRateTotal[] } {
  const listed = lines.map((l) => l.unitCents * l.count);
  const shares = spreadDiscount(listed, discountCents);
  const out = lines.map((l, i) => {
    const chargedCents = listed[i]! - shares[i]!;
    return { ...l, listCents: listed[i]!, discountCents: shares[i]!, chargedCents, vatCents: includedVatCents(chargedCents, l.vatHundredths) };
  });
  const rates = new Map<number, VatRateTotal>();
  for (const l of out) {
    const rate = rates.get(l.vatHundredths) ?? { vatHundredths: l.vatHundredths, grossCents: 0, vatCents: 0, netCents: 0 };
    rate.grossCents += l.chargedCents;
    rate.vatCents += l.vatCents;
    rate.netCents += l.chargedCents - l.vatCents;
    rates.set(l.vatHundredths, rate);
  }
  return { lines: out, byRate: [...rates.values()].sort((a, b) => a.vatHundredths - b.vatHundredths) };
}
