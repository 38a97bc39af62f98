import { and, asc, count as countRows, desc, eq, ne, or, sql, type SQL } from "drizzle-orm";
import { inIds, inScope } from "../../db/client";
import {
  events,
  inputFields,
  orders,
  revokedTickets,
  scanKeys,
  scanReloads,
  scans,
  ticketTypes,
  tickets,
  users,
  type ConfirmationEmailSettings,
  type EmailSettings,
  type SeatSettings,
  type TicketPdfSettings,
  type UserGroupSettings,
  waitingList,
} from "../../db/schema";
import { conflict, forbidden, invalidId, invalidParams } from "../../domain/errors";
import { pageWindow } from "../../domain/paging";
import { purifyEmailHtml, purifyTerms } from "../../lib/html";
import { outboundUrlProblem } from "../../lib/outbound-url";
import { formatDateTime, parseDateTime } from "../../lib/time";
import type { EventInput, ListEventsQuery, NewEventInput } from "./events.schema";
import { regionForTimeZone } from "../../domain/regions";
import { assertEventAccess, eventScope, isAdministrator, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";
import { inGroup } from "./event-groups";
import { bumpConfigVersion, forgetScanKey, pushEventConfig, retireEventObject } from "./event-config.service";
import { templateAccess } from "./template-references";
import { purgeEventPdfs, purgeOrderPdfs } from "../../platform/pdf-cache";
import { eventTopic } from "./event-topics";
import type { EventRow } from "../../db/rows";

const DEFAULT_EVENT_DATE_FORMAT = "Y-m-d H:i";

const DEFAULT_EMAIL: EmailSettings = { sender_name: "", sender_email: "", bcc: "", subject: "", body: "" };
const DEFAULT_CONFIRMATION_EMAIL: ConfirmationEmailSettings = { bcc: "", subject: "", body: "", redirect: "" };
const DEFAULT_USER_GROUPS: UserGroupSettings = { group_type: 0, rest_url: "", rest_header: "" };
const DEFAULT_SEATS: SeatSettings = { number_of_seats: 0, seats_format: "", seats_config: "", linked_event: 0 };
export const DEFAULT_TICKET_PDF: TicketPdfSettings = { attachment_id: 0, x_position: 10, y_position: 10, rotation: 0, scale: 100, no_border: false };

export async function getEvent({ db }: Deps, id: number): Promise<EventRow> {
  const row = await db.select().from(events).where(eq(events.id, id)).get();
  if (!row) throw invalidId("event");
  return row;
}

/** The event, when the user may see it: 404 when it does not exist, 403 when it is outside the user's events. */
export async function getEventFor(deps: Deps, user: AuthUser, id: number): Promise<EventRow> {
  const event = await getEvent(deps, id);
  assertEventAccess(user, [id]);
  return event;
}

export async function listEvents(deps: Deps, user: AuthUser, q: ListEventsQuery): Promise<{ rows: EventRow[]; total: number }> {
  assertEventAccess(user, [...(q.include ?? []), ...(q.exclude ?? [])]);
  const conditions = [inScope(events.id, eventScope(user))];
  if (q.search) conditions.push(sql`instr(${events.searchName}, ${q.search.toLowerCase()}) > 0`);
  if (q.include) conditions.push(inIds(events.id, q.include));
  if (q.exclude) conditions.push(sql`NOT ${inIds(events.id, q.exclude)}`);
  const where = and(...conditions.filter((c): c is SQL => c !== undefined));
  const column = { id: events.id, event_date: events.eventDate, start_date: events.startDate, end_date: events.endDate }[q.orderby];
  const direction = q.order === "desc" ? desc : asc;
  const { limit, offset } = pageWindow(q);
  const [rows, totals] = await deps.db.batch([
    deps.db.select().from(events).where(where).orderBy(direction(column), direction(events.id)).limit(limit).offset(offset),
    deps.db.select({ n: countRows() }).from(events).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** The settings of an event after applying `input` to `base` (nested settings merge field by field). */
interface EventSettings {
  eventName: string;
  timezone: string;
  eventDate: number | null;
  eventDateFormat: string;
  startDate: number | null;
  endDate: number | null;
  stock: number;
  stockLink: number;
  groupType: number;
  eventGroup: string;
  redirect: string;
  orderSubmitText: string;
  terms: string;
  email: EmailSettings;
  emailConfirmation: ConfirmationEmailSettings;
  confirmationTimeout: number;
  uniqueEventIds: number[];
  userGroups: UserGroupSettings;
  seats: SeatSettings;
  ticketPdf: TicketPdfSettings;
  emailsNeeded: boolean;
  ticketsNeeded: boolean;
  invoiceNeeded: boolean;
  uniqueUsersNeeded: boolean;
  userGroupsNeeded: boolean;
  recaptchaNeeded: boolean;
  confirmationEmailsNeeded: boolean;
  addDashboardOrdersNeeded: boolean;
  testPaymentsNeeded: boolean;
  seatsNeeded: boolean;
  webhooksNeeded: boolean;
  reloadOnExitNeeded: boolean;
  couponsNeeded: boolean;
  waitingListNeeded: boolean;
}

function defaultSettings(deps: Deps): EventSettings {
  return {
    eventName: "",
    timezone: deps.config.timezone,
    eventDate: null,
    eventDateFormat: DEFAULT_EVENT_DATE_FORMAT,
    startDate: null,
    endDate: null,
    stock: 0,
    stockLink: 0,
    groupType: 0,
    eventGroup: "",
    redirect: "",
    orderSubmitText: "",
    terms: "",
    email: DEFAULT_EMAIL,
    emailConfirmation: DEFAULT_CONFIRMATION_EMAIL,
    confirmationTimeout: 0,
    uniqueEventIds: [],
    userGroups: DEFAULT_USER_GROUPS,
    seats: DEFAULT_SEATS,
    ticketPdf: DEFAULT_TICKET_PDF,
    emailsNeeded: false,
    ticketsNeeded: false,
    invoiceNeeded: false,
    uniqueUsersNeeded: false,
    userGroupsNeeded: false,
    recaptchaNeeded: false,
    confirmationEmailsNeeded: false,
    addDashboardOrdersNeeded: false,
    testPaymentsNeeded: false,
    seatsNeeded: false,
    webhooksNeeded: false,
    reloadOnExitNeeded: false,
    couponsNeeded: false,
    waitingListNeeded: false,
  };
}

function settingsOf(row: EventRow): EventSettings {
  const { id: _id, sold: _sold, searchName: _s, configVersion: _v, pushedVersion: _p, createdAt: _c, modifiedAt: _m, ...settings } = row;
  return settings;
}

/** One field's reach into other events: the ids it names, and whether its flag puts them to use now. */
interface Reach {
  ids: number[];
  active: boolean;
}

/**
 * The other events a settings value names, by field, whatever its flag says: a reference held while its flag is
 * off is a reference all the same (decisions.md 15), and it is put to use the moment the flag is switched on.
 */
function reachOf(s: EventSettings, selfId: number | null): Map<string, Reach> {
  const refs = new Map<string, Reach>();
  if (s.stockLink !== 0 && s.stockLink !== selfId) refs.set("stock_link", { ids: [s.stockLink], active: true });
  if (s.seats.linked_event !== 0 && s.seats.linked_event !== selfId) refs.set("seats", { ids: [s.seats.linked_event], active: s.seatsNeeded });
  const unique = s.uniqueEventIds.filter((id) => id !== selfId);
  if (unique.length > 0) refs.set("unique_event_ids", { ids: unique, active: s.uniqueUsersNeeded });
  return refs;
}

/**
 * What a change adds to an event's reach, by field: the ids a field did not name before, and all of a field's ids
 * when the change switches its flag on. A reference an administrator gave the event may stay as it is; naming a new
 * one, or putting a held one to use, needs authority over the event it names (decisions.md 15).
 */
function addedReach(after: Map<string, Reach>, before: Map<string, Reach>): Map<string, number[]> {
  const added = new Map<string, number[]>();
  for (const [field, reach] of after) {
    const prior = before.get(field);
    const ids = reach.ids.filter((id) => prior === undefined || !prior.ids.includes(id) || (reach.active && !prior.active));
    if (ids.length > 0) added.set(field, ids);
  }
  return added;
}

/** A stored instant shown as wall time in one zone, read back in another: the wall time stays. */
function keepWallTime(instant: number | null, from: string, to: string): number | null {
  return instant === null || from === to ? instant : parseDateTime(formatDateTime(instant, from), to);
}

/** Email bodies are stored purified (no scripts, handlers or javascript: URLs), so every later use is safe. */
async function withPurifiedBody<T extends { body: string }>(base: T, sent: Partial<T> | undefined): Promise<T> {
  const merged = { ...base, ...sent };
  return sent?.body === undefined ? merged : { ...merged, body: await purifyEmailHtml(sent.body) };
}

async function applyInput(base: EventSettings, input: EventInput): Promise<EventSettings> {
  const timezone = input.timezone ?? base.timezone;
  const date = (sent: string | undefined, stored: number | null) =>
    sent === undefined ? keepWallTime(stored, base.timezone, timezone) : sent === "" ? null : parseDateTime(sent, timezone);
  return {
    eventName: input.event_name ?? base.eventName,
    timezone,
    eventDate: date(input.event_date, base.eventDate),
    eventDateFormat: input.event_date_format ?? base.eventDateFormat,
    startDate: date(input.start_date, base.startDate),
    endDate: date(input.end_date, base.endDate),
    stock: input.stock ?? base.stock,
    stockLink: input.stock_link ?? base.stockLink,
    groupType: input.group_type ?? base.groupType,
    eventGroup: input.event_group ?? base.eventGroup,
    redirect: input.redirect ?? base.redirect,
    orderSubmitText: input.order_submit_text ?? base.orderSubmitText,
    terms: input.terms === undefined ? base.terms : await purifyTerms(input.terms),
    email: await withPurifiedBody(base.email, input.email),
    emailConfirmation: await withPurifiedBody(base.emailConfirmation, input.email_confirmation),
    confirmationTimeout: input.confirmation_timeout ?? base.confirmationTimeout,
    uniqueEventIds: input.unique_event_ids ?? base.uniqueEventIds,
    userGroups: { ...base.userGroups, ...input.user_groups },
    seats: { ...base.seats, ...input.seats },
    ticketPdf: { ...base.ticketPdf, ...input.pdf_fields?.ticket },
    emailsNeeded: input.emails_needed ?? base.emailsNeeded,
    ticketsNeeded: input.tickets_needed ?? base.ticketsNeeded,
    invoiceNeeded: input.invoice_needed ?? base.invoiceNeeded,
    uniqueUsersNeeded: input.unique_users_needed ?? base.uniqueUsersNeeded,
    userGroupsNeeded: input.user_groups_needed ?? base.userGroupsNeeded,
    recaptchaNeeded: input.recaptcha_needed ?? base.recaptchaNeeded,
    confirmationEmailsNeeded: input.confirmation_emails_needed ?? base.confirmationEmailsNeeded,
    addDashboardOrdersNeeded: input.add_dashboard_orders_needed ?? base.addDashboardOrdersNeeded,
    testPaymentsNeeded: input.test_payments_needed ?? base.testPaymentsNeeded,
    seatsNeeded: input.seats_needed ?? base.seatsNeeded,
    webhooksNeeded: input.webhooks_needed ?? base.webhooksNeeded,
    reloadOnExitNeeded: input.reload_on_exit_needed ?? base.reloadOnExitNeeded,
    couponsNeeded: input.coupons_needed ?? base.couponsNeeded,
    waitingListNeeded: input.waiting_list_needed ?? base.waitingListNeeded,
  };
}

const SEATS_CONFIG = /^\s*[^:,]+:\d+-\d+\s*(,\s*[^:,]+:\d+-\d+\s*)*$/;
const SEATS_FORMAT = /^[^%]*%s[^%]*%(d|02d)[^%]*$/;
const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[ \t]*\S.*$/;

/**
 * The rules that need more than one field, the flags, or D1. A feature's nested settings are checked only while
 * its flag is on; what they name (events, a template) is checked whatever the flag (decisions.md 15). Every problem
 * found is reported at once, keyed by top-level field, before any 403.
 */
async function checkSettings(deps: Deps, user: AuthUser, s: EventSettings, selfId: number | null, stored: EventSettings | null): Promise<void> {
  const problems: Record<string, string> = {};

  if (s.groupType > 0 && s.eventGroup === "") problems.event_group = "is required when group_type is 1, 2 or 3";
  if (s.startDate !== null && s.endDate !== null && s.endDate < s.startDate) problems.end_date = "must not be before start_date";
  if (s.stockLink !== 0 && s.stockLink === selfId) problems.stock_link = "must not be the event itself";
  if (s.userGroupsNeeded) {
    const g = s.userGroups;
    if (g.group_type === 0) problems.user_groups = "group_type must be 1 or 2 while user_groups_needed is on";
    else if (g.group_type === 2) {
      const urlProblem = outboundUrlProblem(g.rest_url, deps.config.allowHttpOutbound);
      if (urlProblem) problems.user_groups = `rest_url ${urlProblem}`;
      else if (g.rest_header !== "" && !HEADER_LINE.test(g.rest_header)) problems.user_groups = 'rest_header must be one "Name: value" line';
    }
  }
  if (s.emailsNeeded && s.email.subject === "") problems.email = "subject must not be blank while emails_needed is on";
  if (s.confirmationEmailsNeeded && s.emailConfirmation.subject === "") {
    problems.email_confirmation = "subject must not be blank while confirmation_emails_needed is on";
  }
  if (s.seatsNeeded) {
    const seats = s.seats;
    // An event sharing another event's plan (linked_event) needs no plan of its own.
    const ownPlan = seats.linked_event === 0 || seats.seats_config !== "";
    if (ownPlan && !SEATS_CONFIG.test(seats.seats_config)) problems.seats = 'seats_config must be "row:from-to" entries separated by commas';
    else if (!SEATS_FORMAT.test(seats.seats_format)) problems.seats = "seats_format must hold %s for the row, then %d or %02d for the seat";
    else if (seats.linked_event !== 0 && seats.linked_event === selfId) problems.seats = "linked_event must not be the event itself";
  }
  // A template is checked when it is new, or when switching tickets on puts a held one to use (decisions.md 15).
  const template = s.ticketPdf.attachment_id;
  const templateAdded = template !== 0 && (template !== stored?.ticketPdf.attachment_id || (s.ticketsNeeded && !stored.ticketsNeeded));
  const templateUse = templateAdded ? await templateAccess(deps, user, template) : "usable";
  if (templateUse === "unknown") problems.pdf_fields = `ticket.attachment_id ${template} is not a PDF template`;

  const added = addedReach(reachOf(s, selfId), stored ? reachOf(stored, selfId) : new Map());
  const addedIds = [...new Set([...added.values()].flat())];
  if (addedIds.length > 0) {
    const found = new Set((await deps.db.select({ id: events.id }).from(events).where(inIds(events.id, addedIds))).map((r) => r.id));
    for (const [field, ids] of added) {
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) problems[field] ??= `names events that do not exist: ${missing.join(", ")}`;
    }
  }
  if (Object.keys(problems).length > 0) throw invalidParams(problems);
  // Unknown ids are a 400 above; ids the user may not manage a 403, flag on or off (decisions.md 15).
  assertEventAccess(user, addedIds);
  if (templateUse === "forbidden") throw forbidden();
  await assertGroupReachable(deps, user, s, selfId, stored);
}

/**
 * An event group is a reference too (decisions.md 14, 15): joining one that holds an event the user may not manage
 * is a 403, so every group an organizer builds holds only its own events and the places that gather a group's
 * events need no filter of their own. Staying in a group an administrator mixed is not joining it; turning an event
 * of it into its passe-partout is reaching into every other event of it (tickets for them, their stock), checked
 * alike.
 */
async function assertGroupReachable(deps: Deps, user: AuthUser, s: EventSettings, selfId: number | null, stored: EventSettings | null) {
  if (isAdministrator(user) || s.groupType === 0) return;
  const joins = stored === null || stored.groupType === 0 || stored.eventGroup !== s.eventGroup;
  const becomesPassePartout = s.groupType === 3 && stored?.groupType !== 3;
  if (!joins && !becomesPassePartout) return;
  const members = await deps.db
    .select({ id: events.id })
    .from(events)
    .where(and(inGroup(s.eventGroup), selfId === null ? undefined : ne(events.id, selfId)));
  assertEventAccess(
    user,
    members.map((m) => m.id),
  );
}

/** Creates an event; an organizer's new event joins its authorised events in the same batch. */
export async function createEvent(deps: Deps, user: AuthUser, input: NewEventInput): Promise<EventRow> {
  const settings = await applyInput(defaultSettings(deps), input);
  await checkSettings(deps, user, settings, null, null);
  const region = input.region || regionForTimeZone(settings.timezone) || "";
  const now = deps.now();
  const insert = deps.db
    .insert(events)
    .values({ ...settings, region, searchName: settings.eventName.toLowerCase(), createdAt: now, modifiedAt: now })
    .returning();
  let created: EventRow;
  if (isAdministrator(user)) {
    created = (await insert)[0]!;
  } else {
    const [rows] = await deps.db.batch([
      insert,
      deps.db
        .update(users)
        .set({
          authorisedEvents: sql`(SELECT json_group_array(v) FROM (SELECT value AS v FROM json_each(${users.authorisedEvents}) UNION SELECT last_insert_rowid() ORDER BY v))`,
        })
        .where(eq(users.id, user.id)),
    ]);
    created = rows[0]!;
  }
  await pushEventConfig(deps, created.id);
  eventTopic(deps, "event.created", created);
  return created;
}

export async function updateEvent(deps: Deps, user: AuthUser, current: EventRow, input: EventInput): Promise<EventRow> {
  const stored = settingsOf(current);
  const settings = await applyInput(stored, input);
  await checkSettings(deps, user, settings, current.id, stored);
  const [updated] = await deps.db.batch([
    deps.db
      .update(events)
      .set({ ...settings, searchName: settings.eventName.toLowerCase(), modifiedAt: deps.now() })
      .where(eq(events.id, current.id))
      .returning(),
    bumpConfigVersion(deps, current.id),
  ]);
  if (!updated[0]) throw invalidId("event"); // deleted meanwhile
  await pushEventConfig(deps, current.id);
  eventTopic(deps, "event.updated", updated[0]);
  await purgeEventPdfs(deps, [current.id]);
  return updated[0];
}

const namesInUniqueIds = (id: number) => sql`EXISTS (SELECT 1 FROM json_each(${events.uniqueEventIds}) WHERE value = ${id})`;
const linksSeatsTo = (id: number) => sql`json_extract(${events.seats}, '$.linked_event') = ${id}`;

/**
 * Other events that use this one (stock link, a seat plan or unique-user group whose flag is on): they must let go
 * first. A reference held while its flag is off uses nothing and blocks no delete (decisions.md 15); the delete
 * takes it out.
 */
async function referrers(deps: Deps, id: number): Promise<EventRow[]> {
  return deps.db
    .select()
    .from(events)
    .where(
      and(
        ne(events.id, id),
        or(eq(events.stockLink, id), and(eq(events.seatsNeeded, true), linksSeatsTo(id)), and(eq(events.uniqueUsersNeeded, true), namesInUniqueIds(id))),
      ),
    );
}

/** The statements that take a deleted event out of the references other events hold while their flag is off. */
function dropDormantReferences({ db, now }: Deps, id: number) {
  return [
    db
      .update(events)
      .set({ uniqueEventIds: sql`(SELECT json_group_array(value) FROM json_each(${events.uniqueEventIds}) WHERE value <> ${id})`, modifiedAt: now() })
      .where(and(ne(events.id, id), namesInUniqueIds(id))),
    db
      .update(events)
      .set({ seats: sql`json_set(${events.seats}, '$.linked_event', 0)`, modifiedAt: now() })
      .where(and(ne(events.id, id), linksSeatsTo(id))),
  ] as const;
}

/**
 * Deletes an event with its catalogue. While it has orders this needs `force`, which deletes its orders and
 * tickets too. The event's object then forgets its state.
 */
export async function deleteEvent(deps: Deps, event: EventRow, force: boolean): Promise<void> {
  const { db } = deps;
  const linked = await referrers(deps, event.id);
  if (linked.length > 0) {
    throw conflict(`Event ${event.id} is referred to by event(s) ${linked.map((e) => e.id).join(", ")}; remove those references first.`);
  }
  const hasOrders = await db.select({ id: orders.id }).from(orders).where(eq(orders.eventId, event.id)).limit(1).get();
  if (hasOrders && !force) throw conflict(`Event ${event.id} has orders; delete with ?force=true to delete them too.`);
  const keys = await db.select({ key: scanKeys.key }).from(scanKeys).where(eq(scanKeys.eventId, event.id));
  // Their cached PDFs cannot be found through D1 once the orders are gone: purge by uid.
  const uids = hasOrders ? (await db.select({ uid: orders.uid }).from(orders).where(eq(orders.eventId, event.id))).map((o) => o.uid) : [];
  // Ticket types go before input fields: the reference triggers refuse to delete a field a type still names.
  await db.batch([
    db.delete(tickets).where(eq(tickets.eventId, event.id)),
    db.delete(scans).where(eq(scans.eventId, event.id)),
    db.delete(scanReloads).where(eq(scanReloads.eventId, event.id)),
    db.delete(revokedTickets).where(eq(revokedTickets.eventId, event.id)),
    db.delete(orders).where(eq(orders.eventId, event.id)),
    db.delete(ticketTypes).where(eq(ticketTypes.eventId, event.id)),
    db.delete(inputFields).where(eq(inputFields.eventId, event.id)),
    db.delete(scanKeys).where(eq(scanKeys.eventId, event.id)),
    db.delete(waitingList).where(eq(waitingList.eventId, event.id)),
    ...dropDormantReferences(deps, event.id),
    db.delete(events).where(eq(events.id, event.id)),
    db
      .update(users)
      .set({ authorisedEvents: sql`(SELECT json_group_array(value) FROM json_each(${users.authorisedEvents}) WHERE value <> ${event.id})` })
      .where(sql`EXISTS (SELECT 1 FROM json_each(${users.authorisedEvents}) WHERE value = ${event.id})`),
  ]);
  for (const { key } of keys) forgetScanKey(key);
  await deps.files.delete(await deps.files.list(`emaillists/${event.id}/`));
  await retireEventObject(deps, event.id);
  await purgeOrderPdfs(deps, uids);
  eventTopic(deps, "event.deleted", event);
}
