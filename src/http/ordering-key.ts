import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { matchesAnySecret } from "../lib/crypto";
import type { AppEnv } from "./context";
import { depsOf } from "./deps";
import { invalidApiKey } from "../domain/errors";
import { documented } from "./route-docs";

/**
 * The order form and customer orders take the service key or the publishable `ORDERING_KEY` a browser shop front
 * carries (decisions.md 13); nothing else accepts the latter.
 */
export const requireOrderingKey: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    const sent = c.req.header("X-EVT-API-KEY");
    const { apiKeys, orderingKey } = depsOf(c).config;
    if (!sent) throw invalidApiKey();
    // The API key wins when both match: a shop's own server is never limited as a browser would be.
    if (await matchesAnySecret(sent, apiKeys)) c.set("shopKey", "api");
    else if (orderingKey && (await matchesAnySecret(sent, [orderingKey]))) c.set("shopKey", "ordering");
    else throw invalidApiKey();
    await next();
  },
  { errors: { "401": "`rest_forbidden_api_key`: `X-EVT-API-KEY` is missing, or is neither the service key nor the ordering key." } },
);

/** CORS for the shop-front routes: only the origins in `CORS_ORIGINS`; preflights answer 204 without a key. */
export const shopFrontCors: MiddlewareHandler<AppEnv> = (c, next) =>
  cors({
    origin: (origin) => (depsOf(c).config.corsOrigins.includes(origin) ? origin : null),
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["Content-Type", "X-EVT-API-KEY", "Idempotency-Key", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id", "Location"],
    maxAge: 600,
  })(c, next);
