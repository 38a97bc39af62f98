import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../lib/crypto";
import { claimIdempotencyKey, reclaimIdempotencyKey, settleIdempotencyKey, type StoredAnswer } from "../platform/idempotency-store";
import { bodyText } from "./body-text";
import type { AppContext, AppEnv } from "./context";
import { depsOf } from "./deps";
import { fail, invalidParams } from "../domain/errors";
import { documented } from "./route-docs";
import { canonicalJson } from "./validate";

const KEY = /^[\x21-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ["Content-Type", "Location"];

async function bodyHash(raw: string): Promise<string> {
  let canonical = raw;
  try {
    canonical = canonicalJson(JSON.parse(raw));
  } catch {
    // not JSON: the bytes themselves are compared
  }
  return sha256Hex(canonical);
}

/**
 * `Idempotency-Key` (decisions.md 13): the same key with the same body (compared as canonical JSON) within 24 h
 * answers what the first request answered; the same key with another body is `409`; a duplicate arriving while
 * the first is still running is `409 idempotency_in_progress`. Scope is the concrete path, the key and who sent
 * it (decisions.md 15): the same key on another event's route, or from another caller, is another request. 5xx
 * answers are never kept, so a retry after a failure runs again.
 */
export const idempotent = idempotentWith();

/**
 * A key still claimed may belong to a request whose runtime died after its change committed (docs/reliability.md
 * "Guarantees"): `recover` answers such a retry from what was committed under the key's hash, or null when nothing
 * answerable is there yet.
 */
export type Recover = (c: AppContext, ref: string) => Promise<Response | null>;

export function idempotentWith(recover?: Recover): MiddlewareHandler<AppEnv> {
  return documented<MiddlewareHandler<AppEnv>>(
    async (c, next) => {
      const key = c.req.header("Idempotency-Key");
      if (key === undefined) return next();
      if (!KEY.test(key)) throw invalidParams({ "Idempotency-Key": "must be 1-255 visible ASCII characters" });
      return keyed(c, next, key, recover);
    },
    {
      headers: {
        "Idempotency-Key": {
          description:
            "A key of the client's making, one per intended action: the same key with the same body within 24 hours answers what the first request answered (with `Idempotent-Replayed: true`), never a second action.",
          required: false,
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
        },
      },
      errors: {
        "400": "`rest_invalid_param` naming `Idempotency-Key`: not 1-255 visible ASCII characters.",
        "409": "`idempotency_in_progress`: a request with this `Idempotency-Key` is still running; or `idempotency_key_reused`: the key was used with another body.",
      },
      successHeaders: ["Idempotent-Replayed"],
    },
  );
}

async function keyed(c: AppContext, next: () => Promise<void>, key: string, recover: Recover | undefined): Promise<Response | undefined> {
  let ran = false;
  const answer = await answerOnce(
    c,
    key,
    async () => {
      ran = true;
      await next();
      return c.res;
    },
    recover,
  );
  // A run's answer is already the context's; only a replayed or recovered one is returned.
  return ran ? undefined : answer;
}

/**
 * Runs `run` once per key (the rules of `idempotentWith`) and answers what it answered, or what the first run
 * answered; throws `idempotency_in_progress` or `idempotency_key_reused`. The shop page's form post keys its order
 * with the form's token this way (decisions.md 15 "The box office"); `run` finds the key's hash in
 * `c.var.idempotencyRef`. An error thrown by `run` frees the key, so a retry runs afresh.
 */
export async function answerOnce(c: AppContext, key: string, run: () => Promise<Response>, recover?: Recover): Promise<Response> {
  const deps = depsOf(c);
  const scope = `${c.req.method} ${c.req.path} ${caller(c)}`;
  const ref = await sha256Hex(`${scope}\n${key}`);
  const hash = await bodyHash(await bodyText(c));
  let claim = await claimIdempotencyKey(deps, scope, key, hash);
  if (claim.kind === "in_progress") {
    const recovered = recover ? await recover(c, ref) : null;
    if (recovered) {
      recovered.headers.set("Idempotent-Replayed", "true");
      await settleIdempotencyKey(deps, scope, key, await storedAnswer(recovered));
      return recovered;
    }
    if (claim.abandoned) claim = await reclaimIdempotencyKey(deps, scope, key, hash);
  }
  switch (claim.kind) {
    case "in_progress":
      throw fail.idempotency_in_progress();
    case "different_body":
      throw fail.idempotency_key_reused();
    case "replay":
      return new Response(claim.answer.body, { status: claim.answer.status, headers: { ...claim.answer.headers, "Idempotent-Replayed": "true" } });
  }
  c.set("idempotencyRef", ref);
  let res: Response;
  try {
    res = await run();
  } catch (err) {
    // Errors become answers in app.onError, after this middleware: free the key so the retry runs afresh.
    await settleIdempotencyKey(deps, scope, key, { status: 500, headers: {}, body: "" });
    throw err;
  }
  await settleIdempotencyKey(deps, scope, key, await storedAnswer(res));
  return res;
}

/**
 * Who sent the key (decisions.md 15): a signed-in user, or on the shop front the service's API key or the
 * publishable ordering key. A key never replays one caller's answer to another: a user who might not see that
 * event, or a browser holding the ordering key that could otherwise read what a shop's server placed.
 */
function caller(c: AppContext): string {
  if (c.var.user) return `user:${c.var.user.id}`;
  if (c.var.shopKey) return `key:${c.var.shopKey}`;
  return "public";
}

/** What is kept of an answer for replay: its status, the headers a client reads, and its body. */
async function storedAnswer(res: Response): Promise<StoredAnswer> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: res.status, headers, body: await res.clone().text() };
}
