import { eq, sql } from "drizzle-orm";
import { LIVE_STATUSES } from "../../db/order-status";
import { coupons, orders, users } from "../../db/schema";
import { ADMINISTRATORS_OWNER, checkCoupon, chooseCoupon, couponDiscountCents, couponNotFound, type CouponCandidate, type CouponLine } from "../../domain/coupon-rules";
import type { Deps } from "../../platform/deps";
import { orderTotals, spreadDiscount, type OrderTotals } from "../../domain/pricing";
import type { OrderLine } from "../../db/schema";

/** What a coupon reads of an order being drafted (ordering's OrderDraft), and the two fields it sets. */
export interface CouponDraft {
  event: { id: number; couponsNeeded: boolean };
  priced: readonly OrderLine[];
  totals: OrderTotals;
  couponId?: number | null;
}

/**
 * A coupon sent with an order (customer or dashboard; decisions.md 5.4, 5.5, 12, 15): found by its code (any case) when
 * every order's event has `coupons_needed`, checked against the whole purchase (a group's dates together; the
 * coupon's events must hold every one of them), its discount
 * spread over the orders in proportion to their list totals. The first order (lowest event id) carries the use.
 * A dashboard `amount` decides the total by itself: the coupon is then checked and counted but discounts nothing.
 */
export async function applyCoupon<D extends CouponDraft>(deps: Deps, code: string, drafts: readonly D[], email: string, chargedCents?: number): Promise<D[]> {
  // The orders' own events decide (a group's chosen dates, not the path event that may get no order).
  if (!drafts.every((d) => d.event.couponsNeeded)) throw couponNotFound(code);
  const { db } = deps;
  // One code may name a coupon of several owners (decisions.md 15): each is read with what its owner may manage.
  const found = await db
    .select({ coupon: coupons, role: users.role, authorisedEvents: users.authorisedEvents })
    .from(coupons)
    .leftJoin(users, eq(users.id, coupons.ownerId))
    .where(eq(coupons.codeKey, code.trim().toLowerCase()));
  const candidates: CouponCandidate[] = found.map((r) => ({
    coupon: r.coupon,
    ownerEvents: r.coupon.ownerId === ADMINISTRATORS_OWNER || r.role === "administrator" ? "all" : (r.authorisedEvents ?? []),
  }));
  const eventIds = drafts.map((d) => d.event.id);
  const chosen = chooseCoupon(candidates, eventIds);
  if (!chosen) throw couponNotFound(code);
  const { coupon, ownerEvents } = chosen;
  const emailKey = email.toLowerCase();
  const held = await db
    .select({
      open: sql<number>`count(*) FILTER (WHERE ${orders.paymentStatus} = 'open' OR ${orders.awaitsConfirmation} = 1)`,
      mine: sql<number>`count(*) FILTER (WHERE ${orders.emailKey} = ${emailKey} AND ${orders.paymentStatus} IN (SELECT value FROM json_each(${JSON.stringify(LIVE_STATUSES)})))`,
    })
    .from(orders)
    .where(eq(orders.couponId, coupon.id))
    .get();
  const lines: CouponLine[] = drafts.flatMap((d) => d.priced.map((l) => ({ name: l.name, count: l.count, unitCents: l.unitCents })));
  checkCoupon(coupon, {
    now: deps.now(),
    eventIds,
    ownerEvents,
    emailKey,
    lines,
    usesHeld: coupon.used + (held?.open ?? 0),
    usesHeldByOrderer: held?.mine ?? 0,
  });
  const discount = chargedCents === undefined ? couponDiscountCents(coupon, lines) : 0;
  const shares = spreadDiscount(
    drafts.map((d) => d.totals.listCents),
    discount,
  );
  const first = Math.min(...drafts.map((d) => d.event.id));
  return drafts.map((d, i) => ({
    ...d,
    totals: discount === 0 ? d.totals : orderTotals(d.priced, d.totals.listCents - shares[i]!),
    couponId: d.event.id === first ? coupon.id : null,
  }));
}
