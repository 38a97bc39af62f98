import { isEmailAddress } from "./email-address";
import { type InputFieldSpec, isLegalFieldValue } from "./input-field-rules";
import { isLegalCount } from "./ticket-counts";

/**
 * What the shop page's script can tell before the form is sent (decisions.md 15 "The box office": inline checks),
 * each by the rule the order itself applies (domain/), answered as the error code the service would answer, so the
 * page shows the text of that code in its language (src/features/shop/script-messages.tsx). The service checks
 * everything again; these only spare the customer a round trip.
 */

/** The codes these checks answer: the page carries their texts (src/features/shop/script-messages.tsx lists them). */
export type CheckCode =
  | "order_missing_input"
  | "order_invalid_email"
  | "order_no_tickets"
  | "order_wrong_amount"
  | "order_stock_unavailable"
  | "order_required_fields"
  | "order_illegal_field_value"
  | "order_terms_not_accepted"
  | "order_invalid_event_ids";

/** Name (domain/order-rules.ts checkOrderer): present. */
export function nameProblem(name: string): CheckCode | null {
  return name.trim() === "" ? "order_missing_input" : null;
}

/** Email (checkOrderer): present, of the shape the service accepts (domain/email-address.ts). */
export function emailProblem(email: string): CheckCode | null {
  const e = email.trim();
  if (e === "") return "order_missing_input";
  return isEmailAddress(e) ? null : "order_invalid_email";
}

export interface CountLimits {
  /** The type's `minimum_to_order`. */
  minimum: number;
  /** The type's `maximum_to_order` (0: none). */
  maximum: number;
  /** What is left of the type when the page shows it, else null. */
  remaining: number | null;
}

/** One type's count (domain/ticket-counts.ts): a whole number, none or within the type's limits, not above what is left. */
export function countProblem(text: string, limits: CountLimits): CheckCode | null {
  const t = text.trim();
  if (t === "") return null;
  if (!/^\d{1,6}$/.test(t)) return "order_wrong_amount";
  const count = Number(t);
  if (!isLegalCount(count, limits.minimum, limits.maximum)) return "order_wrong_amount";
  if (limits.remaining !== null && count > limits.remaining) return "order_stock_unavailable";
  return null;
}

/** An order-level input field's answer (domain/input-field-rules.ts): given when required, legal when given. */
export function fieldProblem(field: Pick<InputFieldSpec, "type" | "value" | "min" | "max">, value: string, required: boolean): CheckCode | null {
  const v = value.trim();
  if (v === "") return required ? "order_required_fields" : null;
  return isLegalFieldValue(field, v) ? null : "order_illegal_field_value";
}
