import { and, eq, isNull, lt } from "drizzle-orm";
import { idempotencyKeys } from "../db/schema";
import type { Deps } from "./deps";

/** Idempotency keys are kept this long (decisions.md 13). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/**
 * A claim this old without an answer belongs to a request that died: placing an order gives up on holds it could not
 * write within a minute (order-placement.ts), so nothing it started can still commit. A retry takes the key over
 * then, unless its order is in D1 (http/idempotency.ts answers that).
 */
const ABANDONED_AFTER_SECONDS = 120;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Claim = { kind: "claimed" } | { kind: "replay"; answer: StoredAnswer } | { kind: "in_progress"; abandoned: boolean } | { kind: "different_body" };

/**
 * Claims `key` for the first request that sends it (one INSERT, so two at once cannot both win). A later request
 * with the same key gets the stored answer, or is told the first is still running or sent another body.
 */
export async function claimIdempotencyKey({ db, now }: Deps, scope: string, key: string, bodyHash: string): Promise<Claim> {
  const t = now();
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), lt(idempotencyKeys.createdAt, t - IDEMPOTENCY_TTL_SECONDS)));
  const inserted = await db.insert(idempotencyKeys).values({ scope, key, bodyHash, createdAt: t }).onConflictDoNothing().returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return { kind: "claimed" };
  const row = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
    .get();
  if (!row) return claimIdempotencyKey({ db, now } as Deps, scope, key, bodyHash); // deleted meanwhile: try again
  if (row.bodyHash !== bodyHash) return { kind: "different_body" };
  if (row.status === null || row.response === null) {
    // A request that died before answering must not block its key for a day: after two minutes the caller may
    // reclaim it (once it has made sure the dead request committed nothing).
    return { kind: "in_progress", abandoned: row.createdAt < t - ABANDONED_AFTER_SECONDS };
  }
  return { kind: "replay", answer: { status: row.status, ...(JSON.parse(row.response) as Omit<StoredAnswer, "status">) } };
}

/** Takes over a key whose request died before answering: the next claim is this request's. */
export async function reclaimIdempotencyKey(deps: Deps, scope: string, key: string, bodyHash: string): Promise<Claim> {
  await deps.db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.status)));
  return claimIdempotencyKey(deps, scope, key, bodyHash);
}

/** Keeps the answer for replay (2xx and 4xx), or frees the key (5xx, which are never replayed). */
export async function settleIdempotencyKey({ db }: Deps, scope: string, key: string, answer: StoredAnswer): Promise<void> {
  const where = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.status));
  if (answer.status >= 500) {
    await db.delete(idempotencyKeys).where(where);
    return;
  }
  await db
    .update(idempotencyKeys)
    .set({ status: answer.status, response: JSON.stringify({ headers: answer.headers, body: answer.body }) })
    .where(where);
}

/** The sweep: keys older than a day go. */
export async function purgeIdempotencyKeys({ db, now }: Deps): Promise<number> {
  const removed = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, now() - IDEMPOTENCY_TTL_SECONDS))
    .returning({ key: idempotencyKeys.key });
  return removed.length;
}
