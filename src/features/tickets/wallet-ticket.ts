import { eq } from "drizzle-orm";
import type { EventRow, OrderRow, TicketRow } from "../../db/rows";
import { orders } from "../../db/schema";
import { invalidId } from "../../domain/errors";
import { secretsEqual } from "../../lib/crypto";
import type { Deps } from "../../platform/deps";
import { downloadProblem, readInputs } from "./ticket-pdf-render.service";

/** What a wallet pass shows of one ticket. */
export interface PassSubject {
  order: OrderRow;
  ticket: TicketRow;
  /** The ticket's own event (a passe-partout's child event for its child tickets). */
  event: EventRow;
}

/**
 * The ticket a pass is made for (decisions.md 15 "Wallet passes"): passes follow the download's rules
 * (downloadProblem), so none before the order is final, none while a ticket awaits personalisation, none for a ticket
 * no longer in the order (revoked). Each of these, and an unknown order or ticket, is `404 rest_ticket_invalid_id`:
 * one answer for all, so a pass link tells nothing about an order.
 */
export async function passSubject(deps: Deps, uid: string, ticketId: string): Promise<PassSubject> {
  const order = await deps.db.select().from(orders).where(eq(orders.uid, uid)).get();
  if (!order || !(await secretsEqual(uid, order.uid))) throw invalidId("ticket");
  const inputs = await readInputs(deps, order);
  if (!inputs || (await downloadProblem(deps, inputs))) throw invalidId("ticket");
  const ticket = inputs.tickets.find((t) => t.id === ticketId);
  const event = ticket && inputs.events.find((e) => e.id === ticket.eventId);
  if (!ticket || !event) throw invalidId("ticket");
  return { order: inputs.order, ticket, event };
}
