import { waitingDeadline } from "../../domain/order-rules";
import { and, eq, lte, sql, type SQL } from "drizzle-orm";
import { insertIf } from "../../db/client";
import { isFinalOrder, LIVE_STATUSES } from "../../db/order-status";
import { events, objectSyncs, orders, tickets } from "../../db/schema";
import { coalescer } from "../../lib/coalescer";
import { log } from "../../lib/log";
import type { Deps } from "../../platform/deps";
import { objectTicketOf } from "./stock.service";

/**
 * The event objects learn every order change from D1, never only from a call after the answer (docs/reliability.md
 * "Guarantees"): the change's own batch records an intent per object (`object_syncs`), the call after the answer
 * (`deps.defer`) does the work and clears the intent, and the reconciler re-drives intents a crash left behind, from
 * what D1 holds then. Syncing reads the order as it is now, so re-driving an old intent, or one twice, changes
 * nothing.
 */

/** An intent this old was not cleared by its own call: that call was lost (the runtime died) or failed. */
export const RECONCILE_AFTER_SECONDS = 30;

/** The token of an intent recorded for an order that waits (payment, confirmation): it has no finalize token. */
export const WAIT = "wait";
/** The token of an intent recorded when an order gives its units back (expired, cancelled, deleted, refunded). */
export const RELEASE = "release";

/**
 * Statements for the change's batch: the objects of `eventIds` must learn what D1 now says of order `uid`. `token`
 * names the change (the order's finalize token, or WAIT). `onlyIf` guards them like the change's other statements
 * (a batch that lost a race records nothing).
 */
export function syncIntents(deps: Deps, uid: string, eventIds: readonly number[], token: string, onlyIf: SQL = sql`1`) {
  const createdAt = deps.now();
  return [...new Set(eventIds)].map((eventId) =>
    insertIf(deps.db, objectSyncs, { uid, eventId, token, createdAt }, onlyIf).onConflictDoUpdate({
      target: [objectSyncs.uid, objectSyncs.eventId],
      set: { token, createdAt },
    }),
  );
}

function deleteIntents({ db }: Deps, intents: readonly (readonly [uid: string, eventId: number, token: string])[]) {
  return db
    .delete(objectSyncs)
    .where(
      sql`(${objectSyncs.uid}, ${objectSyncs.eventId}, ${objectSyncs.token}) IN (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${JSON.stringify(intents)}))`,
    );
}

/** After the call reached the object: its change's intent is done (a newer change's intent stays). */
export async function clearIntent(deps: Deps, uid: string, eventId: number, token: string): Promise<void> {
  await deleteIntents(deps, [[uid, eventId, token]]);
}

/**
 * The same after an order's answer, on the hot path: the intents of calls that end together are cleared by one
 * statement (a box office selling, an on-sale surge), not one each. Only a caller starting the statement waits for
 * it; one lost (a failed statement, the isolate gone) is left to the reconciler, which re-drives it harmlessly.
 */
export const clearIntentTogether = coalescer<Deps, [uid: string, eventId: number, token: string]>(async (deps, intents) => {
  await deleteIntents(deps, intents);
});

/**
 * After the batch that ended an order: its objects give its units back and forget its tickets, each then clearing
 * the RELEASE intent; an object that cannot be reached keeps its intent for the reconciler.
 */
export async function releaseOrder(deps: Deps, uid: string, eventIds: readonly number[]): Promise<void> {
  await Promise.all(
    [...new Set(eventIds)].map(async (eventId) => {
      try {
        await deps.eventObjects.get(eventId).release(uid);
        await clearIntent(deps, uid, eventId, RELEASE);
      } catch (err) {
        log("error", "stock release failed; the reconciler retries", { event_id: eventId, error: String(err) });
      }
    }),
  );
}

/**
 * Brings the objects of `eventIds` level with D1 for order `uid`: a live final order is taken there with the
 * tickets D1 holds for that event; a live order that waits (payment, confirmation) is taken until its deadline; an
 * order that is gone or no longer live is released.
 */
export async function syncOrderToObjects(deps: Deps, uid: string, eventIds: readonly number[]): Promise<void> {
  const { db } = deps;
  const order = await db.select().from(orders).where(eq(orders.uid, uid)).get();
  const live = order !== undefined && (LIVE_STATUSES as readonly string[]).includes(order.paymentStatus);
  if (!live) {
    await Promise.all(eventIds.map((id) => deps.eventObjects.get(id).release(uid)));
    return;
  }
  const info = { orderId: order.id, name: order.name, email: order.email };
  if (isFinalOrder(order)) {
    const rows = await db.select().from(tickets).where(eq(tickets.orderId, order.id));
    await Promise.all(eventIds.map((id) => deps.eventObjects.get(id).confirmWithTickets(uid, rows.filter((t) => t.eventId === id).map(objectTicketOf), info)));
    return;
  }
  const event = await db.select({ timeout: events.confirmationTimeout }).from(events).where(eq(events.id, order.eventId)).get();
  // How an object must hold an order that D1 says is live: with its tickets when final, else until its deadline.
  const deadline = waitingDeadline({ ...order, open: order.paymentStatus === "open" }, event?.timeout ?? 0);
  await Promise.all(eventIds.map((id) => deps.eventObjects.get(id).confirm(uid, info, deadline)));
}

/**
 * A ticket the event object does not know: when D1 holds it at that event for a live final order, the object
 * learns that order now. Answers whether it did, so the door asks again.
 */
export async function catchUpTicket(deps: Deps, eventId: number, ticketId: string): Promise<boolean> {
  const row = await deps.db
    .select({ uid: orders.uid, status: orders.paymentStatus, awaits: orders.awaitsConfirmation })
    .from(tickets)
    .innerJoin(orders, eq(orders.id, tickets.orderId))
    .where(and(eq(tickets.id, ticketId), eq(tickets.eventId, eventId)))
    .get();
  if (!row || !isFinalOrder({ paymentStatus: row.status, awaitsConfirmation: row.awaits })) return false;
  await syncOrderToObjects(deps, row.uid, [eventId]);
  return true;
}

/**
 * The reconciler (the cron, every minute): intents older than RECONCILE_AFTER_SECONDS are re-driven and cleared.
 * One order failing to sync is logged and left for the next run; the others go on.
 */
export async function reconcileObjects(deps: Deps, limit = 200): Promise<number> {
  const due = await deps.db
    .select()
    .from(objectSyncs)
    .where(lte(objectSyncs.createdAt, deps.now() - RECONCILE_AFTER_SECONDS))
    .orderBy(objectSyncs.createdAt)
    .limit(limit);
  const byUid = new Map<string, (typeof due)[number][]>();
  for (const row of due) byUid.set(row.uid, [...(byUid.get(row.uid) ?? []), row]);
  let synced = 0;
  for (const [uid, rows] of byUid) {
    try {
      await syncOrderToObjects(
        deps,
        uid,
        rows.map((r) => r.eventId),
      );
      await Promise.all(rows.map((r) => clearIntent(deps, uid, r.eventId, r.token)));
      synced += 1;
    } catch (err) {
      // Never the uid: it is the order's capability key.
      log("error", "object sync failed; the next run retries", { event_ids: rows.map((r) => r.eventId), error: String(err) });
    }
  }
  return synced;
}
