import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { bodyLimit } from "hono/body-limit";
import { log } from "../lib/log";
import type { AppEnv } from "./context";
import { payloadTooLarge } from "../domain/errors";

const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is a sane token), echoes it on the response,
 * and writes one access-log line. The log names the route pattern, not the path: paths carry capability keys.
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sent = c.req.header("X-Request-Id");
  const requestId = sent && SAFE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
  c.set("requestId", requestId);
  const started = Date.now();
  await next();
  c.res.headers.set("X-Request-Id", requestId);
  log("info", "request", {
    request_id: requestId,
    method: c.req.method,
    route: routePath(c),
    status: c.res.status,
    duration_ms: Date.now() - started,
    user_id: c.var.user?.id,
  });
};

const JSON_BODY_LIMIT = 1024 * 1024;
const UPLOAD_BODY_LIMIT = 10 * 1024 * 1024;

const jsonLimit = bodyLimit({
  maxSize: JSON_BODY_LIMIT,
  onError: () => {
    throw payloadTooLarge(JSON_BODY_LIMIT);
  },
});
const uploadLimit = bodyLimit({
  maxSize: UPLOAD_BODY_LIMIT,
  onError: () => {
    throw payloadTooLarge(UPLOAD_BODY_LIMIT);
  },
});

/**
 * Uploads (multipart) may be up to 10 MiB; every other body up to 1 MiB. A GET or HEAD has no body to limit
 * (and Hono's limiter, seeing a `Transfer-Encoding` header, would rebuild it with one, which the runtime refuses).
 */
export const bodyLimits: MiddlewareHandler<AppEnv> = (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const multipart = (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data");
  return (multipart ? uploadLimit : jsonLimit)(c, next);
};
