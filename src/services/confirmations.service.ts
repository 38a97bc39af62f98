import { and, eq, sql } from "drizzle-orm";
import { events, orders } from "../db/schema";
import { invalidId } from "../http/errors";
import { secretsEqual } from "../lib/crypto";
import { randomString } from "../lib/random";
import type { EventRow } from "../schemas/events.schema";
import type { OrderRow } from "../schemas/orders.schema";
import type { Deps } from "./deps";
import { orderEmail, outboxStatement } from "./emails.service";
import { seedsForOrder } from "./order-drafts";
import { announceFinal, finalStatements } from "./order-placement";

/**
 * `GET /orders/confirm/<uid>` (decisions.md 5.7): the customer confirms a booking. The order becomes `booked -
 * confirmed` (`dashboard - confirmed`), final at last: tickets, `sold`, the confirmation email and `order.created`,
 * all once (a second click finds it confirmed and changes nothing).
 */
export async function confirmOrder(deps: Deps, uid: string): Promise<{ order: OrderRow; event: EventRow }> {
  const { db } = deps;
  const order = await db.select().from(orders).where(eq(orders.uid, uid)).get();
  if (!order || !(await secretsEqual(uid, order.uid))) throw invalidId("order");
  const event = await db.select().from(events).where(eq(events.id, order.eventId)).get();
  if (!event) throw invalidId("order");
  if (!order.awaitsConfirmation) return { order, event };

  const seeds = await seedsForOrder(deps, order, event);
  const token = randomString(16);
  const ours = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${order.id} AND finalize_token = ${token})`;
  const confirmed: OrderRow = { ...order, paymentStatus: `${order.paymentStatus} - confirmed`, awaitsConfirmation: false, finalizeToken: token };
  const { writes } = finalStatements(deps, confirmed, event, seeds, order.deductions, ours);
  const email = outboxStatement(deps, orderEmail(deps, confirmed, event, "confirmed"), order.id, ours);
  const results = await db.batch([
    db
      .update(orders)
      .set({ paymentStatus: confirmed.paymentStatus, awaitsConfirmation: false, finalizeToken: token, modifiedAt: deps.now() })
      .where(and(eq(orders.id, order.id), eq(orders.awaitsConfirmation, true)))
      .returning({ id: orders.id }),
    ...writes,
    email,
  ]);
  if ((results[0] as { id: number }[]).length > 0) {
    const emailIds = (results[results.length - 1] as { id: number }[]).map((r) => r.id);
    announceFinal(deps, [{ order: confirmed, event, seeds }], emailIds);
    return { order: confirmed, event };
  }
  const now = await db.select().from(orders).where(eq(orders.id, order.id)).get();
  return { order: now ?? order, event };
}
