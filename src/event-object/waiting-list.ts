import type { EventConfig } from "./event-config";
import { remainingOfType } from "../domain/stock-left";
import { hold, offerUid, release, remaining } from "./stock-ledger";

/**
 * The event's waiting list as its object decides it (decisions.md 15 "Selling like the peers"; docs/ordering.md
 * "Waiting list"). D1 holds who joined; the object holds the line and the offers, because an offer is units of its
 * stock: the same transaction that gives units back (a release, a raised stock, an expired offer) offers them to the
 * first entries that fit, as a reservation of state `offer` (stock-ledger.ts), so a unit that comes back is sold,
 * offered or on sale, and never two of these at once. What becomes of an entry (offered, ordered, expired) goes to D1
 * through an outbox like the scans' (scan-outbox.ts): sent by the alarm, sent again until D1 says it has it.
 *
 * Rows are kept when done (ordered, expired): an entry pushed again by the Worker's sweep finds its row and is not
 * offered twice. An entry deleted by the organiser is forgotten here.
 */

export interface WaitingEntry {
  entryId: number;
  typeId: string;
  units: number;
}

type EntryState = "waiting" | "offered" | "ordered" | "expired";

/** What D1 must learn of an entry: its state now, its offer's end (epoch ms) and the order it became. */
export interface EntryUpdate {
  entryId: number;
  state: Exclude<EntryState, "waiting">;
  deadline: number | null;
  orderUid: string | null;
}

/** Updates wait this long for others before the alarm sends them (a release often offers several entries). */
const UPDATE_FLUSH_MS = 100;
/** An update D1 did not acknowledge after this is sent again; the delay doubles with each send, up to 16 times. */
const UPDATE_RESEND_MS = 30_000;
const RESEND_AT = `sent_at + (${UPDATE_RESEND_MS} << min(sends - 1, 4))`;
const UPDATES_PER_MESSAGE = 100;

/** Puts an entry in line (once: an entry already known, in whatever state, stays as it is). */
export function enqueue(sql: SqlStorage, entry: WaitingEntry): boolean {
  return (
    sql.exec(
      `INSERT INTO waiting (entry_id, type_id, units, state) VALUES (?, ?, ?, 'waiting') ON CONFLICT (entry_id) DO NOTHING`,
      entry.entryId,
      entry.typeId,
      entry.units,
    ).rowsWritten > 0
  );
}

/** The organiser deleted an entry: its offer's units come back and the entry is forgotten. */
export function dequeue(sql: SqlStorage, entryId: number): boolean {
  release(sql, offerUid(entryId));
  return sql.exec(`DELETE FROM waiting WHERE entry_id = ?`, entryId).rowsWritten > 0;
}

/** Marks an entry's new state for D1 (the outbox sends it). */
function setState(sql: SqlStorage, entryId: number, state: EntryState, deadline: number | null, orderUid: string | null = null): void {
  sql.exec(`UPDATE waiting SET state = ?, deadline = ?, order_uid = ?, synced = 0, sent_at = NULL, sends = 0 WHERE entry_id = ?`, state, deadline, orderUid, entryId);
}

/**
 * Offers what is free to the waiting entries, per ticket type in the order they joined: the first entry whose count
 * fits what is left gets an offer holding its units until `now` plus the event's offer hours; an entry that does not
 * fit is passed over, not in the way of those behind it. Nothing while the event has no waiting list. Answers how
 * many offers were made. Work grows with the offers made and the event's types, not with the line's length.
 */
export function offerFree(sql: SqlStorage, config: EventConfig, now: number): number {
  const hours = config.waitingListHours ?? 0;
  if (hours <= 0) return 0;
  const types = new Map(config.ticketTypes.map((t) => [t.id, t]));
  let made = 0;
  for (const { type_id } of sql.exec<{ type_id: string }>(`SELECT DISTINCT type_id FROM waiting WHERE state = 'waiting'`).toArray()) {
    const type = types.get(type_id);
    if (!type) continue; // a type deleted since: its entries wait for nothing
    for (;;) {
      const free = remainingOfType(remaining(sql, config), type.id, type.isCounted) ?? Number.MAX_SAFE_INTEGER;
      if (free <= 0) break;
      const next = sql
        .exec<{ entry_id: number; units: number }>(
          `SELECT entry_id, units FROM waiting WHERE state = 'waiting' AND type_id = ? AND units <= ? ORDER BY entry_id LIMIT 1`,
          type_id,
          free,
        )
        .toArray()[0];
      if (!next) break;
      const deadline = now + hours * 3_600_000;
      hold(sql, offerUid(next.entry_id), { [type_id]: next.units }, type.isCounted ? next.units : 0, "offer", deadline);
      setState(sql, next.entry_id, "offered", deadline);
      made += 1;
    }
  }
  return made;
}

/** Offers whose time is up by `now`: their units come back, the entries are expired. Answers how many. */
export function expireOffers(sql: SqlStorage, now: number): number {
  const due = sql.exec<{ entry_id: number }>(`SELECT entry_id FROM waiting WHERE state = 'offered' AND deadline <= ?`, now).toArray();
  for (const { entry_id } of due) {
    release(sql, offerUid(entry_id));
    setState(sql, entry_id, "expired", null);
  }
  return due.length;
}

/** An order was held with the entry's offer (stock-ledger.ts `reserve`): the entry is done. */
export function markOrdered(sql: SqlStorage, entryId: number, orderUid: string): void {
  sql.exec(
    `UPDATE waiting SET state = 'ordered', deadline = NULL, order_uid = ?, synced = 0, sent_at = NULL, sends = 0 WHERE entry_id = ? AND state = 'offered'`,
    orderUid,
    entryId,
  );
}

/** The updates due at `now`: never sent, or waiting past their resend delay; oldest entries first. Noted as sent. */
export function takeDueUpdates(sql: SqlStorage, now: number): EntryUpdate[] {
  const due = sql
    .exec<{ entry_id: number; state: EntryUpdate["state"]; deadline: number | null; order_uid: string | null }>(
      `SELECT entry_id, state, deadline, order_uid FROM waiting WHERE synced = 0 AND (sent_at IS NULL OR ${RESEND_AT} <= ?) ORDER BY entry_id LIMIT ?`,
      now,
      UPDATES_PER_MESSAGE,
    )
    .toArray();
  // Every alarm asks (a door's scans set one each second): nothing due writes nothing.
  if (due.length === 0) return [];
  sql.exec(`UPDATE waiting SET sent_at = ?, sends = sends + 1 WHERE entry_id IN (SELECT value FROM json_each(?))`, now, JSON.stringify(due.map((u) => u.entry_id)));
  return due.map((u) => ({ entryId: u.entry_id, state: u.state, deadline: u.deadline, orderUid: u.order_uid }));
}

/** D1 holds these states: not sent again. A state that changed since (a later update) stays due. */
export function markSynced(sql: SqlStorage, updates: readonly Pick<EntryUpdate, "entryId" | "state">[]): number {
  let marked = 0;
  for (const u of updates) marked += sql.exec(`UPDATE waiting SET synced = 1 WHERE entry_id = ? AND state = ? AND synced = 0`, u.entryId, u.state).rowsWritten;
  return marked;
}

/** When the alarm must next send updates, or null when D1 has them all. */
export function nextSendAt(sql: SqlStorage, now: number): number | null {
  return sql.exec<{ at: number | null }>(`SELECT min(coalesce(${RESEND_AT}, ?)) AS at FROM waiting WHERE synced = 0`, now + UPDATE_FLUSH_MS).one().at;
}

/** The line as it stands, for tests and the rebuild's checks. */
export function entries(sql: SqlStorage): { entryId: number; typeId: string; units: number; state: EntryState; deadline: number | null }[] {
  return sql
    .exec<{ entry_id: number; type_id: string; units: number; state: EntryState; deadline: number | null }>(
      `SELECT entry_id, type_id, units, state, deadline FROM waiting ORDER BY entry_id`,
    )
    .toArray()
    .map((r) => ({ entryId: r.entry_id, typeId: r.type_id, units: r.units, state: r.state, deadline: r.deadline }));
}
