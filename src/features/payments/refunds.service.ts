import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { inIds } from "../../db/client";
import { events, orderClaims, orders, tickets } from "../../db/schema";
import { fail, invalidParams } from "../../domain/errors";
import { centsToDecimal } from "../../lib/money";
import type { RefundSendInput } from "./refunds.schema";
import { canAccessEvent, type AuthUser } from "../../domain/authority";
import type { BulkError } from "../ordering/bulk-orders.service";
import type { Deps } from "../../platform/deps";
import { buildJob } from "../../platform/messages";
import { releaseOrder, RELEASE, syncIntents } from "../ordering/object-sync.service";
import { writeLog, writeLogStatement } from "../logs/logs.service";
import { providerOfPayment } from "./payment-providers";
import { soldUpdates, stockEventIds } from "../ordering/stock.service";
import { purgeOrderPdfs } from "../../platform/pdf-cache";
import { revokeTicketRows } from "../tickets/ticket-rows";
import { orderTopicStatements } from "../ordering/order-topics";
import { enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import type { OrderRow } from "../../db/rows";

/**
 * Refunds (decisions.md 10, 13): the send call checks each order and queues the rest; the queue consumer refunds
 * through the payment provider, once however often it is asked: it claims the order first, and the provider gets
 * an idempotency key, so a claim taken over after a crash cannot move the money twice. A refunded order is
 * `refunded`, its tickets are revoked, its stock and claims released, its cached PDF purged, `order.refunded`
 * fired. A refund the provider refuses leaves the order `paid` and is logged.
 */

/** A claim older than this is taken to be from a consumer that died. */
const REFUND_CLAIM_S = 600;

const NOT_FOUND = "Order not found";
const NOT_PAID = "Order status is not set to 'paid'";

/** What a refund gives back: the total less the cost per order, or per ticket; never below 0. */
function refundCents(order: Pick<OrderRow, "totalCents" | "numTickets">, cost: { cost_type: "ticket" | "order"; cost: number }): number {
  const withheld = cost.cost_type === "ticket" ? cost.cost * order.numTickets : cost.cost;
  return Math.max(0, order.totalCents - withheld);
}

async function queueRefund(deps: Deps, order: OrderRow, amountCents: number): Promise<void> {
  await deps.jobs.send(buildJob("order.refund", { orderId: order.id, eventId: order.eventId, amountCents }));
}

/** `POST /admin/bulk/refunds/send`: per-id errors with the spec's texts; the rest queued. */
export async function requestRefunds(deps: Deps, user: AuthUser, input: RefundSendInput): Promise<BulkError[]> {
  if (input.order_ids.length > deps.config.bulkBatchSize) throw invalidParams({ order_ids: `must name at most ${deps.config.bulkBatchSize} orders` });
  const rows = await deps.db.select().from(orders).where(inIds(orders.id, input.order_ids));
  const byId = new Map(rows.map((o) => [o.id, o]));
  const errors: BulkError[] = [];
  for (const id of input.order_ids) {
    const order = byId.get(id);
    if (!order || !canAccessEvent(user, order.eventId)) errors.push({ order_id: id, error: NOT_FOUND });
    else if (order.paymentStatus !== "paid") errors.push({ order_id: id, error: NOT_PAID });
    else await queueRefund(deps, order, refundCents(order, input));
  }
  return errors;
}

/** `POST /admin/orders/<id>/refund`: the same path for one order, for its total or `amount` of it. */
export async function requestRefund(deps: Deps, order: OrderRow, amountCents: number | undefined): Promise<number> {
  if (order.paymentStatus !== "paid") throw fail.order_not_paid(NOT_PAID);
  const amount = amountCents ?? order.totalCents;
  if (amount > order.totalCents) throw invalidParams({ amount: `must not be above the order's total (${centsToDecimal(order.totalCents)})` });
  await queueRefund(deps, order, amount);
  return amount;
}

/** The `order.refund` job. */
export async function refundOrder(deps: Deps, orderId: number, amountCents: number): Promise<void> {
  const { db } = deps;
  const now = deps.now();
  const [claimed] = await db
    .update(orders)
    .set({ refundStartedAt: now })
    .where(and(eq(orders.id, orderId), eq(orders.paymentStatus, "paid"), or(isNull(orders.refundStartedAt), lt(orders.refundStartedAt, now - REFUND_CLAIM_S))))
    .returning();
  if (!claimed) return; // refunded already, no longer paid, or another consumer is at it
  const amount = Math.min(amountCents, claimed.totalCents);
  const money = `${centsToDecimal(amount)} ${claimed.currency}`;
  // Nothing to give back (the cost took it all): the order is refunded without asking the provider, which refuses 0.
  const result =
    amount === 0
      ? ({ ok: true } as const)
      : await providerOfPayment(claimed.paymentId).refund(deps, claimed.paymentId, amount, claimed.currency, `refund-${claimed.uid}`);
  if (!result.ok) {
    await db.update(orders).set({ refundStartedAt: null }).where(eq(orders.id, orderId));
    await writeLog(deps, {
      eventId: claimed.eventId,
      orderId,
      logType: "Payment",
      description: `Refund of ${money} for order ${orderId} failed at the provider (${result.message}); the order stays paid.`,
    });
    return;
  }
  // Everything rides on the order still being paid and claimed by us; the status flips last, so of two consumers
  // only one batch writes (the same pattern as deleting an order).
  const ours = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${orderId} AND payment_status = 'paid' AND refund_started_at = ${now})`;
  const refunded: OrderRow = { ...claimed, paymentStatus: "refunded", refundStartedAt: null, modifiedAt: now };
  const event = await db.select().from(events).where(eq(events.id, claimed.eventId)).get();
  const results = await db.batch([
    revokeTicketRows(deps, and(eq(tickets.orderId, orderId), ours)!),
    db.delete(tickets).where(and(eq(tickets.orderId, orderId), ours)),
    db.delete(orderClaims).where(and(eq(orderClaims.orderUid, claimed.uid), ours)),
    ...soldUpdates(deps, claimed.deductions, -1, ours),
    writeLogStatement(deps, { eventId: claimed.eventId, orderId, logType: "Payment", description: `Order ${orderId} was refunded (${money}).` }, ours),
    ...syncIntents(deps, claimed.uid, stockEventIds(claimed.deductions), RELEASE, ours),
    ...(await orderTopicStatements(deps, "order.refunded", refunded, event, ours)),
    db
      .update(orders)
      .set({ paymentStatus: "refunded", refundStartedAt: null, modifiedAt: now })
      .where(and(eq(orders.id, orderId), eq(orders.refundStartedAt, now), eq(orders.paymentStatus, "paid")))
      .returning(),
  ]);
  const order = (results[results.length - 1] as OrderRow[])[0];
  if (!order) return;
  deps.defer(() => enqueueDeliveries(deps, writtenDeliveries(results)));
  await releaseOrder(deps, order.uid, stockEventIds(order.deductions));
  await purgeOrderPdfs(deps, [order.uid]);
}
