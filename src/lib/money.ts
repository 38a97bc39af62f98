/**
 * Money is integer cents everywhere inside the service. Decimal input is parsed as text, never as
 * `Math.round(x * 100)`, so 0.1 + 0.2 style float noise is refused instead of being silently rounded.
 */

const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d{1,2}))?$/;

/** Integer cents of a non-negative amount with at most two decimals, or null when it is not one. */
export function parseCents(input: string | number): number | null {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return null;
    text = String(input); // shortest round-trip form: 12.5 -> "12.5", 1e21 -> "1e+21" (refused below)
  } else {
    text = input.trim();
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  return Number.isSafeInteger(cents) ? cents : null;
}

/** Cents as a JSON number with at most two decimals (12.5 for 1250). */
export function centsToAmount(cents: number): number {
  return cents / 100;
}

/** Cents as a decimal string with exactly two decimals ("12.50" for 1250), for outbound bodies. */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

const TWO_DECIMALS = /^(0|[1-9]\d{0,12})\.(\d{2})$/;

/**
 * Integer cents of an amount written exactly as a plain number with two decimals ("12.50"), as payment providers
 * write amounts (Mollie's `amount.value`); null for anything else ("12.5", "1e3", "-1.00", " 1.00").
 */
export function exactCents(text: unknown): number | null {
  if (typeof text !== "string") return null;
  const m = TWO_DECIMALS.exec(text);
  return m ? Number(m[1]) * 100 + Number(m[2]) : null;
}
