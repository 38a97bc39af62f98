import { and, asc, count as countRows, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { inIds, inScope, isUniqueViolation } from "../../db/client";
import { events, orderClaims, orders, tickets } from "../../db/schema";
import { fail, invalidId, invalidParams } from "../../domain/errors";
import { pageWindow } from "../../domain/paging";
import { centsToDecimal } from "../../lib/money";
import { randomString } from "../../lib/random";
import type { DashboardOrderInput, ListOrdersQuery } from "./orders.schema";
import { assertEventAccess, eventScope, type AuthUser } from "../../domain/authority";
import { applyCoupon } from "../coupons/coupon-checkout";
import type { Deps } from "../../platform/deps";
import { clearIntent, releaseOrder, RELEASE, syncIntents, syncOrderToObjects } from "./object-sync.service";
import { revokeTicketRows } from "../tickets/ticket-rows";
import { writeLogStatement } from "../logs/logs.service";
import { isFinalOrder } from "../../db/order-status";
import { purgeOrderPdfs } from "../../platform/pdf-cache";
import { orderTopicStatements } from "./order-topics";
import { enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import { checkOrderer, checkSaleWindow, readTicketCounts } from "../../domain/order-rules";
import { draftOrder, catalogueStatements, type Catalogue } from "./order-drafts";
import { confirmationFor, whoMayOrder } from "./order-eligibility";
import { placeOrders } from "./order-placement";
import { soldUpdates, stockEventIds } from "./stock.service";
import type { EventRow, OrderRow } from "../../db/rows";

/** The event named in an order body: unknown is a 400 (an id inside a body), outside the user's events a 403. */
/** The order's event and its catalogue, in one round trip (the dashboard path is measured by the benchmark). */
async function eventForOrder(deps: Deps, user: AuthUser, eventId: number): Promise<{ event: EventRow; catalogue: Catalogue }> {
  const { db } = deps;
  const [eventRows, types, fields] = await db.batch([db.select().from(events).where(eq(events.id, eventId)), ...catalogueStatements(deps, eventId)]);
  const event = eventRows[0];
  if (!event) throw fail.order_event_not_found();
  assertEventAccess(user, [eventId]);
  return { event, catalogue: { types, fields } };
}

export interface CreatedOrder {
  order: OrderRow;
  event: EventRow;
}

/**
 * `POST /admin/orders` (decisions.md 5.2): every order rule but terms and captcha, in the decided sequence; then
 * the order is placed as final (`dashboard`): stock held, order, tickets, `sold` and email written in one batch.
 */
export async function createDashboardOrder(deps: Deps, user: AuthUser, input: DashboardOrderInput, ipAddress: string): Promise<CreatedOrder> {
  const { event, catalogue } = await eventForOrder(deps, user, input.event_id);
  if (!event.addDashboardOrdersNeeded) {
    throw fail.order_dashboard_disabled(`Dashboard orders are not enabled for event ${event.id}`);
  }
  const { name, email } = checkOrderer(input.name, input.email);
  checkSaleWindow(event, deps.now());
  const draft = await draftOrder(deps, event, readTicketCounts(input.tickets), input.fields ?? new Map(), { final: true, chargedCents: input.amount, catalogue });
  if (input.amount !== undefined && input.amount > draft.totals.listCents) {
    throw invalidParams({ amount: `must not be above the list price (${centsToDecimal(draft.totals.listCents)})` });
  }
  const claims = new Map([[draft.uid, await whoMayOrder(deps, draft, { name, email })]]);
  const [priced] = input.coupon ? await applyCoupon(deps, input.coupon, [draft], email, input.amount) : [draft];
  const confirmation = confirmationFor(event);
  const [order] = await placeOrders(deps, [priced!], "dashboard", { name, email, ipAddress }, null, { claims, confirmation });
  return { order: order!, event };
}

/**
 * `search` (decisions.md 13): a case-insensitive substring of the email, on `email_key` (lowercased like the search).
 * From 3 characters the trigram index of migration 0025 finds the orders holding every piece of it, and `instr`
 * keeps those holding the whole; a shorter search (or one with a NUL, which FTS5 cannot quote) has no trigram to look
 * up and reads every order in scope.
 */
function emailContains(search: string): SQL {
  const needle = search.toLowerCase();
  const holds = sql`instr(${orders.emailKey}, ${needle}) > 0`;
  const chars = [...needle];
  if (chars.length < 3 || needle.includes("\u0000")) return holds;
  const pieces = searchPieces(chars).map((p) => `"${p.replaceAll('"', '""')}"`);
  return sql`${orders.id} IN (SELECT rowid FROM orders_search WHERE orders_search MATCH ${pieces.join(" AND ")}) AND ${holds}`;
}

/**
 * The search cut into pieces of 4 characters (the last one 3 or 4, overlapping its neighbour), asked of the index as
 * phrases joined by AND. FTS5 answers one long trigram phrase by walking every trigram's whole list of orders: when
 * all emails share most trigrams (one domain, one pattern), a full email took 4-5 ms at 200,000 orders and grew with
 * them; the short phrases skip through those lists (0.3-0.5 ms there, and less on varied emails too; measured in
 * docs/ordering.md "Order list and search"). The pieces may sit apart in an email, hence the `instr` beside them.
 */
function searchPieces(chars: readonly string[]): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < chars.length; start += SEARCH_PIECE) {
    const end = Math.min(start + SEARCH_PIECE, chars.length);
    pieces.push(chars.slice(Math.min(start, end - 3), end).join(""));
  }
  return pieces;
}

const SEARCH_PIECE = 4;

export async function listOrders(deps: Deps, user: AuthUser, q: ListOrdersQuery): Promise<{ rows: OrderRow[]; total: number }> {
  assertEventAccess(user, q.event_id ?? []);
  const conditions = [inScope(orders.eventId, eventScope(user))];
  if (q.event_id) conditions.push(inIds(orders.eventId, q.event_id));
  if (q.search) conditions.push(emailContains(q.search));
  if (q.include) conditions.push(inIds(orders.id, q.include));
  if (q.exclude) conditions.push(sql`NOT ${inIds(orders.id, q.exclude)}`);
  const where = and(...conditions.filter((c): c is SQL => c !== undefined));
  const column = { id: orders.id, event_id: orders.eventId, email: orders.emailKey }[q.orderby];
  const direction = q.order === "desc" ? desc : asc;
  const order = [direction(column), direction(orders.id)];
  const { limit, offset } = pageWindow(q);
  // The page's ids first, then its rows: the ids come from an index alone (orders_id, orders_event,
  // orders_email_key), so a deep page skips index entries, not whole orders.
  const page = deps.db
    .select({ id: orders.id })
    .from(orders)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
  const [rows, totals] = await deps.db.batch([
    deps.db
      .select()
      .from(orders)
      .where(inArray(orders.id, page))
      .orderBy(...order),
    deps.db.select({ n: countRows() }).from(orders).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** The order when the user may see it: 404 when it does not exist, 403 when its event is not the user's. */
export async function getOrderFor({ db }: Deps, user: AuthUser, id: number): Promise<OrderRow> {
  const order = await db.select().from(orders).where(eq(orders.id, id)).get();
  if (!order) throw invalidId("order");
  assertEventAccess(user, [order.eventId]);
  return order;
}

/** The events of the orders, by id (an order shows its event's date and zone). */
export async function eventsOf({ db }: Deps, rows: readonly { eventId: number }[]): Promise<Map<number, EventRow>> {
  const ids = [...new Set(rows.map((r) => r.eventId))];
  if (ids.length === 0) return new Map();
  const found = await db.select().from(events).where(inIds(events.id, ids));
  return new Map(found.map((e) => [e.id, e]));
}

export interface OrderContactChanges {
  customStatus?: string;
  name?: string;
  email?: string;
}

/**
 * Only `custom_status`, `name` and `email` change; the event objects' tickets learn the new name and email.
 * `order.updated` carries the order as this change leaves it.
 */
export async function updateOrder(deps: Deps, current: OrderRow, changes: OrderContactChanges): Promise<OrderRow> {
  const email = changes.email ?? current.email;
  const next: OrderRow = {
    ...current,
    customStatus: changes.customStatus ?? current.customStatus,
    name: changes.name ?? current.name,
    email,
    emailKey: email.toLowerCase(),
    modifiedAt: deps.now(),
  };
  const event = await deps.db.select().from(events).where(eq(events.id, current.eventId)).get();
  const stillThere = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${current.id})`;
  const topic = await orderTopicStatements(deps, "order.updated", next, event, stillThere);
  // A new name or email must reach the door: recorded in the batch, taught after the answer (or by the reconciler).
  const renamed = changes.name !== undefined || changes.email !== undefined;
  const token = `update:${randomString(12)}`;
  const eventIds = stockEventIds(current.deductions);
  let results;
  try {
    // The order's who-may-order claims follow its email, in the same batch (a taken email refuses the change).
    const { customStatus, name, emailKey, modifiedAt } = next;
    results = await deps.db.batch([
      deps.db.update(orders).set({ customStatus, name, email, emailKey, modifiedAt }).where(eq(orders.id, current.id)).returning(),
      // Not the claim of its address (a keyed hash in the same column, decisions.md 15), which no email changes.
      deps.db
        .update(orderClaims)
        .set({ emailKey })
        .where(and(eq(orderClaims.orderUid, current.uid), ne(orderClaims.kind, "open_address"))),
      ...topic,
      ...(renamed ? syncIntents(deps, current.uid, eventIds, token, stillThere) : []),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw fail.order_already_ordered("Another live order of that email already holds this event (unique users).", { status: 409 });
    throw err;
  }
  const updated = results[0][0];
  if (!updated) throw invalidId("order");
  deps.defer(() => enqueueDeliveries(deps, writtenDeliveries(results)));
  await purgeOrderPdfs(deps, [updated.uid]);
  if (renamed) {
    // Synced from D1, so an open order keeps its payment deadline in its objects.
    deps.defer(async () => {
      await syncOrderToObjects(deps, updated.uid, eventIds);
      await Promise.all(eventIds.map((id) => clearIntent(deps, updated.uid, id, token)));
    });
  }
  return updated;
}

/**
 * Deletes the order and its tickets; a final order gives its `sold` back; the event objects release its units
 * (and forget its tickets). Deleting a paid order is logged: no money was refunded.
 */
export async function deleteOrder(deps: Deps, current: OrderRow): Promise<void> {
  const { db } = deps;
  const final = isFinalOrder(current);
  // Everything in the batch is conditional on the order still existing, and the delete comes last: of two deletes
  // at once, the second finds nothing, changes nothing and answers 404.
  const stillThere = sql`EXISTS (SELECT 1 FROM orders WHERE id = ${current.id})`;
  const unrefunded =
    current.paymentStatus === "paid"
      ? [
          writeLogStatement(
            deps,
            {
              eventId: current.eventId,
              orderId: current.id,
              logType: "REST API",
              description: `Paid order ${current.id} was deleted; its payment of ${centsToDecimal(current.totalCents)} ${current.currency} was not refunded.`,
            },
            stillThere,
          ),
        ]
      : [];
  const results = await db.batch([
    revokeTicketRows(deps, and(eq(tickets.orderId, current.id), stillThere)!),
    db.delete(tickets).where(and(eq(tickets.orderId, current.id), stillThere)),
    db.delete(orderClaims).where(and(eq(orderClaims.orderUid, current.uid), stillThere)),
    ...unrefunded,
    ...(final ? soldUpdates(deps, current.deductions, -1, stillThere) : []),
    ...syncIntents(deps, current.uid, stockEventIds(current.deductions), RELEASE, stillThere),
    ...(await orderTopicStatements(deps, "order.deleted", current, undefined, stillThere)),
    db.delete(orders).where(eq(orders.id, current.id)).returning({ id: orders.id }),
  ]);
  const removed = results[results.length - 1] as { id: number }[];
  if (removed.length === 0) throw invalidId("order");
  deps.defer(() => enqueueDeliveries(deps, writtenDeliveries(results)));
  await releaseOrder(deps, current.uid, stockEventIds(current.deductions));
  await purgeOrderPdfs(deps, [current.uid]);
}
