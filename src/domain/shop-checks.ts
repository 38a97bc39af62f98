import { CODE } from "./error-codes";
import { isEmailAddress } from "./email-address";
import { type InputFieldSpec, isLegalFieldValue } from "./input-field-rules";
import { isLegalCount } from "./ticket-counts";

/**
 * What the shop page's script can tell before the form is sent (decisions.md 15 "The box office": inline checks),
 * each by the rule the order itself applies (domain/), answered as the error code the service would answer, so the
 * page shows the text of that code in its language (src/features/shop/script-messages.tsx). The service checks
 * everything again; these only spare the customer a round trip.
 */

/** The codes these checks answer: the page carries their texts (src/features/shop/script-messages.tsx). */
export const CHECK_CODES = [
  CODE.order_missing_input,
  CODE.order_invalid_email,
  CODE.order_no_tickets,
  CODE.order_wrong_amount,
  CODE.order_stock_unavailable,
  CODE.order_required_fields,
  CODE.order_illegal_field_value,
  CODE.order_terms_not_accepted,
  CODE.order_invalid_event_ids,
] as const;
export type CheckCode = (typeof CHECK_CODES)[number];

/** Name (domain/order-rules.ts checkOrderer): present. */
export function nameProblem(name: string): CheckCode | null {
  return name.trim() === "" ? CODE.order_missing_input : null;
}

/** Email (checkOrderer): present, of the shape the service accepts (domain/email-address.ts). */
export function emailProblem(email: string): CheckCode | null {
  const e = email.trim();
  if (e === "") return CODE.order_missing_input;
  return isEmailAddress(e) ? null : CODE.order_invalid_email;
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
  if (!/^\d{1,6}$/.test(t)) return CODE.order_wrong_amount;
  const count = Number(t);
  if (!isLegalCount(count, limits.minimum, limits.maximum)) return CODE.order_wrong_amount;
  if (limits.remaining !== null && count > limits.remaining) return CODE.order_stock_unavailable;
  return null;
}

/** An order-level input field's answer (domain/input-field-rules.ts): given when required, legal when given. */
export function fieldProblem(field: Pick<InputFieldSpec, "type" | "value" | "min" | "max">, value: string, required: boolean): CheckCode | null {
  const v = value.trim();
  if (v === "") return required ? CODE.order_required_fields : null;
  return isLegalFieldValue(field, v) ? null : CODE.order_illegal_field_value;
}

/** Terms (customer-orders.service.ts): an event with terms needs them accepted. */
export function termsProblem(accepted: boolean): CheckCode | null {
  return accepted ? null : CODE.order_terms_not_accepted;
}

/** A group's dates (customer-orders.service.ts chosenEvents): at least one chosen. */
export function datesProblem(anyChosen: boolean): CheckCode | null {
  return anyChosen ? null : CODE.order_invalid_event_ids;
}

/** The whole order (domain/order-rules.ts): at least one ticket. */
export function ticketsProblem(totalCount: number): CheckCode | null {
  return totalCount > 0 ? null : CODE.order_no_tickets;
}
