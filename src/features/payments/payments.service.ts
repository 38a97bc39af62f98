import { and, eq, inArray, sql } from "drizzle-orm";
import { isCheckViolation } from "../../db/client";
import { isFinal } from "../../db/order-status";
import { events, orderClaims, orders } from "../../db/schema";
import { ApiError, invalidId } from "../../domain/errors";
import { log } from "../../lib/log";
import { centsToDecimal } from "../../lib/money";
import { randomString } from "../../lib/random";
import type { Deps } from "../../platform/deps";
import { releaseOrder, RELEASE, syncIntents } from "../ordering/object-sync.service";
import { writeLog, writeLogStatement } from "../logs/logs.service";
import { seedsForOrder } from "../ordering/order-drafts";
import { dropOpenClaims, uniqueScope } from "../ordering/order-eligibility";
import { announceFinal, finalStatements, ordersOfPaymentGroup } from "../ordering/order-placement";
import { providerOfPayment } from "./payment-providers";
import { seatText, type Seat } from "../../domain/seat-plan";
import { paymentMismatch, type CheckoutRecord } from "../../domain/payment-match";
import { holdStock, releaseStock, stockEventIds, type StockPlan } from "../ordering/stock.service";
import { orderTopicStatements } from "../ordering/order-topics";
import { enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import type { EventRow, OrderRow } from "../../db/rows";

export type PaymentOutcome = { status: "paid"; paymentId: string } | { status: "canceled" } | { status: "failed"; message: string };

/**
 * A provider's notice about a payment group: what the provider's own record (signed or fetched) says the checkout
 * is, and what became of it. `source` names the notice in the log ("Stripe checkout.session.completed evt_...").
 */
export interface PaymentNotice {
  source: string;
  checkout: CheckoutRecord;
  outcome: PaymentOutcome;
}

async function eventOf({ db }: Deps, id: number): Promise<EventRow | undefined> {
  return db.select().from(events).where(eq(events.id, id)).get();
}

/**
 * Makes a payable order final, once: one batch sets `paid` (only from `from` statuses) with a fresh token, and
 * writes tickets, `sold`, the new-order email and the `order.created` deliveries under that token. A second notification finds the order paid and
 * its batch writes nothing.
 */
async function finalizePaid(deps: Deps, order: OrderRow, paymentId: string, from: readonly string[]): Promise<boolean> {
  const event = await eventOf(deps, order.eventId);
  if (!event) return false;
  const seeds = await seedsForOrder(deps, order, event);
  const token = randomString(16);
  const ours = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${order.id} AND finalize_token = ${token})`;
  const paid: OrderRow = { ...order, paymentStatus: "paid", paymentId, expiresAt: null, finalizeToken: token };
  const { writes, email } = finalStatements(deps, paid, event, seeds, order.deductions, ours);
  const created = await orderTopicStatements(deps, "order.created", paid, event, ours);
  const results = await deps.db.batch([
    deps.db
      .update(orders)
      .set({ paymentStatus: "paid", paymentId, finalizeToken: token, expiresAt: null, modifiedAt: deps.now() })
      .where(and(eq(orders.id, order.id), inArray(orders.paymentStatus, [...from])))
      .returning({ id: orders.id }),
    ...writes,
    dropOpenClaims(deps, order.uid, ours),
    ...created,
    ...(email ? [email] : []),
  ]);
  if ((results[0] as { id: number }[]).length === 0) return false; // finalised by another notification, or no longer payable
  const emailIds = email ? (results[results.length - 1] as { id: number }[]).map((r) => r.id) : [];
  announceFinal(deps, [{ order: paid, seeds }], emailIds);
  deps.defer(() => enqueueDeliveries(deps, writtenDeliveries(results)));
  return true;
}

/**
 * An expired order's units again, from its recorded deductions, and as many seats as it had (a late payment takes
 * them back if they are free; the seats may be others than before).
 */
function planFromDeductions(order: OrderRow): StockPlan {
  const byEvent = new Map<number, { typeUnits: Record<string, number>; eventUnits: number }>();
  for (const d of order.deductions) {
    const entry = byEvent.get(d.eventId) ?? { typeUnits: {}, eventUnits: 0 };
    if (d.typeId !== null) entry.typeUnits[d.typeId] = (entry.typeUnits[d.typeId] ?? 0) + d.units;
    entry.eventUnits += d.eventUnits;
    byEvent.set(d.eventId, entry);
  }
  const steps = [...byEvent.entries()].map(([eventId, units]) => ({
    eventId,
    minVersion: 0,
    request: {
      uid: order.uid,
      typeUnits: units.typeUnits,
      eventUnits: units.eventUnits,
      tickets: [],
      seats: order.seats?.planEventId === eventId ? order.seats.indexes.length : 0,
    },
    refusal: () => invalidId("order"), // any refusal means the units are gone; the caller refunds
  }));
  return { steps, deductions: order.deductions };
}

/** A seated order that held its seats again records the seats it now has. */
async function reseat(deps: Deps, order: OrderRow, seats: readonly Seat[]): Promise<OrderRow> {
  if (!order.seats || seats.length === 0) return order;
  const event = await eventOf(deps, order.eventId);
  const labels = seats.map((s) => seatText(event?.seats.seats_format ?? "", s));
  const next = { ...order.seats, indexes: seats.map((s) => s.index), labels };
  await deps.db.update(orders).set({ seats: next }).where(eq(orders.id, order.id));
  return { ...order, seats: next };
}

/**
 * A payment for an order that expired meanwhile (decisions.md 13): its stock is taken again when it is still
 * there and the order becomes paid; otherwise the payment is refunded in full, the order is `refunded`, and both
 * are logged. Never oversells.
 */
async function latePayment(deps: Deps, order: OrderRow, paymentId: string): Promise<void> {
  const plan = planFromDeductions(order);
  let seats: Seat[];
  try {
    seats = await holdStock(deps, order.uid, plan);
  } catch (err) {
    // Only the units refused refund the payment. An object that could not answer (too busy, a broken connection:
    // decisions.md 15 "Overload") says nothing of the stock, so the notice fails and the provider delivers it again.
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    const refund = await providerOfPayment(paymentId).refund(deps, paymentId, order.totalCents, order.currency);
    const amount = `${centsToDecimal(order.totalCents)} ${order.currency}`;
    if (!refund.ok) {
      await writeLog(deps, {
        eventId: order.eventId,
        orderId: order.id,
        logType: "Payment",
        description: `Late payment ${paymentId} for expired order ${order.id} could not be refunded (${refund.message}); no stock was left. Refund ${amount} by hand.`,
      });
      return;
    }
    await deps.db.batch([
      deps.db
        .update(orders)
        .set({ paymentStatus: "refunded", paymentId, modifiedAt: deps.now() })
        .where(and(eq(orders.id, order.id), eq(orders.paymentStatus, "expired"))),
      writeLogStatement(deps, {
        eventId: order.eventId,
        orderId: order.id,
        logType: "Payment",
        description: `Late payment ${paymentId} for expired order ${order.id} was refunded (${amount}): no stock was left.`,
      }),
    ]);
    return;
  }
  order = await reseat(deps, order, seats);
  await reclaim(deps, order);
  if (!(await finalizePaid(deps, order, paymentId, ["expired"]))) {
    // Another notification finalised it meanwhile (our "hold" was the same reservation): its units stay taken.
    const now = await deps.db.select({ status: orders.paymentStatus }).from(orders).where(eq(orders.id, order.id)).get();
    if (!now || !isFinal(now.status)) await releaseStock(deps, order.uid, stockEventIds(order.deductions));
  }
}

/** Gives an open order's units back and marks it `to` (cancelled, failed, expired); false when it was not open. */
async function closeOpenOrder(deps: Deps, order: OrderRow, to: "canceled" | "failed" | "expired", note?: string): Promise<boolean> {
  const { db } = deps;
  const eventIds = stockEventIds(order.deductions);
  // One batch, the status flipping first: what follows rides on this batch having closed it (its own token).
  const token = randomString(16);
  const closedNow = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${order.id} AND payment_status = ${to} AND finalize_token = ${token})`;
  const results = await db.batch([
    db
      .update(orders)
      .set({ paymentStatus: to, expiresAt: null, finalizeToken: token, modifiedAt: deps.now() })
      .where(and(eq(orders.id, order.id), eq(orders.paymentStatus, "open")))
      .returning({ id: orders.id }),
    db.delete(orderClaims).where(and(eq(orderClaims.orderUid, order.uid), closedNow)),
    ...syncIntents(deps, order.uid, eventIds, RELEASE, closedNow),
    ...(note ? [writeLogStatement(deps, { eventId: order.eventId, orderId: order.id, logType: "Payment", description: note }, closedNow)] : []),
  ]);
  if (results[0].length === 0) return false; // not open (any more): a repeated notice changes and logs nothing
  await releaseOrder(deps, order.uid, eventIds);
  return true;
}

/**
 * The one completion path of every provider's notice (the test provider's page, Stripe's webhook): idempotent, for
 * every order of the payment group, and only when the notice matches the group's stored checkout, total and currency
 * (decisions.md 15 "Payments are matched, not trusted"); a notice that does not match changes nothing and is logged
 * (`Payment`) on each order of the group. Paid: open orders become final; expired ones are late payments. Cancelled
 * or failed: open orders give their stock back (a failure is logged with the provider's message).
 */
export async function completePayment(deps: Deps, group: string, notice: PaymentNotice): Promise<OrderRow[]> {
  const grouped = await ordersOfPaymentGroup(deps, group);
  if (grouped.length === 0) throw invalidId("order");
  const mismatch = paymentMismatch(notice.checkout, grouped);
  if (mismatch !== null) {
    const [first, ...rest] = grouped.map((o) =>
      writeLogStatement(deps, { eventId: o.eventId, orderId: o.id, logType: "Payment", description: `${notice.source} for order ${o.id} changed nothing: ${mismatch}.` }),
    );
    await deps.db.batch([first!, ...rest]);
    return grouped;
  }
  return settle(deps, grouped, notice.outcome);
}

/**
 * A checkout that could not be started: no provider holds a record of it, so nothing can be matched; the group's
 * open orders fail and give their stock back, the reason logged.
 */
export async function failUnstartedCheckout(deps: Deps, group: string, message: string): Promise<void> {
  await settle(deps, await ordersOfPaymentGroup(deps, group), { status: "failed", message });
}

/** What a matched notice does to each order of its group. */
async function settle(deps: Deps, grouped: readonly OrderRow[], outcome: PaymentOutcome): Promise<OrderRow[]> {
  const group = grouped[0]?.paymentGroup;
  for (const order of grouped) {
    if (outcome.status === "paid") {
      if (order.paymentStatus === "open") await finalizePaid(deps, order, outcome.paymentId, ["open"]);
      else if (order.paymentStatus === "expired") await latePayment(deps, order, outcome.paymentId);
    } else if (outcome.status === "canceled") {
      await closeOpenOrder(deps, order, "canceled");
    } else {
      await closeOpenOrder(deps, order, "failed", `Payment of order ${order.id} failed: ${outcome.message}`);
    }
  }
  return group === undefined ? [] : ordersOfPaymentGroup(deps, group);
}

/**
 * `order.expire` (the event object's alarm at an open order's payment deadline): an open order past it becomes
 * `expired`, gives its stock back, and its checkout is expired at the provider. Anything else is settled with the
 * object that asked: a final order's units stay taken, a closed order's are released.
 */
export async function expireOrder(deps: Deps, uid: string, askingEventId: number | undefined): Promise<void> {
  const order = await deps.db.select().from(orders).where(eq(orders.uid, uid)).get();
  const asking = askingEventId !== undefined ? [askingEventId] : [];
  if (!order) {
    await releaseStock(deps, uid, asking);
    return;
  }
  const info = { orderId: order.id, name: order.name, email: order.email };
  if (order.awaitsConfirmation) {
    await expireUnconfirmed(deps, order, asking);
    return;
  }
  if (order.paymentStatus === "open") {
    const due = (order.expiresAt ?? 0) <= deps.now();
    if (!due) {
      await Promise.all(asking.map((id) => deps.eventObjects.get(id).confirm(uid, info, (order.expiresAt ?? 0) * 1000)));
      return;
    }
    if (await closeOpenOrder(deps, order, "expired")) {
      await providerOfPayment(order.paymentId)
        .expireCheckout(deps, order.paymentId)
        .catch((err: unknown) => log("warn", "checkout expiry at the provider failed", { order_id: order.id, error: String(err) }));
    }
    return;
  }
  if (isFinal(order.paymentStatus)) {
    await Promise.all(asking.map((id) => deps.eventObjects.get(id).confirm(uid, info, null)));
    return;
  }
  await releaseStock(deps, uid, asking.length > 0 ? asking : stockEventIds(order.deductions));
}

/** An order still waiting for its customer past `confirmation_timeout`: deleted, its stock released, nothing sent. */
async function expireUnconfirmed(deps: Deps, order: OrderRow, asking: number[]): Promise<void> {
  const event = await eventOf(deps, order.eventId);
  const minutes = event?.confirmationTimeout ?? 0;
  const info = { orderId: order.id, name: order.name, email: order.email };
  if (minutes === 0 || order.createdAt + minutes * 60 > deps.now()) {
    // Not due (the timeout was raised or switched off meanwhile): the object waits again, or for good.
    const deadline = minutes === 0 ? null : (order.createdAt + minutes * 60) * 1000;
    await Promise.all(asking.map((id) => deps.eventObjects.get(id).confirm(order.uid, info, deadline)));
    return;
  }
  const stillWaiting = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${order.id} AND awaits_confirmation = 1)`;
  const removed = await deps.db.batch([
    deps.db.delete(orderClaims).where(and(eq(orderClaims.orderUid, order.uid), stillWaiting)),
    ...syncIntents(deps, order.uid, stockEventIds(order.deductions), RELEASE, stillWaiting),
    deps.db
      .delete(orders)
      .where(and(eq(orders.id, order.id), eq(orders.awaitsConfirmation, true)))
      .returning({ id: orders.id }),
  ]);
  if ((removed[removed.length - 1] as { id: number }[]).length > 0) await releaseOrder(deps, order.uid, stockEventIds(order.deductions));
}

/**
 * A late payment makes an expired order live again, so it counts for unique users and email-list caps again
 * (decisions.md 13). Its claims come back where they still fit: the money is already paid, so a claim that no
 * longer fits (the email ordered again meanwhile, or used the cap) is logged rather than refused.
 */
async function reclaim(deps: Deps, order: OrderRow): Promise<void> {
  const event = await eventOf(deps, order.eventId);
  if (!event) return;
  const unique = uniqueScope(event).map((eventId) => ({ kind: "unique" as const, eventId, emailKey: order.emailKey, orderUid: order.uid, units: 0 }));
  if (unique.length > 0) await deps.db.insert(orderClaims).values(unique).onConflictDoNothing();
  if (event.userGroupsNeeded && event.userGroups.group_type === 1) {
    try {
      await deps.db.insert(orderClaims).values({ kind: "cap", eventId: event.id, emailKey: order.emailKey, orderUid: order.uid, units: order.numTickets });
    } catch (err) {
      if (!isCheckViolation(err, "order_claims.cap")) throw err;
      await writeLog(deps, {
        eventId: event.id,
        orderId: order.id,
        logType: "Payment",
        description: `Late payment of order ${order.id} passes the email list's cap for ${order.email}.`,
      });
    }
  }
}
