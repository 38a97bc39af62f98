import { formatPhpDate } from "../lib/php-date";
import { wallClockAt } from "../lib/time";
import { admittedTypeIds, decideTicketScan, SCAN_ERRORS, type ScanRecord, type ScanResult, sinceLastReset } from "../domain/scan-rules";
import type { EventConfig, ScanKeyConfig } from "./event-config";

/**
 * The event object's scans, in its SQLite storage: every decision is made here from the object's own state (its
 * valid tickets and their scans), inside its single thread, so two scanners presenting one ticket at the same
 * instant get one `true`. Scans are kept here for good; `scan-outbox.ts` sees each to D1 (reports, `scan.created`).
 * The `scans` table is defined in storage.ts.
 */

/** A recorded scan on its way to D1. */
export interface PendingScan {
  seq: number;
  ticketId: string;
  orderId: number;
  typeId: string;
  typeName: string;
  level: number;
  at: number;
  location: string;
  /** An exit that gave a unit of stock back (`reload_on_exit_needed`). */
  reloaded: boolean;
  result: ScanResult;
}

type TicketRow = {
  id: string;
  uid: string;
  type_id: string;
  type_name: string;
  order_id: number | null;
  name: string | null;
  email: string | null;
};

/** A valid ticket: known here and belonging to an order that reached D1. */
function validTicket(sql: SqlStorage, id: string): TicketRow | null {
  const row = sql.exec<TicketRow>(`SELECT id, uid, type_id, type_name, order_id, name, email FROM tickets WHERE id = ?`, id).toArray()[0];
  return row && row.order_id !== null ? row : null;
}

/**
 * The ticket's whole history of scans, oldest first. Where it starts counting (the last reset) is the domain's rule
 * (`sinceLastReset`, `decideTicketScan`), not this query's: a ticket has few scans, and trimming here would not bound
 * them anyway (a 7 and an 8 alternate without any reset).
 */
function historyOf(sql: SqlStorage, ticketId: string): ScanRecord[] {
  return sql.exec<{ level: number; at: number; location: string }>(`SELECT level, at, location FROM scans WHERE ticket_id = ? ORDER BY seq`, ticketId).toArray();
}

export function formatScanDate(config: EventConfig, key: ScanKeyConfig, atMs: number): string {
  return formatPhpDate(wallClockAt(atMs, config.timezone), key.dateFormat);
}

export interface ScanOutcome {
  result: ScanResult;
  /** Set when the scan was recorded: the stock unit an exit gave back, if any, has been given. */
  recorded: PendingScan | null;
}

/**
 * Decides one scan of `ticketId` with `key` at `now` (epoch ms), records it when it succeeds, and answers the scan
 * validation result. `returnUnit` gives one unit of the ticket's order back (an exit with `reload_on_exit_needed`).
 */
export function scan(sql: SqlStorage, config: EventConfig, key: ScanKeyConfig, ticketId: string, now: number, returnUnit: (uid: string) => boolean): ScanOutcome {
  const ticket = validTicket(sql, ticketId);
  // In the spec's field order; an unknown ticket keeps every field, empty (decisions.md 13).
  const answer = (status: boolean, date: string, location: string, error?: string): ScanResult => ({
    order_id: ticket?.order_id ?? 0,
    qrcode: ticket?.id ?? "",
    event: config.eventName,
    name: ticket?.name ?? "",
    email: ticket?.email ?? "",
    level: key.level,
    type: ticket?.type_name ?? "",
    status,
    date,
    location,
    ...(error === undefined ? {} : { error }),
  });
  if (!ticket) return { result: answer(false, "", "", SCAN_ERRORS.notFound), recorded: null };
  const rule = { level: key.level, location: key.location, ticketTypeIds: admittedTypeIds(key.tickets, config.ticketTypes) };
  const decision = decideTicketScan({ ticketTypeId: ticket.type_id, history: historyOf(sql, ticket.id), key: rule });
  if (!decision.ok) {
    const { earlier } = decision;
    return { result: answer(false, earlier ? formatScanDate(config, key, earlier.at) : "", earlier?.location ?? "", decision.error), recorded: null };
  }
  const reloaded = key.level === 9 && config.reloadOnExit && returnUnit(ticket.uid);
  const result = answer(true, formatScanDate(config, key, now), key.location);
  const seq = sql
    .exec<{ seq: number }>(
      `INSERT INTO scans (ticket_id, type_id, level, at, location, reloaded, result) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
      ticket.id,
      ticket.type_id,
      key.level,
      now,
      key.location,
      reloaded ? 1 : 0,
      JSON.stringify(result),
    )
    .one().seq;
  const recorded: PendingScan = {
    seq,
    ticketId: ticket.id,
    orderId: result.order_id,
    typeId: ticket.type_id,
    typeName: ticket.type_name,
    level: key.level,
    at: now,
    location: key.location,
    reloaded,
    result,
  };
  return { result, recorded };
}

export interface TicketScans {
  orderId: number;
  ticketId: string;
  typeName: string;
  name: string;
  email: string;
  scans: ScanRecord[];
}

/** A valid ticket and its scans since its last reset, for `GET /scans/<ticket_id>`; null when not valid here. */
export function ticketScans(sql: SqlStorage, ticketId: string): TicketScans | null {
  const ticket = validTicket(sql, ticketId);
  if (!ticket) return null;
  return {
    orderId: ticket.order_id!,
    ticketId: ticket.id,
    typeName: ticket.type_name,
    name: ticket.name ?? "",
    email: ticket.email ?? "",
    scans: sinceLastReset(historyOf(sql, ticket.id)),
  };
}
