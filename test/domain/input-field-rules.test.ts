import { describe, expect, it } from "vitest";
import { inputFieldProblems, isDate, isTime, selectChoices, type InputFieldSpec } from "../../src/domain/input-field-rules";

/** A consistent field of the given type; each test changes what it is about. */
const field = (spec: Partial<InputFieldSpec> & Pick<InputFieldSpec, "type">): InputFieldSpec => ({
  value: "",
  min: "",
  max: "",
  isPersonalised: false,
  ...spec,
});

describe("isDate", () => {
  it.each(["2024-01-01", "2024-02-29", "2023-02-28", "2000-02-29", "1999-12-31", "2024-04-30", "2024-12-31"])("accepts the real date %s", (s) => {
    expect(isDate(s)).toBe(true);
  });

  it.each([
    "2023-02-29", // not a leap year
    "1900-02-29", // century, not a leap year
    "2024-02-30",
    "2024-04-31",
    "2024-13-01",
    "2024-00-10",
    "2024-01-00",
    "2024-01-32",
    "2024-1-01",
    "24-01-01",
    "2024/01/01",
    "2024-01-01 10:00",
    " 2024-01-01",
    "2024-01-01\n",
    "",
    "yyyy-mm-dd",
  ])("refuses %j", (s) => {
    expect(isDate(s)).toBe(false);
  });
});

describe("isTime", () => {
  it.each(["00:00", "09:05", "12:30", "19:59", "23:59"])("accepts %s", (s) => {
    expect(isTime(s)).toBe(true);
  });

  it.each(["24:00", "23:60", "9:30", "09:5", "0930", "09:30:00", "09.30", " 09:30", "09:30\n", "", "ab:cd"])("refuses %j", (s) => {
    expect(isTime(s)).toBe(false);
  });
});

describe("selectChoices", () => {
  it("splits on commas and trims each choice, keeping order and empties", () => {
    expect(selectChoices("S, M ,L")).toEqual(["S", "M", "L"]);
    expect(selectChoices("one")).toEqual(["one"]);
    expect(selectChoices("a,,b")).toEqual(["a", "", "b"]);
    expect(selectChoices("")).toEqual([""]);
  });
});

describe("inputFieldProblems: text", () => {
  it("finds nothing wrong with the defaults", () => {
    expect(inputFieldProblems(field({ type: "text" }))).toEqual({});
  });

  it("accepts a preset value of up to 50 characters and refuses a longer one", () => {
    expect(inputFieldProblems(field({ type: "text", value: "x".repeat(50) }))).toEqual({});
    expect(Object.keys(inputFieldProblems(field({ type: "text", value: "x".repeat(51) })))).toEqual(["value"]);
  });

  it("accepts whole-number lengths, with min equal to max", () => {
    expect(inputFieldProblems(field({ type: "text", min: "0", max: "50" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "text", min: "5", max: "5" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "text", min: "3" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "text", max: "10" }))).toEqual({});
  });

  it.each(["-1", "1.5", "abc", "01", "1e2", " 5", "2024-01-01", "10:00"])("refuses the length %j for min and for max", (bad) => {
    expect(Object.keys(inputFieldProblems(field({ type: "text", min: bad })))).toEqual(["min"]);
    expect(Object.keys(inputFieldProblems(field({ type: "text", max: bad })))).toEqual(["max"]);
  });

  it("compares min and max as numbers, not as strings", () => {
    expect(inputFieldProblems(field({ type: "text", min: "9", max: "10" }))).toEqual({});
    expect(Object.keys(inputFieldProblems(field({ type: "text", min: "10", max: "9" })))).toEqual(["max"]);
  });

  it("may be personalised", () => {
    expect(inputFieldProblems(field({ type: "text", isPersonalised: true }))).toEqual({});
  });
});

describe("inputFieldProblems: password", () => {
  it("finds nothing wrong with a plain password field", () => {
    expect(inputFieldProblems(field({ type: "password" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "password", min: "8", max: "20" }))).toEqual({});
  });

  it("cannot be personalised", () => {
    const problems = inputFieldProblems(field({ type: "password", isPersonalised: true }));
    expect(Object.keys(problems)).toEqual(["is_personalised"]);
    expect(problems.is_personalised).toMatch(/password/);
  });

  it("bounds lengths like a text field", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "password", min: "x" })))).toEqual(["min"]);
    expect(Object.keys(inputFieldProblems(field({ type: "password", max: "-3" })))).toEqual(["max"]);
    expect(Object.keys(inputFieldProblems(field({ type: "password", min: "12", max: "8" })))).toEqual(["max"]);
  });

  it("limits a preset value to 50 characters", () => {
    expect(inputFieldProblems(field({ type: "password", value: "p".repeat(50) }))).toEqual({});
    expect(Object.keys(inputFieldProblems(field({ type: "password", value: "p".repeat(51) })))).toEqual(["value"]);
  });

  it("reports every problem at once", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "password", isPersonalised: true, value: "p".repeat(51), min: "a" }))).sort()).toEqual([
      "is_personalised",
      "min",
      "value",
    ]);
  });
});

describe("inputFieldProblems: select", () => {
  it("accepts comma-separated choices of 1-50 characters", () => {
    expect(inputFieldProblems(field({ type: "select", value: "S,M,L" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "select", value: "Only one" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "select", value: `${"a".repeat(50)},b` }))).toEqual({});
    expect(inputFieldProblems(field({ type: "select", value: "Vegetarian, Vegan , None" }))).toEqual({});
  });

  it("refuses a choice longer than 50 characters", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: `a,${"b".repeat(51)}` })))).toEqual(["value"]);
  });

  it.each(["", "a,,b", "a,", ",a", "a, ,b", "   "])("refuses an empty choice in %j", (value) => {
    expect(Object.keys(inputFieldProblems(field({ type: "select", value })))).toEqual(["value"]);
  });

  it("refuses a choice listed twice, also when only spacing differs, but not when the case differs", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: "a,b,a" })))).toEqual(["value"]);
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: "a, b,b " })))).toEqual(["value"]);
    expect(inputFieldProblems(field({ type: "select", value: "a,A" }))).toEqual({});
  });

  it("allows a value of up to 1000 characters in all, beyond the 50 of customer input", () => {
    const choices = (n: number, width: number) => Array.from({ length: n }, (_, i) => String(i).padStart(width, "0"));
    const exactly1000 = choices(100, 9).join(","); // 100 * 9 + 99 commas = 999
    expect(exactly1000.length).toBe(999);
    expect(inputFieldProblems(field({ type: "select", value: `${exactly1000}x` }))).toEqual({});
    expect(`${exactly1000}x`.length).toBe(1000);
    const tooLong = `${exactly1000}xy`;
    expect(tooLong.length).toBe(1001);
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: tooLong })))).toEqual(["value"]);
  });

  it("needs min and max empty", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: "a,b", min: "1" })))).toEqual(["min"]);
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: "a,b", max: "2" })))).toEqual(["max"]);
    expect(Object.keys(inputFieldProblems(field({ type: "select", value: "a,a", min: "1", max: "2" }))).sort()).toEqual(["max", "min", "value"]);
  });

  it("may be personalised", () => {
    expect(inputFieldProblems(field({ type: "select", value: "a,b", isPersonalised: true }))).toEqual({});
  });
});

describe("inputFieldProblems: date", () => {
  it("accepts real dates for min, max and value, with min up to max", () => {
    expect(inputFieldProblems(field({ type: "date" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "date", min: "2024-01-01", max: "2024-12-31", value: "2024-06-15" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "date", min: "2024-02-29", max: "2024-02-29" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "date", min: "1990-01-01" }))).toEqual({});
  });

  it.each(["2023-02-29", "2024-13-01", "2024-1-1", "10", "01-02-2024", "2024-01-01 00:00:00"])("refuses %j as min, max or value", (bad) => {
    expect(Object.keys(inputFieldProblems(field({ type: "date", min: bad })))).toEqual(["min"]);
    expect(Object.keys(inputFieldProblems(field({ type: "date", max: bad })))).toEqual(["max"]);
    expect(Object.keys(inputFieldProblems(field({ type: "date", value: bad })))).toEqual(["value"]);
  });

  it("refuses min after max", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "date", min: "2024-12-31", max: "2024-01-01" })))).toEqual(["max"]);
    expect(Object.keys(inputFieldProblems(field({ type: "date", min: "2025-01-01", max: "2024-12-31" })))).toEqual(["max"]);
  });

  it("may be personalised", () => {
    expect(inputFieldProblems(field({ type: "date", isPersonalised: true }))).toEqual({});
  });
});

describe("inputFieldProblems: time", () => {
  it("accepts HH:MM for min, max and value, with min up to max", () => {
    expect(inputFieldProblems(field({ type: "time" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "time", min: "09:00", max: "17:30", value: "12:00" }))).toEqual({});
    expect(inputFieldProblems(field({ type: "time", min: "10:00", max: "10:00" }))).toEqual({});
  });

  it.each(["24:00", "9:00", "09:00:00", "2024-01-01", "5", "noon"])("refuses %j as min, max or value", (bad) => {
    expect(Object.keys(inputFieldProblems(field({ type: "time", min: bad })))).toEqual(["min"]);
    expect(Object.keys(inputFieldProblems(field({ type: "time", max: bad })))).toEqual(["max"]);
    expect(Object.keys(inputFieldProblems(field({ type: "time", value: bad })))).toEqual(["value"]);
  });

  it("refuses min after max", () => {
    expect(Object.keys(inputFieldProblems(field({ type: "time", min: "18:00", max: "09:00" })))).toEqual(["max"]);
    expect(Object.keys(inputFieldProblems(field({ type: "time", min: "09:01", max: "09:00" })))).toEqual(["max"]);
  });

  it("may be personalised", () => {
    expect(inputFieldProblems(field({ type: "time", isPersonalised: true }))).toEqual({});
  });
});
