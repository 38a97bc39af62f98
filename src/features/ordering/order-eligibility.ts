import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { emailListEntries, orderClaims, orders } from "../../db/schema";
import { hmacSha256, toHex } from "../../lib/crypto";
import { centsToDecimal } from "../../lib/money";
import { exchange } from "../../lib/outbound";
import type { Deps } from "../../platform/deps";
import { writeLog } from "../logs/logs.service";
import type { OrderDraft } from "./order-drafts";
import { MAX_OPEN_ORDERS, tooManyOpenOrders } from "../../domain/order-rules";
import type { ClaimRow, EventRow } from "../../db/rows";
import { fail } from "../../domain/errors";

/**
 * Who may order (decisions.md 5.7 and 13): unique users, the email-list restriction with its per-person cap, and the
 * external REST check. Each rule reads first so that a refusal comes in the decided order; the claims it returns
 * are written in the order's batch, where a unique index and a trigger decide for good (two parallel orders cannot
 * both pass).
 */

export const alreadyOrdered = () => fail.order_already_ordered();
const notAllowed = (message = "You are not allowed to book/order") => fail.order_not_allowed(message);
const maxTickets = (n: number) => fail.order_max_tickets(`You can book a maximum of ${Math.max(0, n)} tickets`);

/** The events one order per email spans: the event, and its `unique_event_ids` while unique users is on. */
export function uniqueScope(event: EventRow): number[] {
  return event.uniqueUsersNeeded ? [...new Set([event.id, ...event.uniqueEventIds])] : [];
}

/** Unique users: no live order by this email in the scope (read here, claimed in the batch). */
async function checkUniqueUser(deps: Deps, event: EventRow, emailKey: string, uid: string): Promise<ClaimRow[]> {
  const scope = uniqueScope(event);
  if (scope.length === 0) return [];
  const taken = await deps.db
    .select({ id: orderClaims.id })
    .from(orderClaims)
    .where(and(eq(orderClaims.kind, "unique"), eq(orderClaims.emailKey, emailKey), inArray(orderClaims.eventId, scope)))
    .limit(1)
    .get();
  if (taken) throw alreadyOrdered();
  return scope.map((eventId) => ({ kind: "unique" as const, eventId, emailKey, orderUid: uid, units: 0 }));
}

async function capUsed({ db }: Deps, eventId: number, emailKey: string): Promise<number> {
  const row = await db
    .select({ n: sql<number>`coalesce(sum(${orderClaims.units}), 0)` })
    .from(orderClaims)
    .where(and(eq(orderClaims.kind, "cap"), eq(orderClaims.eventId, eventId), eq(orderClaims.emailKey, emailKey)))
    .get();
  return row?.n ?? 0;
}

/** The email list (user group 1): the address must be on the event's list; its cap counts across live orders. */
async function checkEmailList(deps: Deps, event: EventRow, emailKey: string, uid: string, tickets: number): Promise<ClaimRow[]> {
  const entry = await deps.db
    .select({ cap: emailListEntries.maxTickets })
    .from(emailListEntries)
    .where(and(eq(emailListEntries.eventId, event.id), eq(emailListEntries.emailKey, emailKey)))
    .get();
  if (!entry) throw notAllowed();
  if (entry.cap > 0) {
    const used = await capUsed(deps, event.id, emailKey);
    if (used + tickets > entry.cap) throw maxTickets(entry.cap - used);
  }
  return [{ kind: "cap", eventId: event.id, emailKey, orderUid: uid, units: tickets }];
}

/** The answer of a cap claim refused in the batch (a parallel order took the room): the room left now. */
export async function capRefusal(deps: Deps, event: EventRow, emailKey: string): Promise<Error> {
  const entry = await deps.db
    .select({ cap: emailListEntries.maxTickets })
    .from(emailListEntries)
    .where(and(eq(emailListEntries.eventId, event.id), eq(emailListEntries.emailKey, emailKey)))
    .get();
  return maxTickets((entry?.cap ?? 0) - (await capUsed(deps, event.id, emailKey)));
}

const ELIGIBILITY_TIMEOUT_MS = 5000;

/** The spec's "Outbound eligibility check" body. Password answers go in clear text (trusted servers only). */
function eligibilityBody(name: string, email: string, draft: OrderDraft, passwords: ReadonlyMap<string, string>) {
  const vat = draft.totals.vatCents;
  const fields = [...draft.fields.map((f) => ({ name: f.name, value: f.value })), ...[...passwords].map(([name, value]) => ({ name, value }))];
  return {
    name,
    email,
    order_amount: centsToDecimal(draft.totals.totalCents),
    order_vat: centsToDecimal(vat),
    fields: fields.length > 0 ? fields : null,
    tickets: draft.priced
      .filter((l) => l.count > 0)
      .map((l) => ({ name: l.name, price: centsToDecimal(l.unitCents), vat: (l.vatHundredths / 100).toFixed(2), count: l.count })),
  };
}

/**
 * The REST check (user group 2): `{count}` caps the order, `count` 0 or a 4xx denies (with the consumer's `error`
 * when given); a timeout, a 5xx or an unreadable answer denies with the standard text and is logged.
 */
async function checkRemote(deps: Deps, event: EventRow, body: unknown, tickets: number): Promise<void> {
  const g = event.userGroups;
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  const colon = g.rest_header.indexOf(":");
  if (colon > 0) headers[g.rest_header.slice(0, colon).trim()] = g.rest_header.slice(colon + 1).trim();
  const x = await exchange(
    g.rest_url,
    { method: "POST", headers, body: JSON.stringify(body) },
    { allowHttp: deps.config.allowHttpOutbound, timeoutMs: ELIGIBILITY_TIMEOUT_MS, resolverUrl: deps.config.outboundDnsUrl },
  );
  const fail = async (why: string) => {
    await writeLog(deps, { eventId: event.id, logType: "Eligibility", description: `Eligibility check at ${g.rest_url} failed: ${why}` });
    return notAllowed();
  };
  if (!x.response) throw await fail(x.error ?? "no answer");
  let answer: { count?: unknown; error?: unknown } = {};
  try {
    answer = JSON.parse(x.response.body) as typeof answer;
  } catch {
    answer = {};
  }
  const message = typeof answer.error === "string" && answer.error.trim() !== "" ? answer.error.trim().slice(0, 300) : undefined;
  if (x.response.code >= 400 && x.response.code < 500) throw notAllowed(message);
  if (x.response.code < 200 || x.response.code >= 300) throw await fail(`HTTP ${x.response.code}`);
  const count = answer.count;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) throw await fail("the answer has no count");
  if (count === 0) throw notAllowed(message);
  if (tickets > count) throw maxTickets(count);
}

/** User groups, when the event restricts who may order: the email list (1) or the REST check (2). */
async function checkUserGroups(
  deps: Deps,
  event: EventRow,
  who: { name: string; email: string },
  draft: OrderDraft,
  passwords: ReadonlyMap<string, string>,
): Promise<ClaimRow[]> {
  if (!event.userGroupsNeeded) return [];
  const tickets = draft.priced.reduce((n, l) => n + l.count, 0);
  const emailKey = who.email.toLowerCase();
  if (event.userGroups.group_type === 1) return checkEmailList(deps, event, emailKey, draft.uid, tickets);
  if (event.userGroups.group_type === 2) await checkRemote(deps, event, eligibilityBody(who.name, who.email, draft, passwords), tickets);
  return [];
}

/**
 * The who-may-order rules of one drafted order, in the decided order (unique users, then user groups); answers
 * the claims to write with it.
 */
export async function whoMayOrder(deps: Deps, draft: OrderDraft, who: { name: string; email: string }): Promise<ClaimRow[]> {
  const emailKey = who.email.toLowerCase();
  const unique = await checkUniqueUser(deps, draft.event, emailKey, draft.uid);
  const groups = await checkUserGroups(deps, draft.event, who, draft, draft.passwords);
  return [...unique, ...groups];
}

/** Claim kinds of open orders, by what they key on: the email, and a keyed hash of the client's address. */
const OPEN_KINDS = ["open", "open_address"] as const;

/**
 * The client's address as open-order claims keep it: HMAC-SHA256 under the `PASSWORD_PEPPER` secret, never the
 * address itself (an unkeyed hash of an IPv4 address is reversed by trying all 2^32). Null when unknown (local
 * development has no `CF-Connecting-IP`): then only the email counts.
 */
export async function buyerAddressKey(deps: Deps, address: string): Promise<string | null> {
  if (address === "") return null;
  return toHex(await hmacSha256(deps.config.passwordPepper, `open-orders:${address}`));
}

/**
 * Open orders per buyer (decisions.md 15), for ordering-key callers: fewer than MAX_OPEN_ORDERS orders awaiting
 * payment on the event by this email and from this address, read here so that a refusal comes before any stock is
 * held; the claims it answers are written in the order's batch, where the trigger `order_claims_open_insert` counts
 * again and refuses the claim past the limit (parallel orders cannot all pass). Only claims of orders still `open`
 * count, so expiring, cancelling, failing or paying an order frees its place whatever path changed it.
 */
export async function openOrderClaims(deps: Deps, eventId: number, uid: string, emailKey: string, addressKey: string | null): Promise<ClaimRow[]> {
  const keys = [{ kind: OPEN_KINDS[0], emailKey }, ...(addressKey === null ? [] : [{ kind: OPEN_KINDS[1], emailKey: addressKey }])];
  const claims = keys.map((k) => ({ ...k, eventId, orderUid: uid, units: MAX_OPEN_ORDERS }));
  const refusal = await openOrdersRefusal(deps, claims);
  if (refusal) throw refusal;
  return claims;
}

/**
 * The `429` for open-order claims that no longer fit, or null while they do: its `Retry-After` is when each full
 * key's earliest open order reaches its payment deadline (its place frees then at the latest). Also answers a claim
 * the trigger refused in the batch.
 */
export async function openOrdersRefusal(deps: Deps, claims: readonly ClaimRow[]): Promise<Error | null> {
  const open = claims.filter((c) => (OPEN_KINDS as readonly string[]).includes(c.kind));
  if (open.length === 0) return null;
  const counted = await deps.db
    .select({ n: sql<number>`count(*)`, freeAt: sql<number | null>`min(${orders.expiresAt})` })
    .from(orderClaims)
    .innerJoin(orders, eq(orders.uid, orderClaims.orderUid))
    .where(
      and(
        eq(orders.paymentStatus, "open"),
        or(...open.map((c) => and(eq(orderClaims.kind, c.kind), eq(orderClaims.eventId, c.eventId), eq(orderClaims.emailKey, c.emailKey)))),
      ),
    )
    .groupBy(orderClaims.kind, orderClaims.eventId, orderClaims.emailKey);
  const full = counted.filter((c) => c.n >= MAX_OPEN_ORDERS);
  if (full.length === 0) return null;
  const hold = deps.config.orderHoldMinutes * 60;
  const waits = full.map((c) => (c.freeAt === null ? hold : Math.min(hold, c.freeAt - deps.now())));
  return tooManyOpenOrders(Math.max(...waits));
}

/** A paid order waits no more: its open-order claims go in the batch that makes it final (decisions.md 15). */
export function dropOpenClaims(deps: Deps, uid: string, onlyIf: SQL) {
  return deps.db.delete(orderClaims).where(and(eq(orderClaims.orderUid, uid), inArray(orderClaims.kind, [...OPEN_KINDS]), onlyIf));
}

/**
 * Confirmation emails (RSVP): the orders wait for their customer, deleted `confirmation_timeout` minutes after they
 * were placed (0: never); `waitingDeadline` counts from the order's `created_at`.
 */
export function confirmationFor(event: EventRow): { timeoutMinutes: number } | undefined {
  if (!event.confirmationEmailsNeeded) return undefined;
  return { timeoutMinutes: event.confirmationTimeout };
}
