import { sql, type SQL } from "drizzle-orm";
import { tickets } from "../db/schema";
import type { Deps } from "./deps";
import type { TicketSeed } from "./stock.service";

/**
 * Ticket rows in one statement (one JSON parameter, whatever their number), pointing at their order by its uid,
 * written only while `onlyIf` holds when given.
 */
export function insertTicketRows(deps: Deps, uid: string, seeds: readonly TicketSeed[], onlyIf?: SQL) {
  const json = JSON.stringify(seeds.map((s) => [s.id, s.eventId, s.typeId, s.typeName]));
  const now = deps.now();
  return deps.db.insert(tickets).select(
    deps.db
      .select({
        id: sql`value ->> 0`.as("id"),
        orderId: sql`(SELECT id FROM orders WHERE uid = ${uid})`.as("order_id"),
        eventId: sql`value ->> 1`.as("event_id"),
        ticketTypeId: sql`value ->> 2`.as("ticket_type_id"),
        ticketTypeName: sql`value ->> 3`.as("ticket_type_name"),
        createdAt: sql`${now}`.as("created_at"),
      })
      .from(sql`json_each(${json})`)
      .where(onlyIf),
  );
}
