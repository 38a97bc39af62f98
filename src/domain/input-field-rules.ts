import type { InputFieldType } from "../db/schema";

/** What an input field may hold, by type (decisions.md section 13). Plain rules, no storage. */

export interface InputFieldSpec {
  type: InputFieldType;
  value: string;
  min: string;
  max: string;
  isPersonalised: boolean;
}

export const MAX_CUSTOMER_INPUT = 50;
const MAX_SELECT_VALUE = 1000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const LENGTH = /^(0|[1-9]\d{0,3})$/;

export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

export function isTime(s: string): boolean {
  return TIME.test(s);
}

/** The choices of a select field: its comma-separated `value`, trimmed. */
export function selectChoices(value: string): string[] {
  return value.split(",").map((s) => s.trim());
}

/** Problems keyed by field name; empty when the field is consistent. */
export function inputFieldProblems(f: InputFieldSpec): Record<string, string> {
  const problems: Record<string, string> = {};
  if (f.type === "password" && f.isPersonalised) problems.is_personalised = "a password field cannot be personalised";

  if (f.type === "select") {
    const choices = selectChoices(f.value);
    if (f.value.length > MAX_SELECT_VALUE) problems.value = `must be at most ${MAX_SELECT_VALUE} characters`;
    else if (choices.some((c) => c.length < 1 || c.length > MAX_CUSTOMER_INPUT)) problems.value = `each choice must be 1-${MAX_CUSTOMER_INPUT} characters`;
    else if (new Set(choices).size !== choices.length) problems.value = "must not list a choice twice";
    if (f.min !== "") problems.min = "must be empty for a select field";
    if (f.max !== "") problems.max = "must be empty for a select field";
    return problems;
  }

  if (f.value.length > MAX_CUSTOMER_INPUT) problems.value = `must be at most ${MAX_CUSTOMER_INPUT} characters`;
  // text and password bound the length; date and time bound the value itself, in the field's own format.
  const valid = f.type === "date" ? isDate : f.type === "time" ? isTime : (s: string) => LENGTH.test(s);
  const what = f.type === "date" ? "a date YYYY-MM-DD" : f.type === "time" ? "a time HH:MM" : "a whole number (a length)";
  for (const key of ["min", "max"] as const) {
    if (f[key] !== "" && !valid(f[key])) problems[key] = `must be empty or ${what}`;
  }
  if (!problems.min && !problems.max && f.min !== "" && f.max !== "") {
    const below = f.type === "text" || f.type === "password" ? Number(f.max) < Number(f.min) : f.max < f.min;
    if (below) problems.max = "must not be below min";
  }
  if ((f.type === "date" || f.type === "time") && f.value !== "" && !valid(f.value)) problems.value = `must be empty or ${what}`;
  return problems;
}

/**
 * A customer's answer legal for an order-level field (decisions.md 13): at most MAX_CUSTOMER_INPUT characters, one of
 * a select's choices, a date or time within min and max, else a text whose length is within them. The order checks
 * answers with it, and the shop page's script (src/shop-app) before the form is sent.
 */
export function isLegalFieldValue(field: Pick<InputFieldSpec, "type" | "value" | "min" | "max">, value: string): boolean {
  if (value.length > MAX_CUSTOMER_INPUT) return false;
  switch (field.type) {
    case "select":
      return selectChoices(field.value).includes(value);
    case "date":
      return isDate(value) && (field.min === "" || value >= field.min) && (field.max === "" || value <= field.max);
    case "time":
      return isTime(value) && (field.min === "" || value >= field.min) && (field.max === "" || value <= field.max);
    default:
      return (field.min === "" || value.length >= Number(field.min)) && (field.max === "" || value.length <= Number(field.max));
  }
}
