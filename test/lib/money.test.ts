import { describe, expect, it } from "vitest";
import { centsToAmount, centsToDecimal, parseCents } from "../../src/lib/money";

describe("parseCents", () => {
  it("reads whole amounts from numbers and strings", () => {
    expect(parseCents(0)).toBe(0);
    expect(parseCents("0")).toBe(0);
    expect(parseCents(12)).toBe(1200);
    expect(parseCents("12")).toBe(1200);
    expect(parseCents(100)).toBe(10000);
  });

  it("reads one and two decimals as text, never through float multiplication", () => {
    expect(parseCents("12.5")).toBe(1250);
    expect(parseCents(12.5)).toBe(1250);
    expect(parseCents(12.34)).toBe(1234);
    expect(parseCents("12.34")).toBe(1234);
    expect(parseCents("12.05")).toBe(1205);
    expect(parseCents("12.50")).toBe(1250);
    expect(parseCents("0.01")).toBe(1);
    expect(parseCents(0.07)).toBe(7);
    // 1.15 * 100 is 114.99999999999999 and 4.35 * 100 is 434.99999999999994 in floats.
    expect(parseCents(1.15)).toBe(115);
    expect(parseCents(4.35)).toBe(435);
    expect(parseCents("19.99")).toBe(1999);
  });

  it("accepts surrounding whitespace in strings", () => {
    expect(parseCents(" 12.5 ")).toBe(1250);
  });

  it("gives zero for zero in every spelling it accepts", () => {
    expect(parseCents("0.0")).toBe(0);
    expect(parseCents("0.00")).toBe(0);
    expect(parseCents(-0)).toBe(0);
  });

  it("refuses negative amounts", () => {
    expect(parseCents(-1)).toBeNull();
    expect(parseCents(-0.01)).toBeNull();
    expect(parseCents("-1")).toBeNull();
    expect(parseCents("-0.50")).toBeNull();
  });

  it("refuses more than two decimals", () => {
    expect(parseCents("12.345")).toBeNull();
    expect(parseCents(12.345)).toBeNull();
    expect(parseCents("0.001")).toBeNull();
    expect(parseCents(1.005)).toBeNull();
    expect(parseCents("12.500")).toBeNull();
  });

  it("refuses float noise such as 0.1 + 0.2 instead of rounding it away", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(parseCents(0.1 + 0.2)).toBeNull();
    expect(parseCents(1.1 * 3)).toBeNull(); // 3.3000000000000003
  });

  it("refuses exponent forms", () => {
    expect(parseCents("1e2")).toBeNull();
    expect(parseCents("1E2")).toBeNull();
    expect(parseCents("1.5e1")).toBeNull();
    expect(parseCents(1e21)).toBeNull(); // String(1e21) is "1e+21"
    expect(parseCents(1e-7)).toBeNull(); // String(1e-7) is "1e-7"
    expect(parseCents(5e-324)).toBeNull();
  });

  it("refuses NaN and the infinities", () => {
    expect(parseCents(Number.NaN)).toBeNull();
    expect(parseCents(Number.POSITIVE_INFINITY)).toBeNull();
    expect(parseCents(Number.NEGATIVE_INFINITY)).toBeNull();
    expect(parseCents("NaN")).toBeNull();
    expect(parseCents("Infinity")).toBeNull();
  });

  it("refuses leading zeros", () => {
    expect(parseCents("012")).toBeNull();
    expect(parseCents("00")).toBeNull();
    expect(parseCents("00.5")).toBeNull();
    expect(parseCents("007.50")).toBeNull();
  });

  it("refuses other shapes of text", () => {
    for (const text of ["", " ", "12.", ".5", "+12", "12,50", "1 000", "0x10", "12.5.0", "abc", "€12", "１２"]) {
      expect(parseCents(text), JSON.stringify(text)).toBeNull();
    }
  });

  it("refuses amounts whose cents are not safe integers", () => {
    // 90071992547409.91 is Number.MAX_SAFE_INTEGER cents: the largest amount that is still exact.
    expect(parseCents("90071992547409.91")).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseCents("90071992547409.92")).toBeNull();
    expect(parseCents("90071992547410")).toBeNull();
    expect(parseCents("9007199254740993")).toBeNull();
    expect(parseCents("123456789012345678901234567890")).toBeNull();
    expect(parseCents(Number.MAX_SAFE_INTEGER)).toBeNull();
    expect(parseCents(1e20)).toBeNull(); // String(1e20) is "100000000000000000000"
  });
});

describe("centsToAmount", () => {
  it("gives a JSON number with at most two decimals", () => {
    expect(centsToAmount(0)).toBe(0);
    expect(centsToAmount(1)).toBe(0.01);
    expect(centsToAmount(1250)).toBe(12.5);
    expect(centsToAmount(1234)).toBe(12.34);
    expect(centsToAmount(1999)).toBe(19.99);
    expect(centsToAmount(100)).toBe(1);
    expect(JSON.stringify({ price: centsToAmount(1999) })).toBe('{"price":19.99}');
    expect(JSON.stringify({ price: centsToAmount(10) })).toBe('{"price":0.1}');
  });

  it("round-trips through parseCents for every cent below 100.00", () => {
    for (let cents = 0; cents <= 10_000; cents++) {
      expect(parseCents(centsToAmount(cents))).toBe(cents);
    }
  });
});

describe("centsToDecimal", () => {
  it("always gives exactly two decimals", () => {
    expect(centsToDecimal(0)).toBe("0.00");
    expect(centsToDecimal(1)).toBe("0.01");
    expect(centsToDecimal(10)).toBe("0.10");
    expect(centsToDecimal(1250)).toBe("12.50");
    expect(centsToDecimal(1205)).toBe("12.05");
    expect(centsToDecimal(100000)).toBe("1000.00");
    expect(centsToDecimal(Number.MAX_SAFE_INTEGER)).toBe("90071992547409.91");
  });

  it("puts the sign in front for negative amounts (refunds, discounts)", () => {
    expect(centsToDecimal(-1)).toBe("-0.01");
    expect(centsToDecimal(-1250)).toBe("-12.50");
  });

  it("round-trips through parseCents", () => {
    for (const cents of [0, 1, 9, 10, 99, 100, 101, 1250, 123456789]) {
      expect(parseCents(centsToDecimal(cents))).toBe(cents);
    }
  });
});
