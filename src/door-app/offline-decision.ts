/**
 * A scan decided on the phone, without the service: the same level rules as the event object (src/domain/
 * scan-rules.ts, one module for both), applied to what the phone knows: the kept list, the key's type filter, and
 * the scans made here. What it cannot know (a scan at another door meanwhile) the replay finds out.
 */
import { decideScan, SCAN_ERRORS, type ScanRecord } from "../domain/scan-rules";
import type { KeyConfig, ListEntry } from "./door-types";

export type OfflineDecision = { admitted: true; ticket: ListEntry } | { admitted: false; ticket: ListEntry | null; error: string; earlier: ScanRecord | null };

/**
 * `ticket`: the list's entry for the code's ticket (null when the list lacks it, or the code's signature or event is
 * not this event's); `history`: this phone's admitted scans of the ticket, oldest first.
 */
export function decideOffline(config: KeyConfig, ticket: ListEntry | null, history: readonly ScanRecord[]): OfflineDecision {
  if (!ticket) return { admitted: false, ticket: null, error: SCAN_ERRORS.notFound, earlier: null };
  const types = config.ticket_type_ids;
  if (types !== null && !types.includes(ticket.ticket_type_id)) {
    return { admitted: false, ticket, error: SCAN_ERRORS.wrongType, earlier: null };
  }
  const decision = decideScan(sinceReset(history), config.level, config.location);
  return decision.ok ? { admitted: true, ticket } : { admitted: false, ticket, error: decision.error, earlier: decision.earlier };
}

/** A reset (level 6) clears the ticket's earlier scans, as in the event object. */
function sinceReset(history: readonly ScanRecord[]): ScanRecord[] {
  const lastReset = history.findLastIndex((s) => s.level === 6);
  return history.slice(lastReset + 1);
}
