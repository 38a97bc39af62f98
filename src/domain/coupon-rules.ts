import { centsToDecimal } from "../lib/money";
import { isAdministrator, type AuthUser } from "./authority";
import { fail } from "./errors";
import { divideRoundHalfUp } from "./pricing";
import type { CouponRow } from "../db/rows";

/**
 * A coupon at checkout (decisions.md 5.4, 5.5, 12), as plain rules over the coupon, the moment, the orderer and the
 * priced lines. Checked in the order of the decided messages; the usage limits are checked here from what was read
 * and enforced again by the order triggers inside the order's batch.
 */

export type { CouponRow };

export interface CouponLine {
  /** The ticket type's name (what a coupon's `tickets` lists). */
  name: string;
  count: number;
  unitCents: number;
}

/** The events a coupon's owner may manage: every event for the administrators, else the owner's authorised events. */
export type OwnerEvents = "all" | readonly number[];

export interface CouponUse {
  now: number;
  /** The events the orders are placed for (one, or a group's chosen dates). */
  eventIds: readonly number[];
  /** Of the coupon's owner: what a coupon without `events` covers. */
  ownerEvents: OwnerEvents;
  /** The orderer's email, lowercased. */
  emailKey: string;
  lines: readonly CouponLine[];
  /** Uses held now: `used` plus open orders (all orderers), and this orderer's live orders with the coupon. */
  usesHeld: number;
  usesHeldByOrderer: number;
}

export const couponNotFound = (code: string) => fail.coupon_not_found(`Coupon code ${code} not found`);

/** The lines the coupon concerns: those of its ticket types, or all when it names none. */
function concerned(coupon: CouponRow, lines: readonly CouponLine[]): CouponLine[] {
  return coupon.tickets.length === 0 ? [...lines] : lines.filter((l) => coupon.tickets.includes(l.name));
}

/** ` <types>` in the messages: the coupon's ticket types, or nothing when it names none. */
function typesText(coupon: CouponRow): string {
  return coupon.tickets.length === 0 ? "" : ` ${coupon.tickets.join(", ")}`;
}

/** The owner of the coupons a user creates (decisions.md 15): all administrators are one owner, 0. */
export const ADMINISTRATORS_OWNER = 0;

export function couponOwnerOf(user: AuthUser): number {
  return isAdministrator(user) ? ADMINISTRATORS_OWNER : user.id;
}

/**
 * The coupons a user may see and change (decisions.md 13, 15): every coupon for an administrator; for an organizer,
 * its own, and only while their events are not empty and all lie within its authorised events.
 */
export function couponVisibleTo(user: AuthUser, coupon: Pick<CouponRow, "events" | "ownerId">): boolean {
  if (isAdministrator(user)) return true;
  return coupon.ownerId === user.id && coupon.events.length > 0 && coupon.events.every((id) => user.authorisedEvents.includes(id));
}

/** Whether the coupon covers an event (decisions.md 15): its `events` name it, or it has none and its owner may manage it. */
function covers(coupon: Pick<CouponRow, "events">, ownerEvents: OwnerEvents, eventId: number): boolean {
  if (coupon.events.length > 0) return coupon.events.includes(eventId);
  return ownerEvents === "all" || ownerEvents.includes(eventId);
}

/**
 * A coupon covering none of the order's events is answered exactly like an unknown code, before any rule that would
 * tell it exists (decisions.md 14): otherwise another organizer's codes could be confirmed by probing.
 */
export function coversNoneOf(coupon: Pick<CouponRow, "events">, ownerEvents: OwnerEvents, eventIds: readonly number[]): boolean {
  return !eventIds.some((id) => covers(coupon, ownerEvents, id));
}

/** A coupon found by its code at checkout, with what its owner may manage. */
export interface CouponCandidate {
  coupon: CouponRow;
  ownerEvents: OwnerEvents;
}

/**
 * The coupon a code names for an order (decisions.md 15): codes are unique per owner only, so one code may name a
 * coupon of several owners; the one that covers the order's events applies. Preferred: one covering every event of
 * the order, then one whose `events` name them (over one without events), then the oldest. None when no coupon
 * covers any of the events: answered as an unknown code.
 */
export function chooseCoupon<C extends CouponCandidate>(candidates: readonly C[], eventIds: readonly number[]): C | undefined {
  const rank = (c: C) => [eventIds.every((id) => covers(c.coupon, c.ownerEvents, id)) ? 0 : 1, c.coupon.events.length > 0 ? 0 : 1, c.coupon.id];
  const covering = candidates.filter((c) => !coversNoneOf(c.coupon, c.ownerEvents, eventIds));
  return covering.sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return ra[0]! - rb[0]! || ra[1]! - rb[1]! || ra[2]! - rb[2]!;
  })[0];
}

/** Throws the first rule the use breaks (`coupon_*`, 400), for a coupon that covers at least one of the events. */
export function checkCoupon(coupon: CouponRow, use: CouponUse): void {
  if (coupon.startDate !== null && use.now < coupon.startDate) throw fail.coupon_not_active();
  if (coupon.endDate !== null && use.now > coupon.endDate) throw fail.coupon_expired();
  const overLimit = coupon.usageLimit > 0 && use.usesHeld >= coupon.usageLimit;
  const overUserLimit = coupon.usageLimitPerUser > 0 && use.usesHeldByOrderer >= coupon.usageLimitPerUser;
  if (overLimit || overUserLimit) throw usageLimitReached();
  if (coupon.emailKey !== "" && coupon.emailKey !== use.emailKey) throw fail.coupon_wrong_email();
  if (!use.eventIds.every((id) => covers(coupon, use.ownerEvents, id))) throw fail.coupon_wrong_event();
  const lines = concerned(coupon, use.lines);
  const tickets = lines.reduce((n, l) => n + l.count, 0);
  const amount = lines.reduce((n, l) => n + l.count * l.unitCents, 0);
  const types = typesText(coupon);
  if (coupon.minimumTickets > 0 && tickets < coupon.minimumTickets) {
    throw fail.coupon_min_tickets(`This discount code requires a minimum of ${coupon.minimumTickets} tickets${types}`);
  }
  if (coupon.maximumTickets > 0 && tickets > coupon.maximumTickets) {
    throw fail.coupon_max_tickets(`This discount code allows a maximum of ${coupon.maximumTickets} tickets${types}`);
  }
  if (coupon.minimumAmountCents > 0 && amount < coupon.minimumAmountCents) {
    throw fail.coupon_min_amount(`A minimum amount of ${centsToDecimal(coupon.minimumAmountCents)}${types} is required for this discount code`);
  }
  if (coupon.maximumAmountCents > 0 && amount > coupon.maximumAmountCents) {
    throw fail.coupon_max_amount(`A maximum amount of ${centsToDecimal(coupon.maximumAmountCents)}${types} is allowed for this discount code`);
  }
}

export const usageLimitReached = () => fail.coupon_usage_limit();

/**
 * The discount in cents (decisions.md 5.5): a `percent` coupon takes its share of the lines it concerns (all, or
 * its ticket types), rounded half up; a `fixed` one takes its amount off the total, never below 0.
 */
export function couponDiscountCents(coupon: CouponRow, lines: readonly CouponLine[]): number {
  const total = lines.reduce((n, l) => n + l.count * l.unitCents, 0);
  if (coupon.type === "fixed") return Math.min(coupon.amountHundredths, total);
  const base = concerned(coupon, lines).reduce((n, l) => n + l.count * l.unitCents, 0);
  return Math.min(total, divideRoundHalfUp(base * coupon.amountHundredths, 10_000));
}
