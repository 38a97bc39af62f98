import { and, asc, count as countRows, desc, eq, sql, type SQL } from "drizzle-orm";
import { inIds, isUniqueViolation } from "../../db/client";
import { coupons, events, ticketTypes } from "../../db/schema";
import { conflict, forbidden, invalidId, invalidParams } from "../../domain/errors";
import { pageWindow } from "../../domain/paging";
import { parseDateTime } from "../../lib/time";
import { MAX_PERCENT_HUNDREDTHS, type CouponInput, type ListCouponsQuery } from "./coupons.schema";
import { assertEventAccess, eventForbidden, isAdministrator, type AuthUser } from "../../domain/authority";
import { ADMINISTRATORS_OWNER, couponOwnerOf, couponVisibleTo } from "../../domain/coupon-rules";
import { parseNameList } from "../../domain/catalogue-names";
import type { Deps } from "../../platform/deps";
import type { CouponRow } from "../../db/rows";

/**
 * Coupons (spec: Coupon, Coupons; decisions.md 12, 13, 15). Every coupon has an owner: the organizer that created
 * it, or the administrators (one owner). Codes are unique per owner only, so creating or renaming a coupon never
 * tells another owner's codes. Authority: an administrator sees and changes every coupon; an organizer only its own,
 * while their `events` are not empty and lie within its authorised events (a coupon without events is valid for
 * every event, so it belongs to administrators).
 */

/** What a create or update decides; the rest (id, counters, timestamps) is the service's. */
type CouponValues = Omit<CouponRow, "id" | "used" | "lastUsed" | "createdAt" | "modifiedAt">;

const DEFAULTS: CouponValues = {
  code: "",
  codeKey: "",
  description: "",
  type: "fixed",
  individualUse: false,
  amountHundredths: 0,
  usageLimit: 0,
  usageLimitPerUser: 0,
  startDate: null,
  endDate: null,
  events: [],
  tickets: [],
  minimumTickets: 0,
  maximumTickets: 0,
  minimumAmountCents: 0,
  maximumAmountCents: 0,
  email: "",
  emailKey: "",
  ownerId: ADMINISTRATORS_OWNER,
};

// Only ever about the coupon's own owner's codes (decisions.md 15): the unique index is per owner.
const CODE_TAKEN = (code: string) => conflict(`A coupon with the code "${code}" already exists (codes are compared case-insensitively).`);

/** The coupons a user may see, as SQL: `couponVisibleTo` (domain/coupon-rules.ts) over the table. */
function visibleTo(user: AuthUser): SQL | undefined {
  if (isAdministrator(user)) return undefined;
  const mine = JSON.stringify(user.authorisedEvents);
  return sql`(${coupons.ownerId} = ${user.id} AND json_array_length(${coupons.events}) > 0 AND NOT EXISTS (SELECT 1 FROM json_each(${coupons.events}) AS e WHERE e.value NOT IN (SELECT value FROM json_each(${mine}))))`;
}

export async function listCoupons(deps: Deps, user: AuthUser, q: ListCouponsQuery): Promise<{ rows: CouponRow[]; total: number }> {
  const conditions = [visibleTo(user)];
  if (q.search) conditions.push(sql`instr(${coupons.emailKey}, ${q.search.toLowerCase()}) > 0`);
  if (q.include) conditions.push(inIds(coupons.id, q.include));
  if (q.exclude) conditions.push(sql`NOT ${inIds(coupons.id, q.exclude)}`);
  const where = and(...conditions.filter((c): c is SQL => c !== undefined));
  const column = { id: coupons.id, code: coupons.codeKey, email: coupons.emailKey }[q.orderby];
  const direction = q.order === "desc" ? desc : asc;
  const { limit, offset } = pageWindow(q);
  const [rows, totals] = await deps.db.batch([
    deps.db.select().from(coupons).where(where).orderBy(direction(column), direction(coupons.id)).limit(limit).offset(offset),
    deps.db.select({ n: countRows() }).from(coupons).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** The coupon, when the user may see it: 404 when it does not exist, 403 when it is not the organizer's. */
export async function getCouponFor({ db }: Deps, user: AuthUser, id: number): Promise<CouponRow> {
  const row = await db.select().from(coupons).where(eq(coupons.id, id)).get();
  if (!row) throw invalidId("coupon");
  if (!couponVisibleTo(user, row)) throw eventForbidden();
  return row;
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Ticket type names that are not a type of any of `eventIds` (of any event at all when the list is empty). */
async function unknownTicketNames(deps: Deps, names: readonly string[], eventIds: readonly number[]): Promise<string[]> {
  if (names.length === 0) return [];
  const inNames = sql`${ticketTypes.name} IN (SELECT value FROM json_each(${JSON.stringify(names)}))`;
  const found = await deps.db
    .selectDistinct({ name: ticketTypes.name })
    .from(ticketTypes)
    .where(eventIds.length > 0 ? and(inNames, inIds(ticketTypes.eventId, eventIds)) : inNames);
  const known = new Set(found.map((r) => r.name));
  return names.filter((n) => !known.has(n));
}

/**
 * The values after applying `input` to `base`, with every rule checked: problems of the fields are a 400 (all at
 * once, keyed by field); then an organizer's coupon must name events, all of them its own (403); only then (a 400
 * of its own) the
 * ticket names, which tell what types the events have (decisions.md 15: nothing about another organizer's events
 * before the authority check). Only events this request adds must exist, and the ticket names are checked only when
 * they or the events change, so a client can PUT back a coupon whose event or ticket type has gone since.
 */
async function resolve(deps: Deps, user: AuthUser, base: CouponValues, input: CouponInput): Promise<CouponValues> {
  const tz = deps.config.timezone;
  const date = (sent: string | undefined, stored: number | null) => (sent === undefined ? stored : sent === "" ? null : parseDateTime(sent, tz));
  const code = input.code ?? base.code;
  const email = input.email ?? base.email;
  const values: CouponValues = {
    code,
    codeKey: code.toLowerCase(),
    description: input.description ?? base.description,
    type: input.type ?? base.type,
    individualUse: input.individual_use ?? base.individualUse,
    amountHundredths: input.amount ?? base.amountHundredths,
    usageLimit: input.usage_limit ?? base.usageLimit,
    usageLimitPerUser: input.usage_limit_per_user ?? base.usageLimitPerUser,
    startDate: date(input.start_date, base.startDate),
    endDate: date(input.end_date, base.endDate),
    events: input.events ?? base.events,
    tickets: input.tickets === undefined ? base.tickets : [...new Set(parseNameList(input.tickets))],
    minimumTickets: input.minimum_tickets ?? base.minimumTickets,
    maximumTickets: input.maximum_tickets ?? base.maximumTickets,
    minimumAmountCents: input.minimum_amount ?? base.minimumAmountCents,
    maximumAmountCents: input.maximum_amount ?? base.maximumAmountCents,
    email,
    emailKey: email.toLowerCase(),
    ownerId: base.ownerId,
  };

  const problems: Record<string, string> = {};
  if (values.type === "percent" && values.amountHundredths > MAX_PERCENT_HUNDREDTHS) problems.amount = "must be at most 100 for a percent coupon";
  if (values.startDate !== null && values.endDate !== null && values.endDate < values.startDate) problems.end_date = "must not be before start_date";
  if (values.minimumTickets > 0 && values.maximumTickets > 0 && values.minimumTickets > values.maximumTickets) {
    problems.minimum_tickets = "must not be above maximum_tickets";
  }
  if (values.minimumAmountCents > 0 && values.maximumAmountCents > 0 && values.minimumAmountCents > values.maximumAmountCents) {
    problems.minimum_amount = "must not be above maximum_amount";
  }
  const stored = new Set(base.events);
  const added = values.events.filter((id) => !stored.has(id));
  if (added.length > 0) {
    const found = new Set((await deps.db.select({ id: events.id }).from(events).where(inIds(events.id, added))).map((r) => r.id));
    const missing = added.filter((id) => !found.has(id));
    if (missing.length > 0) problems.events = `names events that do not exist: ${missing.join(", ")}`;
  }
  if (Object.keys(problems).length > 0) throw invalidParams(problems);

  if (!isAdministrator(user)) {
    if (values.events.length === 0) throw forbidden("An organizer's coupon must be limited to events it is authorised for; events must not be empty.");
    assertEventAccess(user, values.events);
  }

  const ticketsChanged = !sameList(values.tickets, base.tickets) || !sameList(values.events, base.events);
  if (ticketsChanged) {
    const unknown = await unknownTicketNames(deps, values.tickets, values.events);
    if (unknown.length > 0) {
      const where = values.events.length > 0 ? "of the coupon's events" : "of any event";
      throw invalidParams({ tickets: `"${unknown[0]}" is not a ticket type ${where}` });
    }
  }
  return values;
}

export async function createCoupon(deps: Deps, user: AuthUser, input: CouponInput): Promise<CouponRow> {
  const values = await resolve(deps, user, { ...DEFAULTS, ownerId: couponOwnerOf(user) }, input);
  const now = deps.now();
  try {
    const [row] = await deps.db
      .insert(coupons)
      .values({ ...values, createdAt: now, modifiedAt: now })
      .returning();
    return row!;
  } catch (err) {
    if (isUniqueViolation(err)) throw CODE_TAKEN(values.code);
    throw err;
  }
}

function valuesOf(row: CouponRow): CouponValues {
  const { id: _id, used: _used, lastUsed: _lastUsed, createdAt: _c, modifiedAt: _m, ...values } = row;
  return values;
}

/** Partial update: what is not sent stays. A PUT that changes nothing (a client sending back what it read) writes nothing. */
export async function updateCoupon(deps: Deps, user: AuthUser, current: CouponRow, input: CouponInput): Promise<CouponRow> {
  const stored = valuesOf(current);
  const values = await resolve(deps, user, stored, input);
  const changed = (Object.keys(values) as (keyof CouponValues)[]).some((k) => JSON.stringify(values[k]) !== JSON.stringify(stored[k]));
  if (!changed) return current;
  try {
    const updated = await deps.db
      .update(coupons)
      .set({ ...values, modifiedAt: deps.now() })
      .where(eq(coupons.id, current.id))
      .returning()
      .get();
    if (!updated) throw invalidId("coupon"); // deleted meanwhile
    return updated;
  } catch (err) {
    if (isUniqueViolation(err)) throw CODE_TAKEN(values.code);
    throw err;
  }
}

/** `used` back to 0 and `last_used` to never; uses held by open orders are counted from the orders and stay. */
export async function resetCouponCounters(deps: Deps, current: CouponRow): Promise<CouponRow> {
  const row = await deps.db.update(coupons).set({ used: 0, lastUsed: null, modifiedAt: deps.now() }).where(eq(coupons.id, current.id)).returning().get();
  if (!row) throw invalidId("coupon");
  return row;
}

/**
 * Deletes the coupon. Orders keep their `coupon_id` and the discount they were given; a code that no longer exists
 * simply is not found at the next checkout.
 */
export async function deleteCoupon(deps: Deps, current: CouponRow): Promise<void> {
  await deps.db.delete(coupons).where(eq(coupons.id, current.id));
}
