import { and, asc, count as countRows, eq, lte, ne, sql } from "drizzle-orm";
import { isUniqueViolation } from "../../db/client";
import { orders, ticketTypes, waitingList } from "../../db/schema";
import { fail, invalidId, invalidParams } from "../../domain/errors";
import { checkOrderer, checkSaleWindow } from "../../domain/order-rules";
import { pageWindow, type PageRequest } from "../../domain/paging";
import { remainingOfType } from "../../domain/stock-left";
import { log } from "../../lib/log";
import type { Deps } from "../../platform/deps";
import { remainingOf } from "../checkout/order-form.service";
import { deliveryStatements, enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import type { EventRow } from "../../db/rows";
import type { JoinWaitingListInput } from "./waiting-list.schema";
import { presentEntry } from "./waiting-list.schema";
import { linkBaseOf, withoutLinks } from "../../http/links";
import { API_BASE } from "../../config";

/**
 * Who is in line for a sold-out type (decisions.md 15 "Selling like the peers"; docs/ordering.md "Waiting list"):
 * joining, the organiser's list and deletes, and telling the event's object, which keeps the line and makes the
 * offers (event-object/waiting-list.ts). D1 holds the entries; each change's batch leaves the row `synced = 0`, the
 * call after the answer tells the object and marks it synced, and the sweep re-drives rows a crash left behind.
 */

type EntryRow = typeof waitingList.$inferSelect;
export type WaitingEntry = EntryRow & { ticketTypeName?: string | null; orderId: number | null };

/** A row not marked synced this long after its change lost the call that should have told its object. */
const RESYNC_AFTER_S = 30;

/**
 * `POST /events/<event_id>/waiting-list`: the order rules' checks of name and email, a type of the event, a waiting
 * list on the event, a sale not ended, and fewer than `count` units on sale (more are there: order them). One entry
 * per email and type, kept by a unique index. The entry and its `waiting_list.joined` deliveries commit together.
 */
export async function joinWaitingList(deps: Deps, event: EventRow, input: JoinWaitingListInput): Promise<WaitingEntry> {
  const { name, email } = checkOrderer(input.name, input.email);
  if (!event.waitingListNeeded) throw fail.waiting_list_closed();
  const type = await deps.db
    .select()
    .from(ticketTypes)
    .where(and(eq(ticketTypes.eventId, event.id), eq(ticketTypes.id, input.ticket_type_id)))
    .get();
  if (!type) throw invalidParams({ ticket_type_id: "is not a ticket type of this event" });
  const end = event.endDate ?? event.eventDate;
  if (end !== null && deps.now() >= end) checkSaleWindow(event, deps.now());
  const left = remainingOfType(await remainingOf(deps, event), type.id, type.isCounted);
  if (left === null || left >= input.count) throw fail.waiting_list_not_sold_out();

  const now = deps.now();
  const row = {
    eventId: event.id,
    ticketTypeId: type.id,
    name,
    email,
    emailKey: email.toLowerCase(),
    count: input.count,
    lang: input.lang ?? "en",
    createdAt: now,
    modifiedAt: now,
  };
  const joined = sql`SELECT id FROM waiting_list WHERE event_id = ${event.id} AND ticket_type_id = ${type.id} AND email_key = ${row.emailKey} AND state <> 'deleted'`;
  // The payload is the entry as the organiser's API shows it; its id is the one this batch assigns.
  const shown: WaitingEntry = {
    ...row,
    id: 0,
    state: "waiting",
    offeredAt: null,
    offerExpiresAt: null,
    tokenHash: null,
    orderUid: null,
    synced: false,
    ticketTypeName: type.name,
    orderId: null,
  };
  const body = sql`json_set(${JSON.stringify(entryPayload(deps, shown))}, '$.id', (${joined}))`;
  let results: unknown[];
  try {
    results = await deps.db.batch([
      deps.db.insert(waitingList).values(row).returning(),
      ...deliveryStatements(deps, "waiting_list.joined", { eventId: event.id, body, source: `${deps.origin}${API_BASE}` }),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw fail.waiting_list_duplicate(undefined, { subject: { input: ["email"] } });
    throw err;
  }
  const entry = (results[0] as EntryRow[])[0]!;
  deps.defer(async () => {
    await enqueueDeliveries(deps, writtenDeliveries(results));
    await tellObject(deps, entry);
  });
  return { ...entry, ticketTypeName: type.name, orderId: null };
}

/** An entry as the `waiting_list.*` topics carry it: as the organiser's API shows it, without `_links` (decisions.md 8). */
export function entryPayload(deps: Deps, entry: WaitingEntry) {
  return withoutLinks(presentEntry(linkBaseOf(deps.origin), entry, deps.config.timezone));
}

/** The entries of an event, in the order they joined, with their type's name and the order of an offer used. */
export async function listWaitingList(deps: Deps, eventId: number, q: PageRequest): Promise<{ rows: WaitingEntry[]; total: number }> {
  const { limit, offset } = pageWindow(q);
  const shown = and(eq(waitingList.eventId, eventId), ne(waitingList.state, "deleted"));
  const [rows, [total]] = await deps.db.batch([
    entriesQuery(deps).where(shown).orderBy(asc(waitingList.id)).limit(limit).offset(offset),
    deps.db.select({ n: countRows() }).from(waitingList).where(shown),
  ]);
  return { rows: rows.map(asEntry), total: total?.n ?? 0 };
}

/** Subqueries, not joins: D1 answers rows keyed by column name, where a join's `name` or `id` would collide. */
const typeNameOf = sql<
  string | null
>`(SELECT ${ticketTypes.name} FROM ${ticketTypes} WHERE ${ticketTypes.eventId} = ${waitingList.eventId} AND ${ticketTypes.id} = ${waitingList.ticketTypeId})`;
const orderIdOf = sql<number | null>`(SELECT ${orders.id} FROM ${orders} WHERE ${orders.uid} = ${waitingList.orderUid})`;

function entriesQuery({ db }: Deps) {
  return db.select({ entry: waitingList, ticketTypeName: typeNameOf, orderId: orderIdOf }).from(waitingList).$dynamic();
}

const asEntry = (r: { entry: EntryRow; ticketTypeName: string | null; orderId: number | null }): WaitingEntry => ({
  ...r.entry,
  ticketTypeName: r.ticketTypeName,
  orderId: r.orderId,
});

export async function getWaitingEntry(deps: Deps, eventId: number, entryId: number): Promise<WaitingEntry> {
  const [found] = await entriesQuery(deps).where(and(eq(waitingList.eventId, eventId), eq(waitingList.id, entryId), ne(waitingList.state, "deleted")));
  if (!found) throw invalidId("waiting_list_entry");
  return asEntry(found);
}

/**
 * `DELETE /admin/events/<event_id>/waiting-list/<entry_id>`: the entry is marked deleted at once (gone from the list,
 * its email free to join again) and removed once its object has let go of it and of any offer it held.
 */
export async function deleteWaitingEntry(deps: Deps, eventId: number, entryId: number): Promise<WaitingEntry> {
  const entry = await getWaitingEntry(deps, eventId, entryId);
  const [marked] = await deps.db
    .update(waitingList)
    .set({ state: "deleted", synced: false, modifiedAt: deps.now() })
    .where(and(eq(waitingList.id, entryId), ne(waitingList.state, "deleted")))
    .returning();
  if (!marked) throw invalidId("waiting_list_entry");
  deps.defer(() => tellObject(deps, marked));
  return entry;
}

/**
 * Tells the entry's object what D1 says of it: a deleted entry leaves the line (its offer's units go to the next)
 * and its row goes; any other joins the line (a second time changes nothing there). Marked synced only when the row
 * did not change meanwhile. A failure is logged and left to the sweep.
 */
async function tellObject(deps: Deps, entry: EntryRow): Promise<boolean> {
  try {
    const object = deps.eventObjects.get(entry.eventId);
    if (entry.state === "deleted") {
      await object.dequeueWaiting(entry.id);
      await deps.db.delete(waitingList).where(and(eq(waitingList.id, entry.id), eq(waitingList.state, "deleted")));
    } else {
      await object.enqueueWaiting({ entryId: entry.id, typeId: entry.ticketTypeId, units: entry.count });
      await deps.db
        .update(waitingList)
        .set({ synced: true })
        .where(and(eq(waitingList.id, entry.id), eq(waitingList.modifiedAt, entry.modifiedAt), eq(waitingList.synced, false)));
    }
    return true;
  } catch (err) {
    log("warn", "waiting list entry not told to its event object; the sweep retries", { event_id: entry.eventId, error: String(err) });
    return false;
  }
}

/** The sweep (cron): entries whose object was not told of their last change, told again. */
export async function resyncWaitingList(deps: Deps, limit = 200): Promise<number> {
  const due = await deps.db
    .select()
    .from(waitingList)
    .where(and(eq(waitingList.synced, false), lte(waitingList.modifiedAt, deps.now() - RESYNC_AFTER_S)))
    .orderBy(asc(waitingList.modifiedAt))
    .limit(limit);
  let told = 0;
  for (const entry of due) if (await tellObject(deps, entry)) told += 1;
  return told;
}
