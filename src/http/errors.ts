import { HTTPException } from "hono/http-exception";
import { ApiError, invalidJson } from "../domain/errors";

// The wire side of errors: whatever was thrown, as the envelope of decisions.md section 3.

/** Hono's own exceptions keep their status under the codes of decisions.md section 3. */
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
 * A Durable Object (an event's object) that cannot keep up throws an error marked `overloaded`, which Cloudflare
 * says not to retry at once: the client is told to come back after a few seconds, jittered so that the clients
 * turned away together do not return together (docs/scale.md "Above it").
 */
export function isOverloaded(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { overloaded?: unknown }).overloaded === true;
}

function overloaded(): ApiError {
  const seconds = 1 + Math.floor(Math.random() * 5);
  return new ApiError(503, "rest_overloaded", "This event is receiving more requests than it can answer right now; try again in a few seconds.", undefined, {
    "Retry-After": String(seconds),
  });
}

/**
 * Maps what was thrown to an ApiError. Hono's own exceptions (malformed JSON, body limits) keep their status
 * under our codes; anything else is an unexpected failure and becomes a bare 500 (the caller logs it).
 */
export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (isOverloaded(err)) return overloaded();
  if (err instanceof HTTPException) {
    if (err.status === 400 && /json/i.test(err.message)) return invalidJson();
    const code = CODE_OF_STATUS[err.status];
    if (code) return new ApiError(err.status, code, err.message || "The request could not be processed.");
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
