import { eq } from "drizzle-orm";
import { orders } from "../../db/schema";
import { fail, invalidId } from "../../domain/errors";
import { secretsEqual } from "../../lib/crypto";
import { googleSaveLink } from "../../lib/google-wallet";
import { qrPayload, signerFor } from "../../lib/ticket-codes";
import { isoDateTimeWithOffset } from "../../lib/time";
import type { Deps } from "../../platform/deps";
import { downloadProblem, readInputs } from "./ticket-pdf-render.service";

/**
 * `GET /tickets/<uid>/<ticket_id>/wallet/google` (decisions.md 15 "Wallet passes"; docs/wallet.md): the link that saves
 * one ticket to Google Wallet. A pass follows the download's rules (downloadProblem): none before the order is final,
 * none while a ticket awaits personalisation, none for a ticket no longer in the order (revoked); each of these, and
 * an unknown order or ticket, answers `404 rest_ticket_invalid_id`, so the link tells nothing apart.
 */
export async function googleWalletLink(deps: Deps, uid: string, ticketId: string): Promise<string> {
  const wallet = deps.config.googleWallet;
  if (!wallet) throw fail.wallet_not_configured();
  const order = await deps.db.select().from(orders).where(eq(orders.uid, uid)).get();
  if (!order || !(await secretsEqual(uid, order.uid))) throw invalidId("ticket");
  const inputs = await readInputs(deps, order);
  if (!inputs || (await downloadProblem(deps, inputs))) throw invalidId("ticket");
  const ticket = inputs.tickets.find((t) => t.id === ticketId);
  const event = ticket && inputs.events.find((e) => e.id === ticket.eventId);
  if (!ticket || !event) throw invalidId("ticket");
  const pass = {
    eventId: event.id,
    eventName: event.eventName,
    start: event.eventDate === null ? null : isoDateTimeWithOffset(event.eventDate, event.timezone),
    ticketId: ticket.id,
    ticketType: ticket.ticketTypeName,
    seat: seatOnItsOwn(ticket.seat),
    holderName: order.name,
    barcode: await qrPayload(signerFor(deps.config.ticketSigningKeys), ticket),
  };
  return googleSaveLink(wallet.account, wallet.issuerId, deps.config.email.fromName, pass, deps.now(), deps.config.publicUrl);
}

/**
 * The seat text is formatted to follow the type's name (`seats_format`, often ", seat %s%d"); the pass shows it in a
 * field of its own, so the separator before it goes.
 */
function seatOnItsOwn(seat: string): string {
  return seat.replace(/^[\s,;:/|-]+/, "").trim();
}
