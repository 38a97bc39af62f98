import { describe, expect, it } from "vitest";
import { paymentMismatch } from "../../src/domain/payment-match";

/** decisions.md 15 "Payments are matched, not trusted": the provider's record against the group's stored checkout. */

const group = [
  { checkoutId: "cs_test_1", totalCents: 1000, currency: "EUR" },
  { checkoutId: "cs_test_1", totalCents: 250, currency: "EUR" },
];
const genuine = { checkoutId: "cs_test_1", amountCents: 1250, currency: "eur" };

describe("paymentMismatch", () => {
  it("matches the group's checkout, its whole total and its currency (Stripe writes it lowercased)", () => {
    expect(paymentMismatch(genuine, group)).toBeNull();
    expect(paymentMismatch({ ...genuine, currency: "EUR" }, group)).toBeNull();
  });

  it.each([
    ["another checkout", { checkoutId: "cs_test_2" }, /the provider's payment "cs_test_2" is not the one stored \("cs_test_1"\)/],
    ["no checkout", { checkoutId: "" }, /the provider's payment "" is not the one stored/],
    ["the first order's amount only", { amountCents: 1000 }, /amount 10\.00 is not the total 12\.50/],
    ["one cent more", { amountCents: 1251 }, /amount 12\.51 is not the total 12\.50/],
    ["no amount", { amountCents: null }, /no amount \(expected 12\.50\)/],
    ["a fractional amount", { amountCents: 1250.5 }, /no amount/],
    ["another currency", { currency: "usd" }, /currency "USD" is not EUR/],
    ["no currency", { currency: "" }, /currency "" is not EUR/],
  ])("refuses %s, saying what differs", (_, change, said) => {
    expect(paymentMismatch({ ...genuine, ...change }, group)).toMatch(said);
  });

  it("names the provider's record in words true of every provider (a Stripe Checkout Session, a Mollie payment)", () => {
    const mollie = [{ checkoutId: "tr_WDqYK6vllg", totalCents: 1250, currency: "EUR" }];
    const text = paymentMismatch({ checkoutId: "tr_7UhSN1zuXS", amountCents: 1250, currency: "EUR" }, mollie)!;
    expect(text).toBe(`the provider's payment "tr_7UhSN1zuXS" is not the one stored ("tr_WDqYK6vllg")`);
    expect(text).not.toMatch(/checkout session/i);
  });

  it("names every difference at once", () => {
    const text = paymentMismatch({ checkoutId: "cs_x", amountCents: 100, currency: "usd" }, group)!;
    expect(text.split("; ")).toHaveLength(3);
  });

  it("matches nothing for a group without a stored checkout, or whose orders disagree", () => {
    expect(
      paymentMismatch(
        { ...genuine, checkoutId: "" },
        group.map((o) => ({ ...o, checkoutId: "" })),
      ),
    ).toMatch(/the provider's payment/);
    expect(paymentMismatch(genuine, [group[0]!, { ...group[1]!, checkoutId: "cs_test_9" }])).toMatch(/the provider's payment/);
    expect(paymentMismatch(genuine, [group[0]!, { ...group[1]!, currency: "USD" }])).toMatch(/currency/);
    expect(paymentMismatch(genuine, [])).not.toBeNull();
  });

  it("quotes what the provider sent short and without control characters", () => {
    const text = paymentMismatch({ ...genuine, checkoutId: `cs_${"x".repeat(200)}\n\u0000` }, group)!;
    expect(text).not.toMatch(/[\u0000-\u001f]/);
    expect(text.length).toBeLessThan(250);
  });
});
