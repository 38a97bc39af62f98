import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type of the service. Routes, services and middleware throw it; `renderError` turns it into the
 * WordPress-style envelope `{code, message, data: {status, params?}}` of decisions.md section 3.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
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
export const invalidId = (resource: string) =>
  new ApiError(404, `rest_${resource}_invalid_id`, `Invalid ${resource.replace(/_/g, " ")} ID.`);

export const invalidParams = (params: Record<string, string>) =>
  new ApiError(400, "rest_invalid_param", `Invalid parameter(s): ${Object.keys(params).join(", ")}`, params);

export const missingParams = (params: Record<string, string>) =>
  new ApiError(400, "rest_missing_callback_param", `Missing parameter(s): ${Object.keys(params).join(", ")}`, params);

export const invalidJson = (message = "The request body is not valid JSON.") => new ApiError(400, "rest_invalid_json", message);

export const forbidden = (message = "Sorry, you are not allowed to do that.") => new ApiError(403, "rest_forbidden", message);

export const conflict = (message: string, code = "rest_conflict") => new ApiError(409, code, message);

export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, "rest_payload_too_large", `The request body is larger than ${limitBytes} bytes.`);

export const unsupportedMediaType = (expected: string) =>
  new ApiError(415, "rest_unsupported_media_type", `The request body must be ${expected}.`);

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="ticketing"' };

export const notLoggedIn = () =>
  new ApiError(401, "rest_not_logged_in", "You are not currently logged in.", undefined, BASIC_CHALLENGE);

export const incorrectPassword = () =>
  new ApiError(401, "incorrect_password", "The provided username or password is incorrect.", undefined, BASIC_CHALLENGE);

export const invalidApiKey = (message = "Invalid API key.") => new ApiError(401, "rest_forbidden_api_key", message);

export const internalError = () => new ApiError(500, "rest_internal_error", "The service could not complete the request.");

const CODE_OF_STATUS: Partial<Record<number, string>> = {
  400: "rest_invalid_param",
  401: "rest_not_logged_in",
  403: "rest_forbidden",
  404: "rest_no_route",
  405: "rest_no_route",
  409: "rest_conflict",
  413: "rest_payload_too_large",
  415: "rest_unsupported_media_type",
  429: "rest_too_many_requests",
};

/**
 * Maps what was thrown to an ApiError. Hono's own exceptions (malformed JSON, body limits) keep their status
 * under our codes; anything else is an unexpected failure and becomes a bare 500 (the caller logs it).
 */
export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 400 && /json/i.test(err.message)) return invalidJson();
    const code = CODE_OF_STATUS[err.status];
    if (code) return new ApiError(err.status as ContentfulStatusCode, code, err.message || "The request could not be processed.");
  }
  return null;
}

export function errorBody(err: ApiError) {
  return {
    code: err.code,
    message: err.message,
    data: err.params ? { status: err.status, params: err.params } : { status: err.status },
  };
}

export function renderError(err: ApiError): Response {
  return new Response(JSON.stringify(errorBody(err)), {
    status: err.status,
    headers: { "Content-Type": "application/json; charset=UTF-8", ...err.headers },
  });
}
