/**
 * Every error code the service answers with, its HTTP status and its default message: the one place a code is
 * written (decisions.md 3 fixes the envelope `{code, message, data}` and the `rest_*` codes, 5.4 and 13 "Orders"
 * the order and coupon codes with their texts; the rest are decided in the sections cited). Callers never write a
 * code: they call its factory in errors.ts (`fail.order_no_seats()`, `invalidId("event")`), which takes the status
 * from here and the default message unless the caller's text is more precise. Plain data, no imports.
 *
 * A code answers with one status. Where the spec documents a second status for the same code, the entry says so
 * under `also`, with the case and its reason; a factory may pick only the statuses listed.
 */

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 502 | 503;

interface ErrorEntry {
  readonly status: ErrorStatus;
  readonly message: string;
  /** A second status the same code answers with, and when (the spec documents both). */
  readonly also?: Readonly<Partial<Record<ErrorStatus, string>>>;
  /** The statuses of exceptions thrown without a code (Hono's own: bodies it cannot parse, body limits) answered under this code. */
  readonly fallbackFor?: readonly number[];
}

export const ERROR_CODES = {
  // The wire conventions (decisions.md 3).
  rest_no_route: {
    status: 404,
    message: "No route was found matching the URL and request method.",
    also: { 405: "Hono's own 405 keeps its status under the code of an unknown route (http/errors.ts)." },
    fallbackFor: [404, 405],
  },
  rest_invalid_param: { status: 400, message: "Invalid parameter(s).", fallbackFor: [400] },
  rest_missing_callback_param: { status: 400, message: "Missing parameter(s)." },
  rest_invalid_json: { status: 400, message: "The request body is not valid JSON." },
  rest_forbidden: { status: 403, message: "Sorry, you are not allowed to do that.", fallbackFor: [403] },
  rest_not_logged_in: { status: 401, message: "You are not currently logged in.", fallbackFor: [401] },
  rest_conflict: { status: 409, message: "The request conflicts with the resource as it is now.", fallbackFor: [409] },
  rest_payload_too_large: { status: 413, message: "The request body is too large.", fallbackFor: [413] },
  rest_unsupported_media_type: { status: 415, message: "The request body has an unsupported media type.", fallbackFor: [415] },
  rest_too_many_requests: { status: 429, message: "Too many requests; try again later.", fallbackFor: [429] },
  rest_internal_error: { status: 500, message: "The service could not complete the request." },
  // Overload, whatever was busy (decisions.md 15 "Trust, second round").
  rest_overloaded: { status: 503, message: "The service is receiving more requests than it can answer right now; try again in a few seconds." },

  // Credentials (decisions.md 2, 13 "Authority and roles").
  incorrect_password: { status: 401, message: "The provided username or password is incorrect." },
  rest_forbidden_api_key: { status: 401, message: "Invalid API key." },
  rest_application_password_not_found: { status: 404, message: "Application password does not exist" },

  // Idempotency-Key (decisions.md 13 "Orders", 14 "Contract details integrators hit").
  idempotency_in_progress: { status: 409, message: "A request with this Idempotency-Key is still being processed." },
  idempotency_key_reused: { status: 409, message: "This Idempotency-Key was used with a different request body." },

  // Order rules, with the texts of decisions.md 5.4 and the codes of 13 "Orders": a 400, stock a 409.
  order_missing_input: { status: 400, message: "Mandatory input not available" },
  order_invalid_email: { status: 400, message: "Invalid emailaddress" },
  order_name_too_long: { status: 400, message: "Name is too long (Max 50 chars)" },
  order_email_too_long: { status: 400, message: "Emailaddress is too long (Max 100 chars)" },
  order_terms_not_accepted: { status: 400, message: "You must agree to the terms" },
  order_captcha_failed: { status: 400, message: "Wrong reCAPTCHA" },
  order_event_inactive: { status: 400, message: "The event is not active" },
  order_invalid_event_ids: { status: 400, message: "Invalid event ids" },
  order_missing_ticket_type: { status: 400, message: "Missing ticket type" },
  order_no_tickets: { status: 400, message: "No tickets ordered" },
  order_wrong_amount: { status: 400, message: "Wrong amount for this ticket type" },
  order_required_fields: { status: 400, message: "Required extra input fields not available" },
  order_illegal_field_value: { status: 400, message: "Illegal value extra input field" },
  order_already_ordered: {
    status: 400,
    message: "You already have a booking/order",
    also: {
      409: "Changing an order's email to one whose claim another live order holds: the D1 claim refuses the change (decisions.md 13 'Orders', enforced in the batch).",
    },
  },
  order_not_allowed: { status: 400, message: "You are not allowed to book/order" },
  order_max_tickets: { status: 400, message: "You can book no more tickets" },
  order_stock_unavailable: { status: 409, message: "Not enough stock available for this ticket type" },
  order_event_stock_unavailable: { status: 409, message: "No more stock available for this event" },
  order_linked_stock_unavailable: { status: 409, message: "Not enough stock for the linked event" },
  order_no_seats: { status: 409, message: "No more seats available" },
  order_no_child_events: { status: 400, message: "No child events found for passe-partout" },
  order_event_not_found: {
    status: 400,
    message: "Event does not exist",
    also: {
      409: "Issuing an order's tickets again once its event is gone: a conflict with the order as it is, not a bad body (the reissue route's table, decisions.md 7).",
    },
  },
  order_dashboard_disabled: { status: 400, message: "Dashboard orders are not enabled for this event" },
  order_too_many_open: { status: 429, message: "You already have orders waiting for payment" },
  order_payment_unavailable: { status: 502, message: "The payment provider could not start a checkout; please try again." },
  // An order's tickets and refunds (decisions.md 7, 10).
  order_not_final: { status: 409, message: "The order is not final; it has no tickets to issue." },
  order_tickets_exist: { status: 409, message: "The order already has tickets; delete them before issuing new ones." },
  order_ticket_type_gone: { status: 409, message: "A ticket type of the order no longer exists; its tickets cannot be issued." },
  order_not_paid: { status: 409, message: "Order status is not set to 'paid'" },

  // Coupons (decisions.md 5.4).
  coupon_not_found: { status: 400, message: "Coupon code not found" },
  coupon_not_active: { status: 400, message: "The discount code is not yet active" },
  coupon_expired: { status: 400, message: "The discount code has expired" },
  coupon_usage_limit: { status: 400, message: "The maximum number of times the discount code can be used has been reached" },
  coupon_wrong_email: { status: 400, message: "This discount code is linked to another email address" },
  coupon_wrong_event: { status: 400, message: "This discount code is not linked to this event" },
  coupon_min_tickets: { status: 400, message: "This discount code requires more tickets" },
  coupon_max_tickets: { status: 400, message: "This discount code allows fewer tickets" },
  coupon_min_amount: { status: 400, message: "A higher amount is required for this discount code" },
  coupon_max_amount: { status: 400, message: "A lower amount is allowed for this discount code" },

  // Payments (decisions.md 14, 15 "Payments are matched, not trusted").
  rest_payment_unavailable: { status: 503, message: "No payment provider is configured" },
  payment_signature_invalid: { status: 400, message: "The Stripe-Signature header does not verify this body." },
  payment_provider_unavailable: { status: 503, message: "The payment provider could not be reached to check the payment; send the notice again later." },

  // The waiting list (decisions.md 15 "Selling like the peers").
  waiting_list_closed: { status: 400, message: "This event has no waiting list" },
  waiting_list_not_sold_out: { status: 409, message: "Tickets of this type are still on sale: order them instead" },
  waiting_list_duplicate: { status: 409, message: "This email is already on the waiting list for this ticket type" },
  waiting_list_offer_invalid: { status: 409, message: "This offer has expired or has been used" },

  // Tickets and invoices (decisions.md 7).
  tickets_not_found: { status: 404, message: "This order has no tickets (yet)." },
  tickets_not_personalised: { status: 409, message: "Every ticket must be personalised before the tickets can be downloaded." },
  ticket_already_personalised: { status: 409, message: "The ticket is already personalised." },
  rest_invoice_not_available: { status: 404, message: "There is no invoice for this order." },

  // Wallet passes (decisions.md 15 "Wallet passes").
  wallet_not_configured: { status: 404, message: "Wallet passes of this kind are not configured on this service." },

  // Scanning (decisions.md 6, 13 "Tickets, scans, messages").
  scan_ticket_not_found: { status: 404, message: "Ticket not found" },
  scan_list_too_large: { status: 400, message: "The list holds more tickets than one answer carries: ask for it in pages." },
} as const satisfies Record<string, ErrorEntry>;

export type RegisteredCode = keyof typeof ERROR_CODES;

/** The statuses a registered code may answer with: its own, and those its entry lists under `also`. */
export type StatusOf<C extends RegisteredCode> =
  | (typeof ERROR_CODES)[C]["status"]
  | ((typeof ERROR_CODES)[C] extends { also: infer A } ? Extract<keyof A, ErrorStatus> : never);

/**
 * The resources a path id names (decisions.md 3: `rest_<resource>_invalid_id`, 404): the family of codes stays
 * enumerable. The validators (http/validate.ts) and the services name only these.
 */
export const ID_RESOURCES = [
  "application_password",
  "coupon",
  "email",
  "emaillist",
  "event",
  "input_field",
  "log",
  "order",
  "pdf_template",
  "scan_key",
  "ticket",
  "ticket_type",
  "user",
  "waiting_list_entry",
  "webhook",
  "webhook_delivery",
] as const;
export type IdResource = (typeof ID_RESOURCES)[number];
/** The invalid-id code of some resources; spelt here once, as the rest of the family. */
export type InvalidIdCodeOf<R extends IdResource> = `rest_${R}_invalid_id`;
export type InvalidIdCode = InvalidIdCodeOf<IdResource>;
export const INVALID_ID_STATUS = 404;
export const invalidIdCode = (resource: IdResource): InvalidIdCode => `rest_${resource}_invalid_id`;

export type ErrorCode = RegisteredCode | InvalidIdCode;

/** The status a code answers with (its entry's own; `also` statuses are chosen by the caller that needs one). */
export function codeToStatus(code: ErrorCode): ErrorStatus {
  return code in ERROR_CODES ? ERROR_CODES[code as RegisteredCode].status : INVALID_ID_STATUS;
}

/** The code an exception thrown without one is answered under, by its status (decisions.md 3); none for others. */
export function codeOfStatus(status: number): RegisteredCode | undefined {
  for (const [code, entry] of Object.entries(ERROR_CODES) as [RegisteredCode, ErrorEntry][]) if (entry.fallbackFor?.includes(status)) return code;
  return undefined;
}

/**
 * Each registered code by name, for the code that must name one without making an error: a browser script that
 * answers the code the service would (domain/shop-checks.ts). `CODE.order_no_tickets` is the string
 * "order_no_tickets", written once, as the registry's key.
 */
export const CODE = Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code, code])) as { readonly [C in RegisteredCode]: C };
