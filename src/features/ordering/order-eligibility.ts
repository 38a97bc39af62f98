import { and, eq, inArray, sql } from "drizzle-orm";
import { emailListEntries, orderClaims } from "../../db/schema";
import { centsToDecimal } from "../../lib/money";
import { exchange } from "../../lib/outbound";
import type { Deps } from "../../platform/deps";
import { writeLog } from "../logs/logs.service";
import type { OrderDraft } from "./order-drafts";
import { orderError } from "../../domain/order-rules";
import type { ClaimRow, EventRow } from "../../db/rows";

/**
 * Who may order (decisions.md 5.7 and 13): unique users, the email-list restriction with its per-person cap, and the
 * external REST check. Each rule reads first so that a refusal comes in the decided order; the claims it returns
 * are written in the order's batch, where a unique index and a trigger decide for good (two parallel orders cannot
 * both pass).
 */

export const alreadyOrdered = () => orderError("order_already_ordered", "You already have a booking/order");
export const notAllowed = (message = "You are not allowed to book/order") => orderError("order_not_allowed", message);
export const maxTickets = (n: number) => orderError("order_max_tickets", `You can book a maximum of ${Math.max(0, n)} tickets`);

/** The events one order per email spans: the event, and its `unique_event_ids` while unique users is on. */
export function uniqueScope(event: EventRow): number[] {
  return event.uniqueUsersNeeded ? [...new Set([event.id, ...event.uniqueEventIds])] : [];
}

/** Unique users: no live order by this email in the scope (read here, claimed in the batch). */
export async function checkUniqueUser(deps: Deps, event: EventRow, emailKey: string, uid: string): Promise<ClaimRow[]> {
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
export function eligibilityBody(name: string, email: string, draft: OrderDraft, passwords: ReadonlyMap<string, string>) {
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
export async function checkUserGroups(
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

/** Confirmation emails (RSVP): the orders wait for their customer, deleted after `confirmation_timeout` minutes. */
export function confirmationFor(event: EventRow, now: number): { deadline: number | null } | undefined {
  if (!event.confirmationEmailsNeeded) return undefined;
  return { deadline: event.confirmationTimeout > 0 ? now + event.confirmationTimeout * 60 : null };
}
