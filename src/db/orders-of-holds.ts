import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { inIds, openDb } from "./client";
import { LIVE_STATUSES } from "./order-status";
import { events, objectSyncs, orders } from "./schema";

/**
 * What an event object's alarm reads from D1 about its holds (event.do.ts `alarm`): the one D1 query of the object,
 * kept here, beside the schema it reads, so a renamed column fails the type check rather than the alarm.
 */

/** An order as the alarm decides a hold with it. */
export interface OrderOfHold {
  id: number;
  uid: string;
  paymentStatus: string;
  name: string;
  email: string;
  expiresAt: number | null;
  awaitsConfirmation: boolean;
  createdAt: number;
  /** The event's confirmation timeout (null when the event is gone). */
  confirmationTimeout: number | null;
}

/**
 * The orders of the holds `uids` as D1 has them now, in one batch that also clears the object-sync intents at
 * `eventId` of the final orders among `learnable` (held there with exactly their tickets), which the take that
 * follows fulfils: the Worker recorded them in the order's batch (docs/reliability.md "Guarantees") and no longer
 * calls after its answer for these. An intent is cleared only while it is the order's finalising change (its token
 * is the order's finalize token) and the order is live.
 */
export async function ordersOfHolds(
  d1: D1Database,
  eventId: number | undefined,
  uids: readonly string[],
  learnable: readonly string[],
): Promise<Map<string, OrderOfHold>> {
  const db = openDb(d1);
  const lookup = db
    .select({
      id: orders.id,
      uid: orders.uid,
      paymentStatus: orders.paymentStatus,
      name: orders.name,
      email: orders.email,
      expiresAt: orders.expiresAt,
      awaitsConfirmation: orders.awaitsConfirmation,
      createdAt: orders.createdAt,
      confirmationTimeout: events.confirmationTimeout,
    })
    .from(orders)
    .leftJoin(events, eq(events.id, orders.eventId))
    .where(inIds(orders.uid, uids));
  if (learnable.length === 0 || eventId === undefined) return byUid(await lookup);
  const finalising = db
    .select({ token: orders.finalizeToken })
    .from(orders)
    .where(and(eq(orders.uid, objectSyncs.uid), ne(orders.finalizeToken, ""), inArray(orders.paymentStatus, LIVE_STATUSES)));
  const clear = db.delete(objectSyncs).where(and(eq(objectSyncs.eventId, eventId), inIds(objectSyncs.uid, learnable), sql`${objectSyncs.token} = (${finalising})`));
  const [found] = await db.batch([lookup, clear]);
  return byUid(found);
}

function byUid(found: readonly OrderOfHold[]): Map<string, OrderOfHold> {
  return new Map(found.map((o) => [o.uid, o]));
}
