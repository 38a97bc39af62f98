import { orderTotals, unitPriceCents } from "../domain/pricing";

/** One ticket input of the shop form as its data attributes describe it (the form contract, docs/shop.md). */
export interface TicketChoice {
  /** `data-price-cents`: the type's price, VAT included. */
  priceCents: number;
  /** `data-vat-hundredths`: 21 % is 2100. */
  vatHundredths: number;
  /** `data-volume`: the type's volume prices. */
  volume: readonly { count: number; cents: number }[];
  /** What the customer typed, read as a count (0 when empty or not a count). */
  count: number;
}

/**
 * The live total and VAT of the shop form (decisions.md 15 "The box office"): priced by the same functions as the
 * order (domain/pricing.ts: the volume price for the count, the VAT contained per line), for each chosen date of a
 * group's "select several" (each date is an order of its own with the same lines). A coupon's discount is the
 * service's to apply: the page shows the list price until the order answers.
 */
export function shopTotals(choices: readonly TicketChoice[], dates: number): { totalCents: number; vatCents: number } {
  const lines = choices.map((c) => ({ count: c.count, unitCents: unitPriceCents(c.priceCents, c.volume, c.count), vatHundredths: c.vatHundredths }));
  const one = orderTotals(lines);
  const times = Math.max(1, dates);
  return { totalCents: one.totalCents * times, vatCents: one.vatCents * times };
}

/** `data-volume` read back: `[{"count": n, "cents": c}]`; anything else is no volume price. */
export function readVolume(json: string | undefined): { count: number; cents: number }[] {
  try {
    const parsed: unknown = JSON.parse(json ?? "[]");
    if (!Array.isArray(parsed)) return [];
    // In the order the service keeps them: unitPriceCents reads them as the order does.
    return parsed.filter((v): v is { count: number; cents: number } => Number.isInteger(v?.count) && Number.isInteger(v?.cents));
  } catch {
    return [];
  }
}

/** A count input's text as a count: digits only, else 0 (the checks say what is wrong with it). */
export function countOf(text: string): number {
  const t = text.trim();
  return /^\d{1,6}$/.test(t) ? Number(t) : 0;
}
