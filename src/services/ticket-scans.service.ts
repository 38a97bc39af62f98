import type { ScanAnswer, TicketScansAnswer } from "../durable-objects/event.do";
import { ApiError } from "../http/errors";
import { invalidScanKey } from "../http/scan-key";
import { log } from "../lib/log";
import type { Deps } from "./deps";
import { forgetScanKey, pushEventConfig, type ScanKeyTarget } from "./event-config.service";

export type ScanKeyUse = ScanKeyTarget & { key: string };

/**
 * Asks the key's event object, which decides from its own state. An object behind the catalogue version the key
 * was read at is brought up to date and asked again; a key the object does not know (deleted) is a 401.
 */
async function ask<T extends ScanAnswer | TicketScansAnswer>(deps: Deps, use: ScanKeyUse, call: (minVersion: number) => Promise<T>): Promise<Extract<T, { ok: true }>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer: ScanAnswer | TicketScansAnswer = await call(use.configVersion);
    if (answer.ok) return answer as Extract<T, { ok: true }>;
    if (answer.reason === "unknown_key") {
      forgetScanKey(use.key);
      throw invalidScanKey();
    }
    await pushEventConfig(deps, use.eventId);
  }
  log("error", "event object stays behind its catalogue", { event_id: use.eventId });
  throw new ApiError(503, "scan_unavailable", "Scanning is briefly unavailable for this event; try again.");
}

/** `POST /scans`: the scan validation result (decisions.md 6, 12, 13). */
export async function scanTicket(deps: Deps, use: ScanKeyUse, code: string) {
  const stub = deps.eventObjects.get(use.eventId);
  return (await ask(deps, use, (v) => stub.scan(use.key, code, v) as Promise<ScanAnswer>)).result;
}

/** `GET /scans/<ticket_id>`: the ticket and its scans, for any scan key of its event. */
export async function ticketScansFor(deps: Deps, use: ScanKeyUse, ticketId: string) {
  const stub = deps.eventObjects.get(use.eventId);
  const { ticket } = await ask(deps, use, (v) => stub.ticketScans(use.key, ticketId, v) as Promise<TicketScansAnswer>);
  if (!ticket) throw new ApiError(404, "scan_ticket_not_found", "Ticket not found");
  return ticket;
}
