import { and, asc, eq, or } from "drizzle-orm";
import { inIds } from "../../db/client";
import { events, orders, type OrderChannel } from "../../db/schema";
import { fail, invalidId } from "../../domain/errors";
import type { CustomerOrderInput } from "./customer-orders.schema";
import type { Deps } from "../../platform/deps";
import { applyCoupon } from "../coupons/coupon-checkout";
import { catalogueOf, draftOrder, ticketSeeds, type OrderDraft } from "../ordering/order-drafts";
import { placeOrders } from "../ordering/order-placement";
import { checkOrderer, checkOrderSize, checkSaleWindow, checkTicketLines, readTicketCounts, waitingDeadline } from "../../domain/order-rules";
import { providerForEvent, providerOfPayment } from "../payments/payment-providers";
import { failUnstartedCheckout } from "../payments/payments.service";
import { returnAddress } from "../payments/return-address";
import { verifyCaptcha } from "./captcha";
import { buyerAddressKey, confirmationFor, openOrderClaims, whoMayOrder } from "../ordering/order-eligibility";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import type { ClaimRow, EventRow, OrderRow } from "../../db/rows";

export interface CustomerOrderOptions {
  /**
   * Where the order is placed (decisions.md 15 "The box office"): `shop` for the box office's form, whose customers
   * return from the provider to the shop's order page; `api` (the default) keeps the status route.
   */
  via?: OrderChannel;
  /**
   * A waiting-list offer the order is placed through (decisions.md 15 "Selling like the peers"): its entry and the
   * email that joined. The order must carry that email; its hold at the event counts the offer's units as free.
   */
  offer?: { entryId: number; emailKey: string };
}

export interface CustomerOrderResult {
  order: OrderRow;
  event: EventRow;
  groupOrders: number[];
  payment: { provider: string; checkout_url: string; expires_at: string } | null;
  /** An RSVP booking waits for its customer to confirm by email (decisions.md 5.1, 5.7); `expires_at` "" is never. */
  confirmation: { status: "awaiting"; expires_at: string } | null;
}

/**
 * The event a shop-front route names, looked up before anything else of the request is read (decisions.md 14): an
 * unknown or malformed id is `404 Event does not exist`, whatever the body holds.
 */
/** The answer's `confirmation` of a booking that waits for its customer: until when, as the order itself counts it. */
function awaitingConfirmation(order: OrderRow, timeoutMinutes: number, timezone: string) {
  const deadline = waitingDeadline({ ...order, open: false }, timeoutMinutes);
  return { status: "awaiting" as const, expires_at: formatOptionalDateTime(deadline === null ? null : deadline / 1000, timezone) };
}

export async function shopEvent({ db }: Deps, rawId: string): Promise<EventRow> {
  const id = /^[1-9]\d{0,15}$/.test(rawId) ? Number(rawId) : null;
  const event = id !== null && Number.isSafeInteger(id) ? await db.select().from(events).where(eq(events.id, id)).get() : undefined;
  if (!event) throw invalidId("event", "Event does not exist");
  return event;
}

const invalidEventIds = () => fail.order_invalid_event_ids(undefined, { subject: { input: ["event_ids"] } });

/**
 * The dates chosen for a group order (types 1 and 2): events of the path event's group of the same kind; type 1
 * takes exactly one. Without `event_ids` the path event itself is the choice; other events take no `event_ids`.
 */
async function chosenEvents({ db }: Deps, event: EventRow, eventIds: readonly number[] | undefined): Promise<EventRow[]> {
  if (eventIds === undefined) return [event];
  if (event.groupType !== 1 && event.groupType !== 2) throw invalidEventIds();
  const ids = [...new Set(eventIds)];
  if (event.groupType === 1 && ids.length !== 1) throw invalidEventIds();
  const found = await db
    .select()
    .from(events)
    .where(and(inIds(events.id, ids), eq(events.eventGroup, event.eventGroup), or(eq(events.groupType, 1), eq(events.groupType, 2))))
    .orderBy(asc(events.id));
  if (found.length !== ids.length) throw invalidEventIds();
  return found;
}

/** The path event's counts mapped by type name onto another date of the group (names shared across the group). */
async function countsFor(deps: Deps, chosen: EventRow, byName: ReadonlyMap<string, number>): Promise<Map<string, number>> {
  const { types } = await catalogueOf(deps, chosen.id);
  const counts = new Map<string, number>();
  for (const t of types) counts.set(t.id, byName.get(t.name) ?? 0);
  for (const [name, n] of byName) if (n > 0 && !types.some((t) => t.name === name)) throw invalidEventIds();
  return counts;
}

/**
 * `POST /events/<event_id>/orders`: the order rules in the decided sequence (name and email, terms, sale window,
 * dates of a group, ticket lines, input fields, coupon, stock), one order per chosen date placed together with
 * one payment. A free order is `booked` at once; others are `open` until paid or expired.
 */
export async function createCustomerOrder(
  deps: Deps,
  event: EventRow,
  input: CustomerOrderInput,
  ipAddress: string,
  idempotencyRef: string | null = null,
  caller: "api" | "ordering" = "api",
  options: CustomerOrderOptions = {},
): Promise<CustomerOrderResult> {
  const via = options.via ?? "api";
  const { name, email } = checkOrderer(input.name, input.email);
  if (event.terms.trim() !== "" && input.terms_accepted !== true) throw fail.order_terms_not_accepted(undefined, { subject: { input: ["terms_accepted"] } });
  if (event.recaptchaNeeded) await verifyCaptcha(deps, event.id, input.recaptcha_token, ipAddress);
  const now = deps.now();
  checkSaleWindow(event, now);
  const dates = await chosenEvents(deps, event, input.event_ids);
  for (const d of dates) checkSaleWindow(d, now);

  const counts = readTicketCounts(input.tickets);
  const { types } = await catalogueOf(deps, event.id);
  const lines = checkTicketLines(types, counts);
  const byName = new Map(lines.map((l) => [l.type.name, l.count]));
  const sentFields = input.fields ?? new Map<string, string>();
  const drafts: OrderDraft[] = [];
  for (const d of dates) {
    const dateCounts = d.id === event.id ? counts : await countsFor(deps, d, byName);
    drafts.push(await draftOrder(deps, d, dateCounts, d.id === event.id ? sentFields : await fieldsByName(deps, event, d, sentFields), { final: false }));
  }
  // The dates of a group are placed, paid and issued together: one order as far as the cap goes (decisions.md 15).
  checkOrderSize(drafts.reduce((n, d) => n + d.ticketCount, 0));
  const claims = new Map<string, ClaimRow[]>();
  for (const d of drafts) claims.set(d.uid, await whoMayOrder(deps, d, { name, email }));
  if (input.coupon) drafts.splice(0, drafts.length, ...(await applyCoupon(deps, input.coupon, drafts, email)));
  if (options.offer) {
    if (email.toLowerCase() !== options.offer.emailKey) throw fail.waiting_list_offer_invalid(undefined, { subject: { input: ["email"] } });
    const own = drafts.find((d) => d.event.id === event.id);
    for (const step of own?.plan.steps ?? []) if (step.eventId === event.id) step.request.offer = options.offer.entryId;
  }

  const total = drafts.reduce((n, d) => n + d.totals.totalCents, 0);
  const who = { name, email, ipAddress };
  if (total === 0) {
    const confirmation = confirmationFor(dates[0]!);
    const placed = confirmation
      ? await placeOrders(deps, drafts, "booked", who, null, { claims, confirmation, idempotencyRef, via })
      : await placeOrders(deps, drafts.map(withTickets), "booked", who, null, { claims, idempotencyRef, via });
    const awaiting = confirmation ? awaitingConfirmation(placed[0]!, confirmation.timeoutMinutes, deps.config.timezone) : null;
    return { order: placed[0]!, event: dates[0]!, groupOrders: placed.map((o) => o.id), payment: null, confirmation: awaiting };
  }
  if (caller === "ordering") await claimOpenPlaces(deps, drafts, claims, email, ipAddress);
  const provider = providerForEvent(deps, dates[0]!);
  const placed = await placeOrders(deps, drafts, "open", who, deps.config.orderHoldMinutes * 60, { claims, idempotencyRef, via });
  const first = placed[0]!;
  const expiresAt = first.expiresAt!;
  let checkout: { checkoutUrl: string; paymentId: string };
  try {
    checkout = await provider.startCheckout(deps, {
      uid: first.paymentGroup,
      returnUrl: returnAddress(deps.origin, dates[0]!, first),
      totalCents: total,
      currency: first.currency,
      expiresAt,
      description: dates
        .map((d) => d.eventName)
        .join(", ")
        .slice(0, 200),
    });
  } catch (err) {
    // No checkout, no order: the orders are cancelled and their stock given back.
    await failUnstartedCheckout(deps, first.paymentGroup, String(err instanceof Error ? err.message : err));
    throw fail.order_payment_unavailable();
  }
  // The checkout is kept apart from `payment_id` (which becomes the provider's payment once paid): every notice is
  // matched with it (decisions.md 15 "Payments are matched, not trusted").
  const started = { paymentId: checkout.paymentId, checkoutId: checkout.paymentId, checkoutUrl: checkout.checkoutUrl };
  await deps.db.update(orders).set(started).where(eq(orders.paymentGroup, first.paymentGroup));
  return {
    order: { ...first, ...started },
    event: dates[0]!,
    groupOrders: placed.map((o) => o.id),
    payment: { provider: provider.name, checkout_url: checkout.checkoutUrl, expires_at: formatDateTime(expiresAt, deps.config.timezone) },
    confirmation: null,
  };
}

/**
 * The answer to an order placed under an `Idempotency-Key` whose first answer was lost (the runtime died after the
 * batch), rebuilt from D1 as it was given; null when there is none, or it has no checkout yet to answer with.
 */
export async function committedCustomerOrder(deps: Deps, idempotencyRef: string): Promise<CustomerOrderResult | null> {
  const placed = await deps.db.select().from(orders).where(eq(orders.idempotencyRef, idempotencyRef)).orderBy(asc(orders.eventId));
  const first = placed[0];
  if (!first) return null;
  const total = placed.reduce((n, o) => n + o.totalCents, 0);
  if (total > 0 && first.checkoutUrl === "") return null;
  const event = await deps.db.select().from(events).where(eq(events.id, first.eventId)).get();
  if (!event) return null;
  const tz = deps.config.timezone;
  return {
    order: first,
    event,
    groupOrders: placed.map((o) => o.id),
    payment:
      total > 0 ? { provider: providerOfPayment(first.paymentId).name, checkout_url: first.checkoutUrl, expires_at: formatOptionalDateTime(first.expiresAt, tz) } : null,
    confirmation: first.awaitsConfirmation ? awaitingConfirmation(first, event.confirmationTimeout, tz) : null,
  };
}

/**
 * Open orders per buyer (decisions.md 15): a browser shop front's order that will wait for payment takes one of the
 * buyer's places on each chosen date, by email and by address; the last rule before stock, so a refused order never
 * holds any. API-key callers (a shop's own server, one address for all its buyers) are not limited this way, and
 * their orders take no places.
 */
async function claimOpenPlaces(deps: Deps, drafts: readonly OrderDraft[], claims: Map<string, ClaimRow[]>, email: string, address: string): Promise<void> {
  const addressKey = await buyerAddressKey(deps, address);
  for (const d of drafts) {
    const open = await openOrderClaims(deps, d.event.id, d.uid, email.toLowerCase(), addressKey);
    claims.set(d.uid, [...(claims.get(d.uid) ?? []), ...open]);
  }
}

/** A free order is final at once: its tickets are drawn now (a draft for an open order has none). */
function withTickets(d: OrderDraft): OrderDraft {
  return {
    ...d,
    seeds: ticketSeeds(
      d.event,
      d.lines.filter((l) => l.count > 0),
      d.children,
    ),
  };
}

/** Answers to the path event's fields, given to another date of the group by field name. */
async function fieldsByName(deps: Deps, from: EventRow, to: EventRow, sent: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const [source, target] = await Promise.all([catalogueOf(deps, from.id), catalogueOf(deps, to.id)]);
  const nameOf = new Map(source.fields.map((f) => [f.id, f.name]));
  const idOf = new Map(target.fields.map((f) => [f.name, f.id]));
  const mapped = new Map<string, string>();
  for (const [id, value] of sent) {
    const targetId = idOf.get(nameOf.get(id) ?? "");
    mapped.set(targetId ?? id, value);
  }
  return mapped;
}
