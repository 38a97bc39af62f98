import { HTTPException } from "hono/http-exception";
import { ApiError, fallbackError, invalidJson, overloaded } from "../domain/errors";
import { isD1Overloaded } from "../db/client";

// The wire side of errors: whatever was thrown, as the envelope of decisions.md section 3.

/**
 * What was too busy to answer, if that is why `err` was thrown: an event's object throws an error marked
 * `overloaded` (which Cloudflare says not to retry at once), D1 says `D1 DB is overloaded` (db/client.ts).
 */
export function overloadOf(err: unknown): "event" | "database" | null {
  if (typeof err === "object" && err !== null && (err as { overloaded?: unknown }).overloaded === true) return "event";
  return isD1Overloaded(err) ? "database" : null;
}

/**
 * Maps what was thrown to an ApiError. Hono's own exceptions (malformed JSON, body limits) keep their status
 * under our codes; anything else is an unexpected failure and becomes a bare 500 (the caller logs it).
 */
export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  const busy = overloadOf(err);
  if (busy) return overloaded(busy);
  if (err instanceof HTTPException) {
    if (err.status === 400 && /json/i.test(err.message)) return invalidJson();
    // Hono's own exceptions keep their status under the codes of decisions.md section 3 (domain/error-codes.ts).
    return fallbackError(err.status, err.message || "The request could not be processed.");
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
