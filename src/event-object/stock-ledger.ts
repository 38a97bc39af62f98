import type { EventConfig } from "./event-config";
import { seatAt, type Seat } from "../domain/seat-plan";

/**
 * The event object's record of who holds which units of its stock, in its SQLite storage. Every function runs
 * inside the object's single thread; callers wrap writes in `transactionSync` so each decision is atomic.
 *
 * A reservation belongs to an order `uid`. It is *held* while the Worker writes the order to D1 (with a deadline),
 * and *taken* once the order exists; both count against stock until released. Running totals per ticket type and
 * for the event keep every decision O(lines), however many orders the event has. The tables (`reservations`, `totals`,
 * `tickets`, `seats`) are defined in storage.ts.
 */

export interface ReservationRequest {
  uid: string;
  /** Units per ticket type id of this event (types without stock control are recorded but never refused). */
  typeUnits: Record<string, number>;
  /** Units against the event's own stock (counted types only). */
  eventUnits: number;
  /** Ticket ids this reservation makes valid at this event. */
  tickets: ObjectTicket[];
  /** Seats wanted from this event's seat plan (seated events, or the event whose plan they share). */
  seats?: number;
  /**
   * The order is written final with exactly these tickets: the object looks it up in D1 by itself soon after
   * (`learn_at`) and takes it, so the Worker need not call again after its answer.
   */
  final?: boolean;
  /**
   * The waiting-list offer (its entry id) this order is placed through: the units its offer holds count as free for
   * this request, and a hold made with them ends the offer (decisions.md 15 "Selling like the peers").
   */
  offer?: number;
}

/** A ticket valid at this event: its type (id, for scan keys' filters) and the type text it shows (with seat). */
export interface ObjectTicket {
  id: string;
  typeId: string;
  typeName: string;
}

export type ReserveFailure = { kind: "type"; typeId: string; remaining: number } | { kind: "event"; remaining: number } | { kind: "seats" } | { kind: "stale" };

/**
 * The seats held come back with a success, lowest plan positions first; `offerUsed` when the hold took the units of
 * the request's waiting-list offer.
 */
export type ReserveResult = { ok: true; seats: Seat[]; offerUsed?: true } | { ok: false; failure: ReserveFailure };

/**
 * `held`: an order on its way to D1; `taken`: an order D1 holds; `offer`: units held for a waiting-list entry until
 * its offer ends (waiting-list.ts), never looked up in D1 as an order.
 */
type ReservationState = "held" | "taken" | "offer";

interface ReservationRecord {
  uid: string;
  typeUnits: Record<string, number>;
  eventUnits: number;
  state: ReservationState;
  deadline: number | null;
}

/** The reservation holding a waiting-list entry's offer. */
export const offerUid = (entryId: number): string => `offer:${entryId}`;

export interface LedgerSnapshot {
  totals: Record<string, number>;
  reservations: ReservationRecord[];
  tickets: { id: string; uid: string; typeId: string; typeName: string }[];
  seats: { seat: number; uid: string }[];
}

function seatsOf(sql: SqlStorage, config: EventConfig, uid: string): Seat[] {
  return sql
    .exec<{ seat: number }>(`SELECT seat FROM seats WHERE uid = ? ORDER BY seat`, uid)
    .toArray()
    .map((r) => seatAt(config.seatRanges, r.seat));
}

/** The lowest `count` plan positions nobody holds (fewer when the plan is full). */
function freeSeats(sql: SqlStorage, config: EventConfig, count: number): number[] {
  return sql
    .exec<{ i: number }>(
      `WITH RECURSIVE plan (i) AS (SELECT 0 WHERE ? > 0 UNION ALL SELECT i + 1 FROM plan WHERE i + 1 < ?)
       SELECT i FROM plan WHERE NOT EXISTS (SELECT 1 FROM seats WHERE seat = plan.i) LIMIT ?`,
      config.seatCount ?? 0, // a copy pushed before seat plans existed has none
      config.seatCount ?? 0,
      count,
    )
    .toArray()
    .map((r) => r.i);
}

const EVENT_TOTAL = "event";
const typeTotal = (typeId: string) => `type:${typeId}`;

function total(sql: SqlStorage, key: string): number {
  return sql.exec<{ units: number }>(`SELECT units FROM totals WHERE key = ?`, key).toArray()[0]?.units ?? 0;
}

function addTotal(sql: SqlStorage, key: string, delta: number): void {
  if (delta === 0) return;
  sql.exec(`INSERT INTO totals (key, units) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET units = units + excluded.units`, key, delta);
}

/** What is left: null where there is no limit. */
export function remaining(sql: SqlStorage, config: EventConfig): { event: number | null; types: Record<string, number | null> } {
  const types: Record<string, number | null> = {};
  for (const t of config.ticketTypes) types[t.id] = t.stockControl ? t.stock - total(sql, typeTotal(t.id)) : null;
  return { event: config.stock > 0 ? config.stock - total(sql, EVENT_TOTAL) : null, types };
}

function getReservation(sql: SqlStorage, uid: string): ReservationRecord | null {
  const row = sql
    .exec<{ uid: string; type_units: string; event_units: number; state: string; deadline: number | null }>(
      `SELECT uid, type_units, event_units, state, deadline FROM reservations WHERE uid = ?`,
      uid,
    )
    .toArray()[0];
  return row
    ? { uid: row.uid, typeUnits: JSON.parse(row.type_units), eventUnits: row.event_units, state: row.state as ReservationRecord["state"], deadline: row.deadline }
    : null;
}

/**
 * Holds the units (and seats) when every limit allows them, else answers which limit refused (the first ticket type
 * in the request's order, then the event, then the seats). A uid already holding here is answered as success with
 * the seats it holds: the request was retried.
 */
export function reserve(sql: SqlStorage, config: EventConfig, request: ReservationRequest, deadline: number, learnAt: number | null = null): ReserveResult {
  if (getReservation(sql, request.uid)) return { ok: true, seats: seatsOf(sql, config, request.uid) };
  const offered = request.offer === undefined ? null : getReservation(sql, offerUid(request.offer));
  const credit = offered?.state === "offer" ? offered : null;
  const types = new Map(config.ticketTypes.map((t) => [t.id, t]));
  for (const [typeId, units] of Object.entries(request.typeUnits)) {
    const type = types.get(typeId);
    if (!type) return { ok: false, failure: { kind: "stale" } };
    if (type.stockControl && units > 0) {
      const left = type.stock - total(sql, typeTotal(typeId)) + (credit?.typeUnits[typeId] ?? 0);
      if (units > left) return { ok: false, failure: { kind: "type", typeId, remaining: Math.max(0, left) } };
    }
  }
  if (config.stock > 0 && request.eventUnits > 0) {
    const left = config.stock - total(sql, EVENT_TOTAL) + (credit?.eventUnits ?? 0);
    if (request.eventUnits > left) return { ok: false, failure: { kind: "event", remaining: Math.max(0, left) } };
  }
  const wanted = request.seats ?? 0;
  const seats = wanted > 0 ? freeSeats(sql, config, wanted) : [];
  if (seats.length < wanted) return { ok: false, failure: { kind: "seats" } };
  if (credit) release(sql, credit.uid);
  hold(sql, request.uid, request.typeUnits, request.eventUnits, "held", deadline, learnAt);
  for (const seat of seats) sql.exec(`INSERT INTO seats (seat, uid) VALUES (?, ?)`, seat, request.uid);
  for (const t of request.tickets) {
    sql.exec(`INSERT OR REPLACE INTO tickets (id, uid, type_id, type_name) VALUES (?, ?, ?, ?)`, t.id, request.uid, t.typeId, t.typeName);
  }
  return { ok: true, seats: seats.map((i) => seatAt(config.seatRanges, i)), ...(credit ? { offerUsed: true as const } : {}) };
}

/** Records a reservation and counts its units, unchecked: the caller decided that they fit. */
export function hold(
  sql: SqlStorage,
  uid: string,
  typeUnits: Record<string, number>,
  eventUnits: number,
  state: Exclude<ReservationState, "taken">,
  deadline: number,
  learnAt: number | null = null,
): void {
  sql.exec(
    `INSERT INTO reservations (uid, type_units, event_units, state, deadline, learn_at) VALUES (?, ?, ?, ?, ?, ?)`,
    uid,
    JSON.stringify(typeUnits),
    eventUnits,
    state,
    deadline,
    learnAt,
  );
  for (const [typeId, units] of Object.entries(typeUnits)) addTotal(sql, typeTotal(typeId), units);
  addTotal(sql, EVENT_TOTAL, eventUnits);
}

/** Gives the units and seats back and forgets the reservation's tickets. Releasing what is not held changes nothing. */
export function release(sql: SqlStorage, uid: string): boolean {
  const r = getReservation(sql, uid);
  if (!r) return false;
  for (const [typeId, units] of Object.entries(r.typeUnits)) addTotal(sql, typeTotal(typeId), -units);
  addTotal(sql, EVENT_TOTAL, -r.eventUnits);
  sql.exec(`DELETE FROM reservations WHERE uid = ?`, uid);
  sql.exec(`DELETE FROM tickets WHERE uid = ?`, uid);
  sql.exec(`DELETE FROM seats WHERE uid = ?`, uid);
  return true;
}

/**
 * An exit scan with `reload_on_exit_needed`: one unit of the order's counted units goes back to the event's
 * stock (the reservation keeps one unit less, so releasing the order later gives back only the rest).
 */
export function returnUnit(sql: SqlStorage, uid: string): boolean {
  const r = getReservation(sql, uid);
  if (!r || r.eventUnits <= 0) return false;
  sql.exec(`UPDATE reservations SET event_units = event_units - 1 WHERE uid = ?`, uid);
  addTotal(sql, EVENT_TOTAL, -1);
  return true;
}

export interface OrderInfo {
  orderId: number;
  name: string;
  email: string;
}

/**
 * The order reached D1: the hold becomes a take, and its tickets learn their order. An open order's take keeps a
 * deadline (its payment expiry), when the object asks the Worker to expire it; a final order's has none.
 */
export function take(sql: SqlStorage, uid: string, info: OrderInfo, deadline: number | null = null): boolean {
  const r = getReservation(sql, uid);
  if (!r || r.state === "offer") return false;
  sql.exec(`UPDATE reservations SET state = 'taken', deadline = ?, learn_at = NULL WHERE uid = ?`, deadline, uid);
  sql.exec(`UPDATE tickets SET order_id = ?, name = ?, email = ? WHERE uid = ?`, info.orderId, info.name, info.email, uid);
  return true;
}

/** Reservations in `state` whose `time` (deadline or lookup time) has come by `now`, soonest first. */
function dueReservations(sql: SqlStorage, state: ReservationState, time: "deadline" | "learn_at", now: number): string[] {
  return sql
    .exec<{ uid: string }>(`SELECT uid FROM reservations WHERE state = ? AND ${time} <= ? ORDER BY ${time}`, state, now)
    .toArray()
    .map((r) => r.uid);
}

/** Holds whose deadline has passed (the Worker never confirmed them), oldest first. */
export function expiredHolds(sql: SqlStorage, now: number): string[] {
  return dueReservations(sql, "held", "deadline", now);
}

/** Holds of final orders due to be looked up in D1, soonest first. */
export function holdsToLearn(sql: SqlStorage, now: number): string[] {
  return dueReservations(sql, "held", "learn_at", now);
}

/** A final order's hold whose order D1 did not hold yet (its batch still on its way): looked up again at `at`. */
export function learnLater(sql: SqlStorage, uid: string, at: number): void {
  sql.exec(`UPDATE reservations SET learn_at = ? WHERE uid = ?`, at, uid);
}

/** Takes whose deadline has passed (open orders whose payment time is up), oldest first. */
export function dueTakes(sql: SqlStorage, now: number): string[] {
  return dueReservations(sql, "taken", "deadline", now);
}

/** Moves a deadline (a take whose expiry was handed to the Worker is looked at again later). */
export function postpone(sql: SqlStorage, uid: string, deadline: number): void {
  sql.exec(`UPDATE reservations SET deadline = ? WHERE uid = ?`, deadline, uid);
}

export function nextDeadline(sql: SqlStorage): number | null {
  return sql.exec<{ d: number | null }>(`SELECT min(deadline) AS d FROM reservations WHERE deadline IS NOT NULL`).toArray()[0]?.d ?? null;
}

/** When a final order's hold is next due to be looked up in D1. */
export function nextLearnAt(sql: SqlStorage): number | null {
  return sql.exec<{ t: number | null }>(`SELECT min(learn_at) AS t FROM reservations WHERE learn_at IS NOT NULL`).toArray()[0]?.t ?? null;
}

/**
 * Replaces the tickets of a reservation (tickets re-issued, or deleted with an empty list). Tickets it already holds
 * as they are stay untouched, so sending the same tickets again (a re-drive, a rebuild) is no change of the offline
 * list (offline-list.ts numbers only real changes).
 */
export function replaceTickets(sql: SqlStorage, uid: string, tickets: readonly ObjectTicket[], info: OrderInfo | null): void {
  sql.exec(`DELETE FROM tickets WHERE uid = ? AND id NOT IN (SELECT value FROM json_each(?))`, uid, JSON.stringify(tickets.map((t) => t.id)));
  for (const t of tickets) {
    sql.exec(
      `INSERT INTO tickets (id, uid, type_id, type_name, order_id, name, email) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET uid = excluded.uid, type_id = excluded.type_id, type_name = excluded.type_name,
         order_id = excluded.order_id, name = excluded.name, email = excluded.email`,
      t.id,
      uid,
      t.typeId,
      t.typeName,
      info?.orderId ?? null,
      info?.name ?? null,
      info?.email ?? null,
    );
  }
}

export function snapshot(sql: SqlStorage): LedgerSnapshot {
  const totals: Record<string, number> = {};
  for (const row of sql.exec<{ key: string; units: number }>(`SELECT key, units FROM totals WHERE units <> 0 ORDER BY key`)) totals[row.key] = row.units;
  const reservations = sql
    .exec<{ uid: string }>(`SELECT uid FROM reservations ORDER BY uid`)
    .toArray()
    .map((r) => getReservation(sql, r.uid)!);
  const tickets = sql
    .exec<{ id: string; uid: string; type_id: string; type_name: string }>(`SELECT id, uid, type_id, type_name FROM tickets ORDER BY id`)
    .toArray()
    .map((t) => ({ id: t.id, uid: t.uid, typeId: t.type_id, typeName: t.type_name }));
  const seats = sql.exec<{ seat: number; uid: string }>(`SELECT seat, uid FROM seats ORDER BY seat`).toArray();
  return { totals, reservations, tickets, seats };
}

/** A live order as D1 knows it: its units, tickets and seat positions (`seatIndexes`) here. */
export type RebuiltTake = Omit<ReservationRequest, "seats"> & { info: OrderInfo; seatIndexes: number[] };

/**
 * Rebuild from D1: every live order's units as takes, and their tickets and seats. Waiting-list offers survive, since
 * D1 does not hold their units (the object decides them); every other reservation is dropped.
 */
export function rebuild(sql: SqlStorage, takes: RebuiltTake[]): void {
  sql.exec(`DELETE FROM reservations WHERE state <> 'offer'`);
  sql.exec(`DELETE FROM totals`);
  for (const r of sql.exec<{ type_units: string; event_units: number }>(`SELECT type_units, event_units FROM reservations`).toArray()) {
    for (const [typeId, units] of Object.entries(JSON.parse(r.type_units) as Record<string, number>)) addTotal(sql, typeTotal(typeId), units);
    addTotal(sql, EVENT_TOTAL, r.event_units);
  }
  // Tickets of live orders are kept (replaceTickets below leaves each as it is when nothing differs), so a rebuild
  // changes the offline list only where the object was wrong. Orders no longer live lose theirs, one by one: no
  // parameter grows with the event.
  const live = new Set(takes.map((t) => t.uid));
  for (const { uid } of sql.exec<{ uid: string }>(`SELECT DISTINCT uid FROM tickets`).toArray()) {
    if (!live.has(uid)) sql.exec(`DELETE FROM tickets WHERE uid = ?`, uid);
  }
  sql.exec(`DELETE FROM seats`);
  for (const t of takes) {
    sql.exec(
      `INSERT INTO reservations (uid, type_units, event_units, state, deadline) VALUES (?, ?, ?, 'taken', NULL)`,
      t.uid,
      JSON.stringify(t.typeUnits),
      t.eventUnits,
    );
    for (const [typeId, units] of Object.entries(t.typeUnits)) addTotal(sql, typeTotal(typeId), units);
    addTotal(sql, EVENT_TOTAL, t.eventUnits);
    for (const seat of t.seatIndexes) sql.exec(`INSERT OR REPLACE INTO seats (seat, uid) VALUES (?, ?)`, seat, t.uid);
    replaceTickets(sql, t.uid, t.tickets, t.info);
  }
}
