import { and, asc, eq, ne } from "drizzle-orm";
import { inIds } from "../../db/client";
import { coupons, emailListEntries, emails } from "../../db/schema";
import { forbidden, invalidParams, tooManyRequests } from "../../domain/errors";
import { purifyEmailHtml } from "../../lib/html";
import { centsToAmount, centsToDecimal } from "../../lib/money";
import { randomString } from "../../lib/random";
import { formatOptionalDateTime, parseDateTime } from "../../lib/time";
import type { CouponEmailExampleInput, CouponEmailsCriteria, CouponEmailsSendInput } from "./coupon-emails.schema";
import { assertEventAccess, eventForbidden, isAdministrator, type AuthUser } from "../../domain/authority";
import { couponOwnerOf, couponVisibleTo, type CouponRow } from "../../domain/coupon-rules";
import type { Deps } from "../../platform/deps";
import { takeDailyQuota } from "../../platform/daily-quota";
import { writeLogStatement } from "../logs/logs.service";
import { assertEventsExist } from "../catalogue/event-references";
import { enqueueEmails } from "../messaging/emails.service";
import { renderEmail, type KeywordValues } from "../messaging/email-templates";

/**
 * Bulk coupon emails (spec "Bulk coupon emails"; decisions.md 9, 10, 12). Source `1`: coupons tied to an address,
 * each mailed its own. Source `0`: the addresses of the events' email lists, each given a new coupon with the
 * conditions of the template coupon (code: the template's plus a random suffix), then mailed it. Mails go through
 * the outbox and the queue like every other email.
 */

export interface CouponEmailError {
  id: number;
  error: string;
}

/** Named events must exist; empty `event_ids` reach every event: administrators only (decisions.md 12, 13). */
async function assertScope(deps: Deps, user: AuthUser, eventIds: readonly number[]): Promise<void> {
  await assertEventsExist(deps, "event_ids", eventIds);
  if (eventIds.length === 0 && !isAdministrator(user)) throw forbidden("Only administrators may send coupon emails without event_ids.");
  assertEventAccess(user, eventIds);
}

/** A coupon's bounds `[low, high]` lie within the criteria's; 0 on either side is no bound. */
function within(low: number, high: number, from: number, to: number): boolean {
  return (from === 0 || low === 0 || low >= from) && (to === 0 || high === 0 || high <= to);
}

/** Source 1's selection (decisions.md 12). */
function matches(deps: Deps, coupon: CouponRow, c: CouponEmailsCriteria): boolean {
  const key = coupon.codeKey;
  if (coupon.emailKey === "" || !key.startsWith(c.code_prefix.toLowerCase()) || !key.endsWith(c.code_suffix.toLowerCase())) return false;
  if (c.event_ids.length > 0 && coupon.events.length > 0 && !coupon.events.some((e) => c.event_ids.includes(e))) return false;
  const from = c.date_from === "" ? null : parseDateTime(c.date_from, deps.config.timezone);
  const to = c.date_to === "" ? null : parseDateTime(c.date_to, deps.config.timezone);
  if (from !== null && (coupon.startDate === null || coupon.startDate < from)) return false;
  if (to !== null && (coupon.endDate === null || coupon.endDate > to)) return false;
  return (
    within(coupon.minimumTickets, coupon.maximumTickets, c.tickets_minimum, c.tickets_maximum) &&
    within(coupon.minimumAmountCents, coupon.maximumAmountCents, c.amount_minimum, c.amount_maximum)
  );
}

/** `POST /admin/coupons/bulk/emails/list`: the ids a send may use (email-list entries or coupons), ascending. */
export async function listCouponEmailTargets(deps: Deps, user: AuthUser, c: CouponEmailsCriteria): Promise<number[]> {
  await assertScope(deps, user, c.event_ids);
  const { db } = deps;
  if (c.bulk_source === "0") {
    await templateCoupon(deps, user, c.template_code);
    const rows = await db
      .select({ id: emailListEntries.id })
      .from(emailListEntries)
      .where(c.event_ids.length > 0 ? inIds(emailListEntries.eventId, c.event_ids) : undefined)
      .orderBy(asc(emailListEntries.id));
    return rows.map((r) => r.id);
  }
  const rows = await db.select().from(coupons).where(ne(coupons.emailKey, "")).orderBy(asc(coupons.id));
  return rows.filter((coupon) => couponVisibleTo(user, coupon) && matches(deps, coupon, c)).map((coupon) => coupon.id);
}

export function echoCouponCriteria(deps: Deps, c: CouponEmailsCriteria) {
  return {
    bulk_source: c.bulk_source,
    event_ids: c.event_ids.join(","),
    template_code: c.template_code,
    code_prefix: c.code_prefix,
    code_suffix: c.code_suffix,
    date_from: c.date_from,
    date_to: c.date_to,
    tickets_minimum: c.tickets_minimum,
    tickets_maximum: c.tickets_maximum,
    amount_minimum: centsToAmount(c.amount_minimum),
    amount_maximum: centsToAmount(c.amount_maximum),
    batch_size: deps.config.bulkBatchSize,
  };
}

/**
 * The template coupon a code names: among the caller's own coupons (all administrators are one owner), since a code
 * is unique per owner only (decisions.md 15). Another owner's code is answered as an unknown one, so it is never
 * confirmed; the caller's own coupon that it may no longer see (an administrator widened its events) is a 403.
 */
async function templateCoupon({ db }: Deps, user: AuthUser, code: string): Promise<CouponRow> {
  const template = await db
    .select()
    .from(coupons)
    .where(and(eq(coupons.codeKey, code.toLowerCase()), eq(coupons.ownerId, couponOwnerOf(user))))
    .get();
  if (!template) throw invalidParams({ template_code: "no coupon has this code" });
  if (!couponVisibleTo(user, template)) throw eventForbidden();
  return template;
}

/** The coupon keywords of decisions.md 9. */
function couponKeywords(
  deps: Deps,
  coupon: Pick<
    CouponRow,
    "code" | "type" | "amountHundredths" | "startDate" | "endDate" | "minimumTickets" | "maximumTickets" | "minimumAmountCents" | "maximumAmountCents"
  >,
  email: string,
): KeywordValues {
  const money = (cents: number) => (cents === 0 ? "" : `${centsToDecimal(cents)} ${deps.config.currency}`);
  const tz = deps.config.timezone;
  return {
    EMAIL: { text: email },
    CODE: { text: coupon.code },
    AMOUNT: { text: coupon.type === "percent" ? `${coupon.amountHundredths / 100}%` : `${centsToDecimal(coupon.amountHundredths)} ${deps.config.currency}` },
    "START-DATE": { text: formatOptionalDateTime(coupon.startDate, tz) },
    "END-DATE": { text: formatOptionalDateTime(coupon.endDate, tz) },
    "MIN-TICKETS": { text: coupon.minimumTickets === 0 ? "" : String(coupon.minimumTickets) },
    "MAX-TICKETS": { text: coupon.maximumTickets === 0 ? "" : String(coupon.maximumTickets) },
    "MIN-AMOUNT": { text: money(coupon.minimumAmountCents) },
    "MAX-AMOUNT": { text: money(coupon.maximumAmountCents) },
  };
}

function outboxRow(deps: Deps, to: string, rendered: { subject: string; html: string }, eventId: number) {
  const now = deps.now();
  return {
    to,
    bcc: "",
    fromName: deps.config.email.fromName,
    fromEmail: deps.config.email.from,
    subject: rendered.subject,
    body: rendered.html,
    eventId,
    orderId: 0,
    createdAt: now,
    dueAt: now,
  };
}

/** `POST /admin/coupons/bulk/emails/send`: per-id errors; the rest mailed (source 0: after making their coupon). */
export async function sendCouponEmails(deps: Deps, user: AuthUser, input: CouponEmailsSendInput): Promise<CouponEmailError[]> {
  if (input.ids.length > deps.config.bulkBatchSize) throw invalidParams({ ids: `must name at most ${deps.config.bulkBatchSize} ids` });
  const { db } = deps;
  const template = { subject: input.subject, body: await purifyEmailHtml(input.body) };
  const errors: CouponEmailError[] = [];
  const statements = [];
  if (input.bulk_source === "0") {
    // The coupons made are the template's owner's, that is the caller's.
    const base = await templateCoupon(deps, user, input.template_code);
    const entries = await db.select().from(emailListEntries).where(inIds(emailListEntries.id, input.ids));
    const byId = new Map(entries.map((e) => [e.id, e]));
    const now = deps.now();
    for (const id of input.ids) {
      const entry = byId.get(id);
      if (!entry || !(isAdministrator(user) || user.authorisedEvents.includes(entry.eventId))) {
        errors.push({ id, error: "Email list entry not found" });
        continue;
      }
      const code = `${base.code}-${randomString(8).toUpperCase()}`;
      const { id: _id, used: _used, lastUsed: _last, ...conditions } = base;
      statements.push(
        db.insert(coupons).values({ ...conditions, code, codeKey: code.toLowerCase(), email: entry.email, emailKey: entry.emailKey, createdAt: now, modifiedAt: now }),
      );
      const rendered = renderEmail(template, couponKeywords(deps, { ...base, code }, entry.email));
      statements.push(
        db
          .insert(emails)
          .values(outboxRow(deps, entry.email, rendered, entry.eventId))
          .returning({ id: emails.id }),
      );
    }
  } else {
    const rows = await db.select().from(coupons).where(inIds(coupons.id, input.ids));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of input.ids) {
      const coupon = byId.get(id);
      if (!coupon || coupon.emailKey === "" || !couponVisibleTo(user, coupon)) {
        errors.push({ id, error: "Coupon not found" });
        continue;
      }
      const rendered = renderEmail(template, couponKeywords(deps, coupon, coupon.email));
      statements.push(
        db
          .insert(emails)
          .values(outboxRow(deps, coupon.email, rendered, coupon.events[0] ?? 0))
          .returning({ id: emails.id }),
      );
    }
  }
  if (statements.length > 0) {
    const results = (await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]])) as unknown[];
    const ids = results.flatMap((r) => (Array.isArray(r) ? (r as { id?: number }[]).flatMap((x) => (x.id === undefined ? [] : [x.id])) : []));
    await enqueueEmails(deps, ids);
  }
  return errors;
}

/**
 * Examples a user may send a day (decisions.md 15): the route mails any address from the platform's sender, so it
 * is bounded per user, counted in D1 (platform/daily-quota.ts) so that isolates and requests at once share it.
 */
const EXAMPLE_EMAILS_PER_DAY = 20;

/**
 * `POST /admin/coupons/bulk/emails/send-example`: the body filled with a sample coupon, to one address; at most
 * EXAMPLE_EMAILS_PER_DAY a day per user (`429` after), each logged with the mail it wrote.
 */
export async function sendCouponEmailExample(deps: Deps, user: AuthUser, input: CouponEmailExampleInput): Promise<CouponEmailError[]> {
  const sample = {
    code: "EXAMPLE-CODE",
    type: "percent" as const,
    amountHundredths: 1000,
    startDate: deps.now(),
    endDate: deps.now() + 30 * 86_400,
    minimumTickets: 1,
    maximumTickets: 10,
    minimumAmountCents: 1000,
    maximumAmountCents: 50_000,
  };
  const rendered = renderEmail({ subject: input.subject, body: await purifyEmailHtml(input.body) }, couponKeywords(deps, sample, input.email));
  const quota = await takeDailyQuota(deps, "coupon-email-example", user.id, EXAMPLE_EMAILS_PER_DAY);
  if (!quota.allowed) {
    throw tooManyRequests(quota.retryAfterSeconds, `At most ${EXAMPLE_EMAILS_PER_DAY} example emails a day; try again tomorrow.`);
  }
  const [[row]] = await deps.db.batch([
    deps.db
      .insert(emails)
      .values(outboxRow(deps, input.email, rendered, 0))
      .returning({ id: emails.id }),
    writeLogStatement(deps, {
      logType: "Email",
      description: `Example coupon email to ${input.email} sent by user ${user.id} (${quota.used} of ${EXAMPLE_EMAILS_PER_DAY} today)`,
    }),
  ]);
  await enqueueEmails(deps, [row!.id]);
  return [];
}
