import { and, eq, sql } from "drizzle-orm";
import { events, orders } from "../../db/schema";
import { invalidId } from "../../domain/errors";
import { randomString } from "../../lib/random";
import type { Deps } from "../../platform/deps";
import { outboxStatement } from "../messaging/emails.service";
import { orderEmail, seedTickets } from "../ordering/order-emails.service";
import { seedsForOrder } from "../ordering/order-drafts";
import { announceFinal, finalStatements } from "../ordering/order-placement";
import { orderTopicStatements } from "../ordering/order-topics";
import { enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import type { EventRow, OrderRow } from "../../db/rows";

/**
 * `GET /orders/confirm/<token>` (decisions.md 5.7 and 14): the customer confirms a booking with the token of the
 * email that asked for it; the order `uid` confirms nothing. The order becomes `booked - confirmed` (`dashboard -
 * confirmed`), final at last: tickets, `sold`, the confirmation email and `order.created`, all once (a second click
 * finds it confirmed and changes nothing).
 *
 * The token is found by an indexed equality lookup (its unique index), as the uid is elsewhere: what timing could
 * tell is how far a guess matches in the index, which is no help against 40 random characters (about 238 bits).
 * It is stored as it is, not hashed: the outbox keeps the same link in the email body, in the same database.
 */
export async function confirmOrder(deps: Deps, confirmToken: string): Promise<{ order: OrderRow; event: EventRow }> {
  const { db } = deps;
  const order = await db.select().from(orders).where(eq(orders.confirmToken, confirmToken)).get();
  if (!order) throw invalidId("order");
  const event = await db.select().from(events).where(eq(events.id, order.eventId)).get();
  if (!event) throw invalidId("order");
  if (!order.awaitsConfirmation) return { order, event };

  const seeds = await seedsForOrder(deps, order, event);
  const token = randomString(16);
  const ours = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${order.id} AND finalize_token = ${token})`;
  const confirmed: OrderRow = { ...order, paymentStatus: `${order.paymentStatus} - confirmed`, awaitsConfirmation: false, finalizeToken: token };
  const { writes } = finalStatements(deps, confirmed, event, seeds, order.deductions, ours);
  const email = outboxStatement(deps, orderEmail(deps, confirmed, event, "confirmed", seedTickets(seeds, event)), order.id, ours);
  const created = await orderTopicStatements(deps, "order.created", confirmed, event, ours);
  const results = await db.batch([
    db
      .update(orders)
      .set({ paymentStatus: confirmed.paymentStatus, awaitsConfirmation: false, finalizeToken: token, modifiedAt: deps.now() })
      .where(and(eq(orders.id, order.id), eq(orders.awaitsConfirmation, true)))
      .returning({ id: orders.id }),
    ...writes,
    ...created,
    email,
  ]);
  if ((results[0] as { id: number }[]).length > 0) {
    const emailIds = (results[results.length - 1] as { id: number }[]).map((r) => r.id);
    announceFinal(deps, [{ order: confirmed, seeds }], emailIds);
    deps.defer(() => enqueueDeliveries(deps, writtenDeliveries(results)));
    return { order: confirmed, event };
  }
  const now = await db.select().from(orders).where(eq(orders.id, order.id)).get();
  return { order: now ?? order, event };
}
