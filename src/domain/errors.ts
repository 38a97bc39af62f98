import { codeOfStatus, ERROR_CODES, INVALID_ID_STATUS, type IdResource, invalidIdCode, type RegisteredCode, type StatusOf } from "./error-codes";

/**
 * The one error type of the service, with the HTTP status and code decisions.md section 3 gives each failure. Rules,
 * services and middleware throw it, made only by the factories below from the registry (domain/error-codes.ts);
 * `http/errors.ts` renders it as the envelope `{code, message, data}`. Plain data: no framework types, so every
 * layer may throw it.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly params?: Record<string, string>,
    readonly headers?: Record<string, string>,
    readonly subject?: ErrorSubject,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * What an order rule's failure is about, for a form that shows each error beside its input (decisions.md 15 "The
 * box office"): a ticket type's id or an input field's id. Never part of the JSON envelope the API answers.
 */
export interface ErrorSubject {
  ticketType?: string;
  field?: string;
  /** The order's own inputs it is about, by their names in the order body (`name`, `email`, `terms_accepted`, `event_ids`). */
  input?: readonly OrderInput[];
}

type OrderInput = "name" | "email" | "terms_accepted" | "event_ids";

/** What a factory may add to a code's answer: its field messages, headers, a status its entry lists under `also`, or what it is about. */
interface FailureOptions<C extends RegisteredCode> {
  params?: Record<string, string>;
  headers?: Record<string, string>;
  status?: StatusOf<C>;
  subject?: ErrorSubject;
}

type Factory<C extends RegisteredCode> = (message?: string, options?: FailureOptions<C>) => ApiError;

/**
 * One factory per registered code (domain/error-codes.ts): the status comes from the registry, the message is the
 * registry's default unless the caller's text is more precise. `throw fail.order_no_seats()`.
 */
export const fail = Object.fromEntries(
  (Object.keys(ERROR_CODES) as RegisteredCode[]).map((code) => [
    code,
    (message?: string, options?: FailureOptions<RegisteredCode>) =>
      new ApiError(options?.status ?? ERROR_CODES[code].status, code, message ?? ERROR_CODES[code].message, options?.params, options?.headers, options?.subject),
  ]),
) as { readonly [C in RegisteredCode]: Factory<C> };

export const noRoute = () => fail.rest_no_route();

/** `rest_<resource>_invalid_id`: a path id that does not exist (or that the caller may not know of). */
export const invalidId = (resource: IdResource, message = `Invalid ${resource.replace(/_/g, " ")} ID.`) =>
  new ApiError(INVALID_ID_STATUS, invalidIdCode(resource), message);

export const invalidParams = (params: Record<string, string>, message = `Invalid parameter(s): ${Object.keys(params).join(", ")}`) =>
  fail.rest_invalid_param(message, { params });

export const missingParams = (params: Record<string, string>) => fail.rest_missing_callback_param(`Missing parameter(s): ${Object.keys(params).join(", ")}`, { params });

export const invalidJson = (message?: string) => fail.rest_invalid_json(message);

export const forbidden = (message?: string) => fail.rest_forbidden(message);

export const conflict = (message: string) => fail.rest_conflict(message);

export const payloadTooLarge = (limitBytes: number) => fail.rest_payload_too_large(`The request body is larger than ${limitBytes} bytes.`);

export const unsupportedMediaType = (expected: string) => fail.rest_unsupported_media_type(`The request body must be ${expected}.`);

/** A 429 says when to come back (decisions.md 3: `Retry-After`, in seconds). */
export const tooManyRequests = (retryAfterSeconds: number, message?: string) =>
  fail.rest_too_many_requests(message, { headers: { "Retry-After": String(retryAfterSeconds) } });

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="ticketing"' };

export const notLoggedIn = () => fail.rest_not_logged_in(undefined, { headers: BASIC_CHALLENGE });

export const incorrectPassword = () => fail.incorrect_password(undefined, { headers: BASIC_CHALLENGE });

/**
 * The console's sign-in and session answers carry no Basic challenge: a browser seeing `WWW-Authenticate: Basic`
 * on a script's call would open its own password dialog over the console (decisions.md 15 "The organiser console").
 */
export const consoleIncorrectPassword = () => fail.incorrect_password();

export const consoleSessionEnded = () => fail.rest_not_logged_in("The console session has ended; sign in again.");

export const invalidApiKey = (message?: string) => fail.rest_forbidden_api_key(message);

/**
 * Overload (decisions.md 15): a `503` with `Retry-After`, whatever was busy (an event's object, or the database)
 * and whichever route asked, never a bare `500`. The wait is jittered over 1 to 5 seconds so that the clients
 * turned away together do not return together (docs/scale.md "Above it").
 */
export function overloaded(what: "event" | "database"): ApiError {
  const seconds = 1 + Math.floor(Math.random() * 5);
  const busy = what === "event" ? "This event is" : "The service is";
  return fail.rest_overloaded(`${busy} receiving more requests than it can answer right now; try again in a few seconds.`, {
    headers: { "Retry-After": String(seconds) },
  });
}

export const internalError = () => fail.rest_internal_error();

/** An exception thrown without a code (Hono's own), under the code its status falls back to; none for other statuses. */
export function fallbackError(status: number, message: string): ApiError | null {
  const code = codeOfStatus(status);
  return code ? new ApiError(status, code, message) : null;
}
