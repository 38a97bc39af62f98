/**
 * A scan decided on the phone, without the service: the same decision as the event object (`decideTicketScan` in
 * src/domain/scan-rules.ts, one module for both), over what the phone knows: the kept list, the key's type filter,
 * and the scans made here. What it cannot know (a scan at another door meanwhile) the replay finds out.
 */
import { decideTicketScan, SCAN_ERRORS, type ScanRecord } from "../domain/scan-rules";
import type { KeyConfig, ListEntry } from "./door-types";

export type OfflineDecision = { admitted: true; ticket: ListEntry } | { admitted: false; ticket: ListEntry | null; error: string; earlier: ScanRecord | null };

/**
 * `ticket`: the list's entry for the code's ticket (null when the list lacks it, or the code's signature or event is
 * not this event's); `history`: this phone's admitted scans of the ticket, oldest first.
 */
export function decideOffline(config: KeyConfig, ticket: ListEntry | null, history: readonly ScanRecord[]): OfflineDecision {
  if (!ticket) return { admitted: false, ticket: null, error: SCAN_ERRORS.notFound, earlier: null };
  const key = { level: config.level, location: config.location, ticketTypeIds: config.ticket_type_ids };
  const decision = decideTicketScan({ ticketTypeId: ticket.ticket_type_id, history, key });
  return decision.ok ? { admitted: true, ticket } : { admitted: false, ticket, error: decision.error, earlier: decision.earlier };
}
