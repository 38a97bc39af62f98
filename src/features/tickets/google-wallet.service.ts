import { fail } from "../../domain/errors";
import { googleSaveLink } from "../../lib/google-wallet";
import { qrPayload, signerFor } from "../../lib/ticket-codes";
import { isoDateTimeWithOffset } from "../../lib/time";
import type { Deps } from "../../platform/deps";
import { passSubject } from "./wallet-ticket";

/**
 * `GET /tickets/<uid>/<ticket_id>/wallet/google` (decisions.md 15 "Wallet passes"; docs/wallet.md): the link that saves
 * one ticket to Google Wallet. Which tickets get one: passSubject. Unconfigured: `404 wallet_not_configured`.
 */
export async function googleWalletLink(deps: Deps, uid: string, ticketId: string): Promise<string> {
  const wallet = deps.config.googleWallet;
  if (!wallet) throw fail.wallet_not_configured();
  const { order, ticket, event } = await passSubject(deps, uid, ticketId);
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
