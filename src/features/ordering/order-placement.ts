import { and, eq, sql, type SQL } from "drizzle-orm";
import { isCheckViolation, isUniqueViolation } from "../../db/client";
import { coupons, orderClaims, orders, type OrderChannel, type OrderSeats, type StockDeduction } from "../../db/schema";
import { randomString } from "../../lib/random";
import type { Deps } from "../../platform/deps";
import { usageLimitReached } from "../../domain/coupon-rules";
import { tooManyOpenOrders, waitingDeadline } from "../../domain/order-rules";
import { enqueueEmails, outboxStatement } from "../messaging/emails.service";
import { NO_TICKETS, orderEmail, seedTickets } from "./order-emails.service";
import { withSeats, type OrderDraft } from "./order-drafts";
import { alreadyOrdered, capRefusal, openOrdersRefusal } from "./order-eligibility";
import { insertTicketRows } from "../tickets/ticket-rows";
import { seatText, type Seat } from "../../domain/seat-plan";
import { clearIntentTogether, syncIntents, WAIT } from "./object-sync.service";
import { holdStock, objectsLearnOnTheirOwn, objectTicket, releaseStock, soldUpdates, stockEventIds } from "./stock.service";
import type { TicketSeed } from "../../domain/order-rules";
import { orderTopicStatements } from "./order-topics";
import { enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import type { ClaimRow, EventRow, OrderRow } from "../../db/rows";

/** A hold must reach D1 well inside the object's deadline (HOLD_MS, 90 s); past this the order is abandoned. */
const MAX_HOLD_TO_WRITE_MS = 60_000;

export type PlacedStatus = "dashboard" | "booked" | "open";

export interface Orderer {
  name: string;
  email: string;
  ipAddress: string;
}

/** A final order used its coupon: `used` and `last_used` move (an open order only held the use). */
function couponUsed(deps: Deps, couponId: number, onlyIf?: SQL) {
  return deps.db
    .update(coupons)
    .set({ used: sql`${coupons.used} + 1`, lastUsed: deps.now() })
    .where(and(eq(coupons.id, couponId), onlyIf));
}

/** The event objects a final order concerns: those it draws stock from, and those holding its tickets. */
function finalEventIds(deductions: readonly StockDeduction[], seeds: readonly TicketSeed[]): number[] {
  return [...new Set([...deductions.map((d) => d.eventId), ...seeds.map((s) => s.eventId)])];
}

/**
 * What makes an order final, as statements for one batch: its tickets, `sold`, its coupon's use, what its event
 * objects must learn, and (with `emails_needed`) the new-order email in the outbox. `onlyIf` guards them all, so a
 * batch that lost a race writes none of them.
 */
export function finalStatements(deps: Deps, order: OrderRow, event: EventRow, seeds: readonly TicketSeed[], deductions: readonly StockDeduction[], onlyIf?: SQL) {
  const orderId = sql`(SELECT id FROM orders WHERE uid = ${order.uid})`;
  return {
    writes: [
      insertTicketRows(deps, order.uid, seeds, onlyIf),
      ...soldUpdates(deps, deductions, 1, onlyIf),
      ...(order.couponId === null ? [] : [couponUsed(deps, order.couponId, onlyIf)]),
      ...syncIntents(deps, order.uid, finalEventIds(deductions, seeds), order.finalizeToken, onlyIf),
    ],
    email: event.emailsNeeded ? outboxStatement(deps, orderEmail(deps, order, event, "new-order", seedTickets(seeds, event)), orderId, onlyIf) : null,
  };
}

/**
 * After a batch that made orders final: the objects of `finals` take their units and learn their tickets, each then
 * clearing the intent the batch recorded (a lost call leaves it to the reconciler); emails go.
 */
export function announceFinal(deps: Deps, finals: readonly { order: OrderRow; seeds: readonly TicketSeed[] }[], emailIds: readonly number[]): void {
  for (const { order, seeds } of finals) {
    const info = { orderId: order.id, name: order.name, email: order.email };
    deps.defer(() =>
      Promise.all(
        finalEventIds(order.deductions, seeds).map(async (eventId) => {
          const here = seeds.filter((s) => s.eventId === eventId).map(objectTicket);
          await deps.eventObjects.get(eventId).confirmWithTickets(order.uid, here, info);
          await clearIntentTogether(deps, [order.uid, eventId, order.finalizeToken]);
        }),
      ),
    );
  }
  deps.defer(() => enqueueEmails(deps, emailIds));
}

export interface PlacementOptions {
  /** Claims of who-may-order rules per order uid, written in the batch (where their index and trigger decide). */
  claims?: ReadonlyMap<string, readonly ClaimRow[]>;
  /** Confirmation emails: the orders wait for their customer; `deadline` (epoch seconds) deletes them, null never. */
  confirmation?: { timeoutMinutes: number };
  /** The request's `Idempotency-Key` as a hash (http/idempotency.ts): a retry after a crash finds these orders. */
  idempotencyRef?: string | null;
  /** Where the orders are placed (decisions.md 15 "The box office"): the shop's pages, or the API (the default). */
  via?: OrderChannel;
}

/** A draft whose seats are held: its seat texts are known, and its tickets (if drawn) carry them. */
type SeatedDraft = OrderDraft & { seats: OrderSeats | null };

function seated(d: OrderDraft, seats: readonly Seat[]): SeatedDraft {
  if (seats.length === 0) return { ...d, seats: null };
  const labels = seats.map((s) => seatText(d.event.seats.seats_format, s));
  const planEventId = d.event.seats.linked_event || d.event.id;
  return { ...d, seeds: withSeats(d.seeds, d.event.id, labels), seats: { planEventId, indexes: seats.map((s) => s.index), labels } };
}

/**
 * Places drafted orders (one per event; several for a group's dates) as one: stock is held for each in turn (a
 * refusal releases what was held), then every order is written in one D1 batch, final ones with their tickets,
 * `sold` and email. A final order's objects take it from D1 on their own, soon after, when its holds carry its
 * tickets (marked final; see objectsLearnOnTheirOwn); otherwise they are told after the answer, as an open order's
 * objects learn its payment deadline, at which the object asks for it to be expired.
 */
export async function placeOrders(
  deps: Deps,
  drafts: readonly OrderDraft[],
  status: PlacedStatus,
  who: Orderer,
  paymentWindowSeconds: number | null,
  options: PlacementOptions = {},
): Promise<OrderRow[]> {
  const sorted = [...drafts].sort((a, b) => a.event.id - b.event.id);
  const awaiting = options.confirmation !== undefined;
  const final = status !== "open" && !awaiting;
  // A final order whose objects take it from D1 by themselves needs no call from here after the answer.
  const selfTaught = new Set(sorted.filter((d) => final && objectsLearnOnTheirOwn(d.plan, d.seeds)).map((d) => d.uid));
  const ordered: SeatedDraft[] = [];
  const heldAt = Date.now();
  // A refusal or a failed batch gives back whatever this purchase holds so far.
  const releaseHeld = () =>
    Promise.all(
      ordered.map(({ uid, plan }) => {
        const eventIds = plan.steps.map((s) => s.eventId);
        return releaseStock(deps, uid, eventIds);
      }),
    );
  try {
    for (const d of sorted) ordered.push(seated(d, await holdStock(deps, d.uid, d.plan, selfTaught.has(d.uid))));
  } catch (err) {
    await releaseHeld();
    throw err;
  }

  const now = deps.now();
  const paymentGroup = ordered[0]!.uid;
  const rows: OrderRow[] = ordered.map((d) => ({
    id: 0,
    eventId: d.event.id,
    uid: d.uid,
    paymentId: "",
    checkoutId: "",
    paymentStatus: status,
    customStatus: "",
    name: who.name,
    email: who.email,
    emailKey: who.email.toLowerCase(),
    ipAddress: who.ipAddress,
    fields: d.fields,
    lines: d.priced,
    numTickets: d.priced.reduce((n, l) => n + l.count, 0),
    totalCents: d.totals.totalCents,
    discountCents: d.totals.discountCents,
    currency: deps.config.currency,
    deductions: d.plan.deductions,
    seats: d.seats,
    couponId: d.couponId ?? null,
    refundStartedAt: null,
    // Measured from the order's own creation time, so expires_at is exactly the window after created_at.
    expiresAt: final || paymentWindowSeconds === null ? null : now + paymentWindowSeconds,
    paymentGroup,
    awaitsConfirmation: awaiting,
    finalizeToken: final ? randomString(16) : "",
    confirmToken: awaiting ? randomString(40) : null,
    idempotencyRef: options.idempotencyRef ?? null,
    checkoutUrl: "",
    placedVia: options.via ?? "api",
    createdAt: now,
    modifiedAt: now,
  }));
  const finals = final ? rows.map((row, i) => finalStatements(deps, row, ordered[i]!.event, ordered[i]!.seeds, ordered[i]!.plan.deductions)) : [];
  // Waiting for confirmation: the booking email asks for it (carrying {%CONFIRM%}), whatever emails_needed says.
  // It has no tickets to personalise yet; the confirmation email offers that.
  const confirmRequests = awaiting
    ? rows.map((row, i) => outboxStatement(deps, orderEmail(deps, row, ordered[i]!.event, "confirm", NO_TICKETS), sql`(SELECT id FROM orders WHERE uid = ${row.uid})`))
    : [];
  const emailStatements = [...finals.flatMap((f) => (f.email ? [f.email] : [])), ...confirmRequests];
  // Orders that wait (payment, confirmation): their objects must learn the deadline; final ones record it above.
  const waitIntents = final ? [] : ordered.flatMap((d) => syncIntents(deps, d.uid, stockEventIds(d.plan.deductions), WAIT));
  const created = final ? await Promise.all(rows.map((row, i) => orderTopicStatements(deps, "order.created", row, ordered[i]!.event))) : [];
  const claimStatements = ordered.flatMap((d) => {
    const claims = options.claims?.get(d.uid) ?? [];
    return claims.length > 0 ? [deps.db.insert(orderClaims).values([...claims])] : [];
  });
  let placed: OrderRow[];
  let emailIds: number[];
  let deliveryIds: string[];
  try {
    if (Date.now() - heldAt > MAX_HOLD_TO_WRITE_MS) throw new Error("the holds are too old to be written safely");
    const inserts = rows.map(({ id: _id, ...values }) => deps.db.insert(orders).values(values).returning());
    const results = await deps.db.batch([
      inserts[0]!,
      ...inserts.slice(1),
      ...claimStatements,
      ...waitIntents,
      ...finals.flatMap((f) => f.writes),
      ...created.flat(),
      ...emailStatements,
    ]);
    placed = results.slice(0, rows.length).map((r) => (r as OrderRow[])[0]!);
    emailIds = results.slice(results.length - emailStatements.length).flatMap((r) => (r as { id: number }[]).map((e) => e.id));
    deliveryIds = writtenDeliveries(results);
  } catch (err) {
    await releaseHeld();
    // Parallel orders of one buyer filled their open-order places first (decisions.md 15); one of them may have
    // closed since, so a retry in a second may find a place.
    if (isCheckViolation(err, "order_claims.open")) throw (await openOrdersRefusal(deps, [...(options.claims?.values() ?? [])].flat())) ?? tooManyOpenOrders(1);
    // A claim refused in the batch: a parallel order by the same person got there first.
    if (isUniqueViolation(err) && String(err).includes("order_claims")) throw alreadyOrdered();
    if (isCheckViolation(err, "order_claims.cap")) throw await capRefusal(deps, ordered[0]!.event, who.email.toLowerCase());
    // The coupon's last uses went to parallel orders (the order triggers of migration 0015 decide).
    if (isCheckViolation(err, "coupons.usage_limit")) throw usageLimitReached();
    throw err;
  }

  if (final) {
    announceFinal(
      deps,
      placed.flatMap((order, i) => (selfTaught.has(order.uid) ? [] : [{ order, seeds: ordered[i]!.seeds }])),
      emailIds,
    );
    deps.defer(() => enqueueDeliveries(deps, deliveryIds));
  } else {
    // Open orders keep their payment deadline in the objects; unconfirmed ones their confirmation timeout.
    for (const order of placed) {
      const info = { orderId: order.id, name: order.name, email: order.email };
      const deadline = waitingDeadline({ ...order, open: order.paymentStatus === "open" }, options.confirmation?.timeoutMinutes ?? 0);
      deps.defer(() =>
        Promise.all(
          stockEventIds(order.deductions).map(async (eventId) => {
            await deps.eventObjects.get(eventId).confirm(order.uid, info, deadline);
            await clearIntentTogether(deps, [order.uid, eventId, WAIT]);
          }),
        ),
      );
    }
    deps.defer(() => enqueueEmails(deps, emailIds));
  }
  return placed;
}

/** Orders paid together: the group of `uid` (its own order when alone). */
export function ordersOfPaymentGroup({ db }: Deps, group: string): Promise<OrderRow[]> {
  return db.select().from(orders).where(eq(orders.paymentGroup, group)).orderBy(orders.eventId);
}
