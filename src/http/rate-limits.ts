import type { MiddlewareHandler } from "hono";
import { loadConfig } from "../config";
import type { Env } from "../env";
import type { AppEnv } from "./context";
import { type ApiError, tooManyRequests } from "../domain/errors";
import { documented } from "./route-docs";

/**
 * Rate limits through the Workers rate-limiting bindings (wrangler.toml). They protect the public, not the
 * integrator (decisions.md 14): customer orders per client address only when a browser sent the publishable
 * ordering key, scans per scan key (3,000 a minute, decisions.md 15) and the offline sync per scan key apart from
 * them, failed logins per address and per address plus username, never per username
 * alone (anyone could lock the administrator out). Every binding counts in 60-second windows, so a refusal says to
 * come back when the window turns (`Retry-After`). The var `RATE_LIMITS=off` turns them off.
 */

const PERIOD_S = 60;

function rateLimited(nowMs = Date.now()): ApiError {
  const retryAfter = PERIOD_S - (Math.floor(nowMs / 1000) % PERIOD_S);
  return tooManyRequests(retryAfter);
}

/** The address Cloudflare saw the client at ("" when unknown, as in local development). */
export function clientAddress(c: { req: { header(name: string): string | undefined } }): string {
  return c.req.header("CF-Connecting-IP") ?? "";
}

function enabled(env: Env): boolean {
  return loadConfig(env).rateLimits;
}

/** Counts one request against `binding` under `key`; a request over the limit is a 429. */
async function spend(env: Env, binding: RateLimit, key: string): Promise<void> {
  if (!enabled(env)) return;
  const { success } = await binding.limit({ key });
  if (!success) throw rateLimited();
}

/**
 * Customer orders sent with the ordering key: per client address. With the API key they come from the shop's own
 * server on behalf of many buyers, one address for all of them; the event object already serialises the stock.
 */
export const orderRateLimit: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    if (c.var.shopKey !== "api") await spend(c.env, c.env.ORDER_LIMITER, `order:${clientAddress(c)}`);
    await next();
  },
  {
    errors: { "429": "`rest_too_many_requests` with `Retry-After`: too many orders from this address with the ordering key." },
    errorHeaders: { "429": ["Retry-After"] },
  },
);

/** The offline sync of a door phone (docs/scanning.md): the valid-ticket list, revoked tickets, public keys, its key. */
const SYNC_PATH = /\/(scans\/(tickets|revoked)|scan-keys\/(public-keys|self))\/?$/;

/**
 * Scans: per scan key (the header is the key; a malformed one is refused by the key check after this), 3,000 a
 * minute (decisions.md 15: a busy gate with many phones on one key stays far below it; a leaked key still cannot
 * saturate the event object). The offline sync counts under the same key in a budget of its own (SCAN_SYNC_LIMITER,
 * 600 a minute: one sync reads up to 5,000 tickets), so phones syncing a large list in pages never take the door's
 * scans away (and a door scanning at full speed can still sync).
 */
export const scanRateLimit: MiddlewareHandler<AppEnv> = documented(
  async (c, next) => {
    const key = c.req.header("X-EVT-API-KEY") ?? "";
    if (c.req.method === "GET" && SYNC_PATH.test(c.req.path)) await spend(c.env, c.env.SCAN_SYNC_LIMITER, `scan-sync:${key}`);
    else await spend(c.env, c.env.SCAN_LIMITER, `scan:${key}`);
    await next();
  },
  {
    errors: { "429": "`rest_too_many_requests` with `Retry-After`: too many requests with this scan key in the current minute (scans, and the offline sync apart)." },
    errorHeaders: { "429": ["Retry-After"] },
  },
);

/**
 * Failed logins per address (a wider limit: many people may sign in from one office) and per address plus username.
 * The bindings only count as they are asked, so a login refused for too many failures is remembered in this isolate
 * until its window turns, and asked about before the password is.
 */
const blockedUntil = new Map<string, number>();

function loginLimits(env: Env, address: string, username: string): [string, RateLimit][] {
  return [
    [`login-address:${address}`, env.LOGIN_ADDRESS_LIMITER],
    [`login-user:${address}:${username.toLowerCase()}`, env.LOGIN_LIMITER],
  ];
}

export function assertLoginAllowed(env: Env, address: string, username: string, nowMs = Date.now()): void {
  if (!enabled(env)) return;
  for (const [key] of loginLimits(env, address, username)) {
    const until = blockedUntil.get(key);
    if (until !== undefined && until > nowMs) throw rateLimited(nowMs);
    if (until !== undefined) blockedUntil.delete(key);
  }
}

/** After a failed login: counts it; past the limit the address or username is refused until the window turns. */
export async function countFailedLogin(env: Env, address: string, username: string, nowMs = Date.now()): Promise<void> {
  if (!enabled(env)) return;
  let over = false;
  for (const [key, binding] of loginLimits(env, address, username)) {
    const { success } = await binding.limit({ key });
    if (!success) {
      over = true;
      if (blockedUntil.size > 10_000) blockedUntil.clear();
      blockedUntil.set(key, nowMs + (PERIOD_S - (Math.floor(nowMs / 1000) % PERIOD_S)) * 1000);
    }
  }
  if (over) throw rateLimited(nowMs);
}
