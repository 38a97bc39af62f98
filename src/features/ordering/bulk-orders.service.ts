import { and, asc, between, inArray, sql } from "drizzle-orm";
import { inIds } from "../../db/client";
import { orders } from "../../db/schema";
import { centsToAmount } from "../../lib/money";
import { parseDateTime } from "../../lib/time";
import type { OrderCriteria } from "./bulk.schema";
import { assertEventAccess, eventScope, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";
import { assertEventsExist } from "../catalogue/event-references";

/**
 * The orders a bulk list call selects (decisions.md 10): created between the dates (read in the service's zone),
 * of the named events (empty: every event the user may see; another's is a 403), with a ticket count and a total
 * within the bounds, in one of `statuses`; ids ascending.
 */
export async function selectOrders(deps: Deps, user: AuthUser, criteria: OrderCriteria, statuses: readonly string[]): Promise<number[]> {
  await assertEventsExist(deps, "event_ids", criteria.event_ids);
  assertEventAccess(user, criteria.event_ids);
  const scope = criteria.event_ids.length > 0 ? criteria.event_ids : eventScope(user);
  const from = parseDateTime(criteria.date_from, deps.config.timezone)!;
  const to = parseDateTime(criteria.date_to, deps.config.timezone)!;
  const rows = await deps.db
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        inArray(orders.paymentStatus, [...statuses]),
        sql`${orders.awaitsConfirmation} = 0`,
        between(orders.createdAt, from, to),
        between(orders.numTickets, criteria.tickets_minimum, criteria.tickets_maximum),
        between(orders.totalCents, criteria.amount_minimum, criteria.amount_maximum),
        scope === "all" ? undefined : inIds(orders.eventId, scope),
      ),
    )
    .orderBy(asc(orders.id));
  return rows.map((r) => r.id);
}

/** The criteria as a list call echoes them, with the batch size a send call may use. */
export function echoCriteria(deps: Deps, criteria: OrderCriteria) {
  return {
    date_from: criteria.date_from,
    date_to: criteria.date_to,
    event_ids: criteria.event_ids.join(","),
    tickets_minimum: criteria.tickets_minimum,
    tickets_maximum: criteria.tickets_maximum,
    amount_minimum: centsToAmount(criteria.amount_minimum),
    amount_maximum: centsToAmount(criteria.amount_maximum),
    batch_size: deps.config.bulkBatchSize,
  };
}

export interface BulkError {
  order_id: number;
  error: string;
}
