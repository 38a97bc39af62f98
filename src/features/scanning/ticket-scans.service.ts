import type { z } from "zod";
import type { OfflineListAnswer, ScanAnswer, ScanKeyAnswer, TicketScansAnswer } from "../../event-object/event.do";
import type { ScanResult } from "../../domain/scan-rules";
import { signerFor, ticketIdOfCode } from "../../lib/ticket-codes";
import { admittedTypeIds, SCAN_ERRORS } from "../../domain/scan-rules";
import { formatNameList } from "../../domain/catalogue-names";
import { and, asc, eq, gte } from "drizzle-orm";
import { events, revokedTickets } from "../../db/schema";
import { fail, invalidParams } from "../../domain/errors";
import { invalidScanKey } from "./scan-key.middleware";
import { formatDateTime, parseDateTime } from "../../lib/time";
import type { Deps } from "../../platform/deps";
import { catchUpTicket } from "../ordering/object-sync.service";
import { forgetScanKey, type ScanKeyTarget } from "../catalogue/event-config.service";
import { askEventObject, STALE } from "../catalogue/event-object-client";
import type { EventObjectStub } from "../../platform/event-object.client";
import type { scanKeySelfView } from "./scans.schema";

export type ScanKeyUse = ScanKeyTarget & { key: string };

/** What a scan key's event object answers, each `{ ok: false, reason: "stale" | "unknown_key" }` when it cannot. */
type Answer = ScanAnswer | TicketScansAnswer | OfflineListAnswer | ScanKeyAnswer;

/**
 * Asks the key's event object, which decides from its own state, through the one client
 * (catalogue/event-object-client.ts: an object behind the catalogue version the key was read at is brought up to
 * date and asked again). A key the object does not know (deleted) is a 401.
 */
export async function ask<T extends Answer>(
  deps: Deps,
  use: ScanKeyUse,
  call: (stub: EventObjectStub, minVersion: number) => Promise<T>,
): Promise<Extract<T, { ok: true }>> {
  const reply = await askEventObject(deps, {
    eventId: use.eventId,
    minVersion: use.configVersion,
    ask: call,
    read: (answer: Answer) => (answer.ok || answer.reason !== "stale" ? answer : STALE),
  });
  if (!reply.ok) throw reply.error;
  if (reply.value.ok) return reply.value as Extract<T, { ok: true }>;
  forgetScanKey(use.key);
  throw invalidScanKey();
}

/** The answer for a code refused at the edge (forged, altered, unknown key id, another event's): not found. */
function notFoundHere(use: ScanKeyUse): ScanResult {
  return {
    order_id: 0,
    qrcode: "",
    event: use.eventName,
    name: "",
    email: "",
    level: use.level,
    type: "",
    status: false,
    date: "",
    location: "",
    error: SCAN_ERRORS.notFound,
  };
}

/**
 * `POST /scans`: the scan validation result (decisions.md 6, 12, 13). The code is a plain ticket id or a signed
 * code; a signed code is verified here, and one that fails never reaches the event object.
 */
export async function scanTicket(deps: Deps, use: ScanKeyUse, code: string): Promise<ScanResult> {
  const ticketId = await ticketIdOf(deps, use, code);
  if (ticketId === null) return notFoundHere(use);
  const scan = async () => (await ask(deps, use, (stub, v) => stub.scan(use.key, ticketId, v) as Promise<ScanAnswer>)).result;
  const first = await scan();
  // The door never refuses a valid ticket (docs/reliability.md "Guarantees"): an object that has not learned an order
  // yet (its call was lost) catches up from D1 for that order, then decides. Only unknown tickets pay this D1 read.
  if (first.error !== SCAN_ERRORS.notFound || !(await catchUpTicket(deps, use.eventId, ticketId))) return first;
  return scan();
}

/** The ticket id a code names for this key's event (lib/ticket-codes.ts), else null. */
function ticketIdOf(deps: Deps, use: ScanKeyUse, code: string): Promise<string | null> {
  return ticketIdOfCode(signerFor(deps.config.ticketSigningKeys), use.eventId, code);
}

/** `GET /scans/<ticket_id>`: the ticket and its scans, for any scan key of its event (the id or the signed code). */
export async function ticketScansFor(deps: Deps, use: ScanKeyUse, code: string) {
  const ticketId = await ticketIdOf(deps, use, code);
  if (ticketId === null) throw fail.scan_ticket_not_found();
  const { ticket } = await ask(deps, use, (stub, v) => stub.ticketScans(use.key, ticketId, v) as Promise<TicketScansAnswer>);
  if (!ticket) throw fail.scan_ticket_not_found();
  return ticket;
}

/**
 * `GET /scans/revoked?since=`: tickets of the event that stopped being valid since then (a date-time in the event's
 * zone; all when omitted), newest last.
 */
export async function revokedSince(deps: Deps, use: ScanKeyUse, since: string | undefined) {
  const event = await deps.db.select({ timezone: events.timezone }).from(events).where(eq(events.id, use.eventId)).get();
  const timezone = event?.timezone ?? deps.config.timezone;
  const from = since ? parseDateTime(since, timezone) : 0;
  if (from === null) throw invalidParams({ since: 'must be a date-time "YYYY-MM-DD HH:MM:SS"' });
  const rows = await deps.db
    .select()
    .from(revokedTickets)
    .where(and(eq(revokedTickets.eventId, use.eventId), gte(revokedTickets.revokedAt, from)))
    .orderBy(asc(revokedTickets.revokedAt), asc(revokedTickets.ticketId));
  return { event_id: use.eventId, revoked: rows.map((r) => ({ ticket_id: r.ticketId, revoked_at: formatDateTime(r.revokedAt, timezone) })) };
}

/** `GET /scan-keys/public-keys`: the keys that verify signed ticket codes, for scanners checking offline. */
export function publicKeys(deps: Deps) {
  return { keys: signerFor(deps.config.ticketSigningKeys).publicKeys() };
}

/**
 * `GET /scan-keys/self`: what a door phone needs to decide scans offline with its key, from the event object's copy
 * of the key (the one scans are decided with, so online and offline agree). Never the key itself; only its event.
 */
export async function scanKeySelf(deps: Deps, use: ScanKeyUse): Promise<z.output<typeof scanKeySelfView>> {
  const { eventName, scanKey, ticketTypes } = await ask(deps, use, (stub, v) => stub.scanKeyOf(use.key, v) as Promise<ScanKeyAnswer>);
  return {
    event_id: use.eventId,
    event_name: eventName,
    level: scanKey.level,
    location: scanKey.location,
    date_format: scanKey.dateFormat,
    tickets: formatNameList(scanKey.tickets),
    ticket_type_ids: admittedTypeIds(scanKey.tickets, ticketTypes),
  };
}
