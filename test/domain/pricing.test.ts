import { describe, expect, it } from "vitest";
import { divideRoundHalfUp, includedVatCents, invoiceLines, orderTotals, spreadDiscount, unitPriceCents } from "../../src/domain/pricing";

/** Prices of decisions.md 5.5 and 13 ("VAT"): integer cents, prices include VAT, discounts spread by largest remainder. */

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe("unitPriceCents", () => {
  // Thresholds as the ticket-type schema stores them: ascending by count.
  const volume = [
    { count: 5, cents: 900 },
    { count: 10, cents: 800 },
    { count: 20, cents: 750 },
  ];

  it.each([
    [0, 1000],
    [1, 1000],
    [4, 1000],
    [5, 900], // a threshold applies from its own count on
    [9, 900],
    [10, 800],
    [19, 800],
    [20, 750],
    [500, 750],
  ])("for %i tickets is %i cents", (count, cents) => {
    expect(unitPriceCents(1000, volume, count)).toBe(cents);
  });

  it("is the plain price without volume prices", () => {
    expect(unitPriceCents(1234, [], 1)).toBe(1234);
    expect(unitPriceCents(1234, [], 1000)).toBe(1234);
  });

  it("takes the threshold's price even when it is above the plain price", () => {
    expect(unitPriceCents(500, [{ count: 2, cents: 600 }], 3)).toBe(600);
  });

  it("allows a free volume price", () => {
    expect(unitPriceCents(500, [{ count: 2, cents: 0 }], 2)).toBe(0);
  });
});

describe("divideRoundHalfUp", () => {
  it.each([
    [0, 7, 0],
    [10, 5, 2], // exact
    [1, 4, 0], // 0.25
    [2, 4, 1], // 0.5 rounds up
    [3, 4, 1], // 0.75
    [5, 2, 3], // 2.5 rounds up
    [7, 2, 4], // 3.5 rounds up
    [9, 2, 5], // 4.5 rounds up (not to even)
    [14, 3, 5], // 4.67
    [13, 3, 4], // 4.33
    [1, 3, 0],
  ])("%i / %i is %i", (n, d, expected) => {
    expect(divideRoundHalfUp(n, d)).toBe(expected);
  });

  it("stays exact for large amounts", () => {
    // 333333333.33 -> 333333333; 500000000.5 -> 500000001.
    expect(divideRoundHalfUp(1_000_000_000, 3)).toBe(333_333_333);
    expect(divideRoundHalfUp(1_000_000_001, 2)).toBe(500_000_001);
  });
});

describe("includedVatCents", () => {
  it("finds 210 cents of 21% VAT in 12.10", () => {
    expect(includedVatCents(1210, 2100)).toBe(210);
  });

  it("finds 9% VAT", () => {
    expect(includedVatCents(1090, 900)).toBe(90);
    expect(includedVatCents(1000, 900)).toBe(83); // 82.57 -> 83
    expect(includedVatCents(1005, 900)).toBe(83); // 82.98 -> 83
    expect(includedVatCents(1010, 900)).toBe(83); // 83.39 -> 83
  });

  it("keeps 5.5% exact (VAT in hundredths of a percent)", () => {
    expect(includedVatCents(1055, 550)).toBe(55);
    expect(includedVatCents(2110, 550)).toBe(110);
    expect(includedVatCents(1000, 550)).toBe(52); // 52.13 -> 52
  });

  it("rounds half up at exactly .5", () => {
    // 100 % VAT: half the amount is VAT, so odd cents end in exactly .5.
    expect(includedVatCents(1, 10_000)).toBe(1); // 0.5 -> 1
    expect(includedVatCents(3, 10_000)).toBe(2); // 1.5 -> 2
    expect(includedVatCents(5, 10_000)).toBe(3); // 2.5 -> 3 (not to even)
    // 20 % VAT is a sixth of the amount: 12.03 holds exactly 200.5 cents.
    expect(includedVatCents(1203, 2000)).toBe(201);
    expect(includedVatCents(3, 2000)).toBe(1); // 0.5
    expect(includedVatCents(15, 2000)).toBe(3); // 2.5
    // 4 % VAT is 1/26 of the amount: 13 cents hold exactly 0.5.
    expect(includedVatCents(13, 400)).toBe(1);
    // Just below .5 goes down: 12.02 at 20 % is 200.33.
    expect(includedVatCents(1202, 2000)).toBe(200);
  });

  it("is 0 for 0% VAT and for a free amount", () => {
    expect(includedVatCents(1210, 0)).toBe(0);
    expect(includedVatCents(0, 2100)).toBe(0);
  });

  it("rounds per the decided formula round_half_up(cents * vat / (100 + vat))", () => {
    for (const vat of [600, 900, 1900, 2100, 550, 2500]) {
      for (const cents of [1, 99, 100, 101, 999, 1234, 4999, 100_000]) {
        const exact = (cents * vat) / (10_000 + vat);
        const expected = Math.floor(exact) + (exact - Math.floor(exact) >= 0.5 - 1e-9 ? 1 : 0);
        expect(includedVatCents(cents, vat), `${cents} at ${vat / 100}%`).toBe(expected);
      }
    }
  });
});

describe("spreadDiscount", () => {
  it("spreads exactly in proportion when it divides", () => {
    expect(spreadDiscount([2000, 1000, 1000], 400)).toEqual([200, 100, 100]);
  });

  it("gives the rounding cent to the largest remainder, not to the largest line", () => {
    // 100 over 1000/500/250: 57.14, 28.57, 14.29 -> floors 57, 28, 14 (99); the 28.57 line has the largest remainder.
    const shares = spreadDiscount([1000, 500, 250], 100);
    expect(shares).toEqual([57, 29, 14]);
    expect(sum(shares)).toBe(100);
  });

  it("gives several rounding cents to the largest remainders", () => {
    const lines = [300, 300, 300, 100];
    // 10 * 300 / 1000 = 3 each (exact), 10 * 100 / 1000 = 1 -> no remainders
    expect(spreadDiscount(lines, 10)).toEqual([3, 3, 3, 1]);
    // 11: 3.3, 3.3, 3.3, 1.1 -> floors 3,3,3,1 (10); remainders .3,.3,.3,.1 -> first of the ties takes it
    expect(spreadDiscount(lines, 11)).toEqual([4, 3, 3, 1]);
    // 17: 5.1, 5.1, 5.1, 1.7 -> floors 5,5,5,1 (16); the 1.7 line has the largest remainder
    expect(spreadDiscount(lines, 17)).toEqual([5, 5, 5, 2]);
    // 19: 5.7 x 3, 1.9 -> floors 5,5,5,1 (16); remainders .7,.7,.7,.9 -> the last line, then the first two
    expect(spreadDiscount(lines, 19)).toEqual([6, 6, 5, 2]);
  });

  it("breaks ties between equal remainders by line order", () => {
    expect(spreadDiscount([100, 100, 100], 100)).toEqual([34, 33, 33]);
    expect(spreadDiscount([100, 100, 100], 200)).toEqual([67, 67, 66]);
  });

  it("always sums to the discount exactly and never exceeds a line", () => {
    const cases: [number[], number][] = [
      [[1, 1, 1], 2],
      [[999, 1, 5000, 33], 1234],
      [[1210, 1090, 1055], 3354],
      [[7, 13, 29, 31], 1],
      [[12345, 6789], 19134],
    ];
    for (const [lines, discount] of cases) {
      const shares = spreadDiscount(lines, discount);
      expect(sum(shares), `${lines} / ${discount}`).toBe(discount);
      shares.forEach((s, i) => {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(lines[i]!);
        // Each share is its exact proportion rounded down or up, never further off.
        const exact = (discount * lines[i]!) / sum(lines);
        expect(Math.abs(s - exact)).toBeLessThan(1);
      });
    }
  });

  it("gives a line of 0 no share, and spreads nothing when there is nothing", () => {
    expect(spreadDiscount([0, 1000], 50)).toEqual([0, 50]);
    expect(spreadDiscount([500, 700], 0)).toEqual([0, 0]);
    expect(spreadDiscount([0, 0], 0)).toEqual([0, 0]);
    expect(spreadDiscount([], 0)).toEqual([]);
  });

  it("takes whole lines when the discount is the whole total", () => {
    expect(spreadDiscount([1210, 1090], 2300)).toEqual([1210, 1090]);
  });
});

describe("orderTotals", () => {
  const lines = [
    { count: 2, unitCents: 1210, vatHundredths: 2100 },
    { count: 1, unitCents: 1090, vatHundredths: 900 },
    { count: 0, unitCents: 5000, vatHundredths: 2100 },
  ];

  it("without a charged amount: total is the list price, no discount, VAT per line", () => {
    expect(orderTotals(lines)).toEqual({ listCents: 3510, totalCents: 3510, discountCents: 0, vatCents: 420 + 90 });
  });

  it("with a charged amount: total is that amount, discount the difference, VAT on the discounted lines", () => {
    // discount 510 over 2420 / 1090 / 0: 351.62, 158.38 -> 351 + 158 = 509; the first remainder is larger -> 352, 158.
    // VAT: (2420 - 352) * 21/121 = 358.91 -> 359; (1090 - 158) * 9/109 = 76.95 -> 77.
    expect(orderTotals(lines, 3000)).toEqual({ listCents: 3510, totalCents: 3000, discountCents: 510, vatCents: 359 + 77 });
  });

  it("with a charged amount equal to the list price: no discount", () => {
    expect(orderTotals(lines, 3510)).toEqual({ listCents: 3510, totalCents: 3510, discountCents: 0, vatCents: 510 });
  });

  it("with a charged amount of 0: everything is discount and there is no VAT", () => {
    expect(orderTotals(lines, 0)).toEqual({ listCents: 3510, totalCents: 0, discountCents: 3510, vatCents: 0 });
  });

  it("never shows a negative discount", () => {
    const totals = orderTotals(lines, 4000);
    expect(totals.discountCents).toBe(0);
    expect(totals.totalCents).toBe(4000);
    expect(totals.listCents).toBe(3510);
  });

  it("uses the unit price times the count, and works for free orders", () => {
    expect(orderTotals([{ count: 3, unitCents: 999, vatHundredths: 550 }])).toEqual({
      listCents: 2997,
      totalCents: 2997,
      discountCents: 0,
      vatCents: 156, // 2997 * 5.5 / 105.5 = 156.24
    });
    expect(orderTotals([{ count: 4, unitCents: 0, vatHundredths: 2100 }])).toEqual({ listCents: 0, totalCents: 0, discountCents: 0, vatCents: 0 });
    expect(orderTotals([])).toEqual({ listCents: 0, totalCents: 0, discountCents: 0, vatCents: 0 });
  });
});

describe("invoiceLines", () => {
  const line = (unitCents: number, count: number, vatHundredths: number) => ({ unitCents, count, vatHundredths });

  it("without a discount each line is charged its list amount and VAT is computed per line", () => {
    const { lines, byRate } = invoiceLines([line(1210, 2, 2100), line(1090, 1, 900)], 0);
    expect(lines.map((l) => [l.listCents, l.discountCents, l.chargedCents, l.vatCents])).toEqual([
      [2420, 0, 2420, 420],
      [1090, 0, 1090, 90],
    ]);
    expect(byRate).toEqual([
      { vatHundredths: 900, grossCents: 1090, vatCents: 90, netCents: 1000 },
      { vatHundredths: 2100, grossCents: 2420, vatCents: 420, netCents: 2000 },
    ]);
  });

  it("spreads the discount in proportion, the largest remainder taking the odd cent, and charges add up to the total", () => {
    // 1000 and 2000 listed, 100 off: 33.33 and 66.67 -> 33 and 67.
    const { lines } = invoiceLines([line(1000, 1, 2100), line(1000, 2, 2100)], 100);
    expect(lines.map((l) => l.discountCents)).toEqual([33, 67]);
    expect(lines.map((l) => l.chargedCents)).toEqual([967, 1933]);
    expect(lines.reduce((n, l) => n + l.chargedCents, 0)).toBe(2900);
    // round_half_up(967 * 21 / 121) = round(167.83) = 168; round_half_up(1933 * 21 / 121) = round(335.48) = 335.
    expect(lines.map((l) => l.vatCents)).toEqual([168, 335]);
  });

  it("groups lines of one rate together, rates ascending, and agrees with orderTotals' VAT", () => {
    const input = [line(500, 3, 2100), line(250, 2, 0), line(1999, 1, 2100), line(100, 7, 950)];
    const { lines, byRate } = invoiceLines(input, 321);
    expect(byRate.map((r) => r.vatHundredths)).toEqual([0, 950, 2100]);
    const vat = lines.reduce((n, l) => n + l.vatCents, 0);
    expect(byRate.reduce((n, r) => n + r.vatCents, 0)).toBe(vat);
    const listed = input.reduce((n, l) => n + l.unitCents * l.count, 0);
    expect(orderTotals(input, listed - 321).vatCents).toBe(vat);
    for (const r of byRate) expect(r.grossCents).toBe(r.netCents + r.vatCents);
    expect(byRate[0]!.vatCents).toBe(0);
  });

  it("a discount of everything leaves nothing charged and no VAT", () => {
    const { lines, byRate } = invoiceLines([line(1500, 2, 2100)], 3000);
    expect(lines[0]).toMatchObject({ chargedCents: 0, vatCents: 0 });
    expect(byRate).toEqual([{ vatHundredths: 2100, grossCents: 0, vatCents: 0, netCents: 0 }]);
  });
});
