import { sql, type SQL } from "drizzle-orm";
import { revokedTickets, tickets } from "../../db/schema";
import { insertFrom } from "../../db/client";
import type { Deps } from "../../platform/deps";
import type { TicketSeed } from "../../domain/order-rules";

/**
 * Ticket rows in one statement (one JSON parameter, whatever their number), pointing at their order by its uid,
 * written only while `onlyIf` holds when given.
 */
export function insertTicketRows(deps: Deps, uid: string, seeds: readonly TicketSeed[], onlyIf?: SQL) {
  const json = JSON.stringify(seeds.map((s) => [s.id, s.eventId, s.typeId, s.typeName, s.seat]));
  return insertFrom(
    deps.db,
    tickets,
    {
      id: sql`value ->> 0`,
      orderId: sql`(SELECT id FROM orders WHERE uid = ${uid})`,
      eventId: sql`value ->> 1`,
      ticketTypeId: sql`value ->> 2`,
      ticketTypeName: sql`value ->> 3`,
      seat: sql`value ->> 4`,
      createdAt: deps.now(),
    },
    sql`json_each(${json})`,
    onlyIf,
  );
}

/**
 * Records the tickets matching `where` as revoked (for offline scanners: `GET /scans/revoked`), as one statement for
 * the batch that deletes them; put it before the delete.
 */
export function revokeTicketRows(deps: Deps, where: SQL) {
  return insertFrom(deps.db, revokedTickets, { ticketId: tickets.id, eventId: tickets.eventId, revokedAt: deps.now() }, sql`${tickets}`, where).onConflictDoUpdate({
    target: revokedTickets.ticketId,
    set: { revokedAt: deps.now() },
  });
}
