/**
 * The one error type of the service, with the HTTP status and code decisions.md section 3 gives each failure. Rules,
 * services and middleware throw it; `http/errors.ts` renders it as the envelope `{code, message, data}`. Plain
 * data: no framework types, so every layer may throw it.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly params?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const noRoute = () => new ApiError(404, "rest_no_route", "No route was found matching the URL and request method.");

/** `rest_<resource>_invalid_id`: a path id that does not exist (or that the caller may not know of). */
export const invalidId = (resource: string) => new ApiError(404, `rest_${resource}_invalid_id`, `Invalid ${resource.replace(/_/g, " ")} ID.`);

export const invalidParams = (params: Record<string, string>) =>
  new ApiError(400, "rest_invalid_param", `Invalid parameter(s): ${Object.keys(params).join(", ")}`, params);

export const missingParams = (params: Record<string, string>) =>
  new ApiError(400, "rest_missing_callback_param", `Missing parameter(s): ${Object.keys(params).join(", ")}`, params);

export const invalidJson = (message = "The request body is not valid JSON.") => new ApiError(400, "rest_invalid_json", message);

export const forbidden = (message = "Sorry, you are not allowed to do that.") => new ApiError(403, "rest_forbidden", message);

export const conflict = (message: string, code = "rest_conflict") => new ApiError(409, code, message);

export const payloadTooLarge = (limitBytes: number) => new ApiError(413, "rest_payload_too_large", `The request body is larger than ${limitBytes} bytes.`);

export const unsupportedMediaType = (expected: string) => new ApiError(415, "rest_unsupported_media_type", `The request body must be ${expected}.`);

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="ticketing"' };

export const notLoggedIn = () => new ApiError(401, "rest_not_logged_in", "You are not currently logged in.", undefined, BASIC_CHALLENGE);

export const incorrectPassword = () => new ApiError(401, "incorrect_password", "The provided username or password is incorrect.", undefined, BASIC_CHALLENGE);

export const invalidApiKey = (message = "Invalid API key.") => new ApiError(401, "rest_forbidden_api_key", message);

/**
 * Overload (decisions.md 15): a `503` with `Retry-After`, whatever was busy (an event's object, or the database)
 * and whichever route asked, never a bare `500`. The wait is jittered over 1 to 5 seconds so that the clients
 * turned away together do not return together (docs/scale.md "Above it").
 */
export function overloaded(what: "event" | "database"): ApiError {
  const seconds = 1 + Math.floor(Math.random() * 5);
  const busy = what === "event" ? "This event is" : "The service is";
  return new ApiError(503, "rest_overloaded", `${busy} receiving more requests than it can answer right now; try again in a few seconds.`, undefined, {
    "Retry-After": String(seconds),
  });
}

export const internalError = () => new ApiError(500, "rest_internal_error", "The service could not complete the request.");
