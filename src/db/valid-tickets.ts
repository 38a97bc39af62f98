import { sql } from "drizzle-orm";
import { FINAL_STATUSES } from "./order-status";

/** Tickets `t` valid at the events: theirs, of orders that are final (what the scan reports and totals count). */
export function validTickets(eventIds: readonly number[]) {
  return sql`t.event_id IN (SELECT value FROM json_each(${JSON.stringify(eventIds)}))
    AND EXISTS (SELECT 1 FROM orders AS o WHERE o.id = t.order_id AND o.payment_status IN (SELECT value FROM json_each(${JSON.stringify(FINAL_STATUSES)})))`;
}
