import { describe, expect, it } from "vitest";
import { checkFieldAnswers, checkTicketLines } from "../../src/domain/order-rules";
import { orderTotals, unitPriceCents } from "../../src/domain/pricing";
import { countProblem, emailProblem, fieldProblem, nameProblem } from "../../src/domain/shop-checks";
import { countOf, readVolume, shopTotals } from "../../src/shop-app/shop-totals";
import type { InputFieldRow, TicketTypeRow } from "../../src/db/rows";

/**
 * The shop page's script (src/shop-app, docs/shop.md): its totals and checks are the order's own rules from
 * domain/, read from the form's data attributes. These hold that it prices and refuses what the order does.
 */
describe("the shop page's live totals", () => {
  const volume = [
    { count: 5, cents: 900 },
    { count: 10, cents: 800 },
  ];
  it("price each line at its volume price and sum the VAT per line, as the order does", () => {
    const choices = [
      { priceCents: 1000, vatHundredths: 2100, volume, count: 6 },
      { priceCents: 550, vatHundredths: 900, volume: [], count: 3 },
    ];
    const service = orderTotals(choices.map((c) => ({ count: c.count, unitCents: unitPriceCents(c.priceCents, c.volume, c.count), vatHundredths: c.vatHundredths })));
    expect(shopTotals(choices, 0)).toEqual({ totalCents: service.totalCents, vatCents: service.vatCents });
    expect(service.totalCents).toBe(6 * 900 + 3 * 550);
  });
  it("count each chosen date of a group's 'select several' as an order of its own", () => {
    const choices = [{ priceCents: 1210, vatHundredths: 2100, volume: [], count: 2 }];
    const one = shopTotals(choices, 1);
    expect(one).toEqual({ totalCents: 2420, vatCents: 420 });
    expect(shopTotals(choices, 3)).toEqual({ totalCents: 3 * 2420, vatCents: 3 * 420 });
    expect(shopTotals(choices, 0), "no date chosen yet: priced as one").toEqual(one);
  });
  it("read the data attributes defensively: a broken volume is none, a count that is not one is 0", () => {
    expect(readVolume(JSON.stringify(volume))).toEqual(volume);
    expect(readVolume("not json")).toEqual([]);
    expect(readVolume('{"count":1}')).toEqual([]);
    expect(readVolume('[{"count":"2","cents":1},{"count":3,"cents":5}]')).toEqual([{ count: 3, cents: 5 }]);
    expect([countOf(" 3 "), countOf(""), countOf("-1"), countOf("2.5"), countOf("1e3")]).toEqual([3, 0, 0, 0, 0]);
  });
});

const type = (over: Partial<TicketTypeRow>) => ({ id: "t1", name: "Regular", minimumToOrder: 0, maximumToOrder: 0, ...over }) as TicketTypeRow;
const field = (over: Partial<InputFieldRow>) =>
  ({ id: "f1", name: "Company", type: "text", value: "", min: "", max: "", isRequired: false, isPersonalised: false, ...over }) as InputFieldRow;
const codeOf = (run: () => unknown) => {
  try {
    run();
    return null;
  } catch (err) {
    return (err as { code: string }).code;
  }
};

describe("the shop page's inline checks", () => {
  it("refuse a count exactly when the order's line check does", () => {
    for (const [minimumToOrder, maximumToOrder] of [
      [0, 0],
      [2, 0],
      [1, 4],
      [3, 5],
    ] as const) {
      for (const count of [1, 2, 3, 4, 5, 6]) {
        const service = codeOf(() => checkTicketLines([type({ minimumToOrder, maximumToOrder })], new Map([["t1", count]])));
        expect(
          countProblem(String(count), { minimum: minimumToOrder, maximum: maximumToOrder, remaining: null }),
          `${count} of ${minimumToOrder}-${maximumToOrder}`,
        ).toBe(service);
      }
    }
  });
  it("refuse a count above what is left, or one that is not a whole number", () => {
    const limits = { minimum: 0, maximum: 0, remaining: 2 };
    expect(countProblem("2", limits)).toBeNull();
    expect(countProblem("3", limits)).toBe("order_stock_unavailable");
    expect(countProblem("", limits)).toBeNull();
    for (const bad of ["-1", "1.5", "abc", "9999999"]) expect(countProblem(bad, limits), bad).toBe("order_wrong_amount");
  });
  it("answer a field as the order's field check does", () => {
    const cases: [Partial<InputFieldRow>, string][] = [
      [{ isRequired: true }, ""],
      [{ isRequired: true }, "  "],
      [{ min: "3", max: "5" }, "ab"],
      [{ min: "3", max: "5" }, "abcd"],
      [{ type: "select", value: "S, M, L" }, "M"],
      [{ type: "select", value: "S, M, L" }, "XL"],
      [{ type: "date", min: "2026-01-01", max: "2026-12-31" }, "2027-01-01"],
      [{ type: "date" }, "2026-02-30"],
      [{ type: "time" }, "23:59"],
      [{}, "x".repeat(51)],
    ];
    for (const [over, value] of cases) {
      const f = field(over);
      const service = codeOf(() => checkFieldAnswers([f], new Map([["f1", value]])));
      expect(fieldProblem(f, value, f.isRequired), `${JSON.stringify(over)} ${value}`).toBe(service);
    }
  });
  it("ask for a name and an address of the shape the service accepts", () => {
    expect(nameProblem(" ")).toBe("order_missing_input");
    expect(nameProblem("Ann")).toBeNull();
    expect(emailProblem("")).toBe("order_missing_input");
    expect(emailProblem("ann@example")).toBe("order_invalid_email");
    expect(emailProblem(" ann@example.org ")).toBeNull();
  });
});
