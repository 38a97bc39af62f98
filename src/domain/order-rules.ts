import { isEmailAddress } from "./email-address";
import { fail, invalidParams } from "./errors";
import { hasControlCharacter, INVALID_NAME } from "../lib/control-characters";
import { isLegalFieldValue } from "./input-field-rules";
import { isLegalCount } from "./ticket-counts";
import type { EventRow, InputFieldRow, TicketTypeRow } from "../db/rows";

/**
 * The order rules of decisions.md 5.4 and 13 ("Orders") as plain functions, each throwing the first failure with
 * its stable code (domain/error-codes.ts) and the field-practice message. The order service runs them in the decided
 * sequence.
 */

/**
 * Open orders per buyer (decisions.md 15): a browser shop front (the ordering key) holds at most this many orders
 * awaiting payment per event, per email and per client address, so one buyer cannot hoard a sale's stock for the
 * whole payment hold. The order's claims carry the number to the trigger that enforces it in the order's batch.
 */
export const MAX_OPEN_ORDERS = 2;
/** `Retry-After`: seconds until a place frees at the latest (an open order's payment deadline passes). */
export const tooManyOpenOrders = (retryAfterSeconds: number) =>
  fail.order_too_many_open(undefined, { headers: { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) } });

/** decisions.md 14 answers a control character as a validation failure of the field, with the field's text. */
const invalidField = (field: "name" | "email", message: string) => fail.rest_invalid_param(message, { params: { [field]: message }, subject: { input: [field] } });

/**
 * Name and email: present, without control characters, a valid address, at most 50 and 100 characters. Answers
 * them trimmed.
 */
export function checkOrderer(name: string | undefined, email: string | undefined): { name: string; email: string } {
  const n = (name ?? "").trim();
  const e = (email ?? "").trim();
  const missing = [...(n === "" ? ["name" as const] : []), ...(e === "" ? ["email" as const] : [])];
  if (missing.length > 0) throw fail.order_missing_input(undefined, { subject: { input: missing } });
  if (hasControlCharacter(e)) throw invalidField("email", "Invalid emailaddress");
  if (!isEmailAddress(e)) throw fail.order_invalid_email(undefined, { subject: { input: ["email"] } });
  if (hasControlCharacter(n)) throw invalidField("name", INVALID_NAME);
  if (n.length > 50) throw fail.order_name_too_long(undefined, { subject: { input: ["name"] } });
  if (e.length > 100) throw fail.order_email_too_long(undefined, { subject: { input: ["email"] } });
  return { name: n, email: e };
}

/** On sale: from `start_date` (or now) until `end_date`, else until `event_date`, else always. */
export function isOnSale(event: EventRow, now: number): boolean {
  const end = event.endDate ?? event.eventDate;
  return (event.startDate === null || now >= event.startDate) && (end === null || now <= end);
}

export function checkSaleWindow(event: EventRow, now: number): void {
  if (!isOnSale(event, now)) throw fail.order_event_inactive(`Event ${event.id} is not active`);
}

/** `[{"<type id>": n}, ...]` read into counts per type id (a repeated id is refused). */
export function readTicketCounts(entries: readonly Record<string, number>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    for (const [typeId, count] of Object.entries(entry)) {
      if (counts.has(typeId)) throw invalidParams({ tickets: `names ticket type ${typeId} twice` });
      counts.set(typeId, count);
    }
  }
  return counts;
}

export interface TicketLine {
  type: TicketTypeRow;
  count: number;
}

/**
 * Every ticket type of the event present, something ordered, each count within the type's minimum (when above 0)
 * and maximum (0 = none). Answers the lines in the event's type order, ordered or not.
 */
export function checkTicketLines(types: readonly TicketTypeRow[], counts: ReadonlyMap<string, number>): TicketLine[] {
  const known = new Set(types.map((t) => t.id));
  for (const typeId of counts.keys()) {
    if (!known.has(typeId)) {
      throw invalidParams({ tickets: `${typeId} is not a ticket type of this event` });
    }
  }
  const lines: TicketLine[] = [];
  for (const type of types) {
    const count = counts.get(type.id);
    if (count === undefined) throw fail.order_missing_ticket_type(`Missing ticket type: ${type.name}`, { subject: { ticketType: type.id } });
    lines.push({ type, count });
  }
  if (lines.every((l) => l.count === 0)) throw fail.order_no_tickets();
  for (const { type, count } of lines) {
    if (!isLegalCount(count, type.minimumToOrder, type.maximumToOrder)) {
      throw fail.order_wrong_amount(`Wrong amount for this ticket type: ${type.name}`, { subject: { ticketType: type.id } });
    }
  }
  return lines;
}

/** decisions.md 15 "No request renders without bound": whatever `maximum_to_order` says. */
export const MAX_ORDER_TICKETS = 1000;
const ORDER_TOO_LARGE = `An order holds at most ${MAX_ORDER_TICKETS} tickets`;

/**
 * The tickets an order issues (a passe-partout's at each child event, the orders of one group purchase together)
 * within MAX_ORDER_TICKETS: one download renders them all, and one request issues them.
 */
export function checkOrderSize(tickets: number): void {
  if (!(tickets <= MAX_ORDER_TICKETS)) throw invalidParams({ tickets: ORDER_TOO_LARGE }, ORDER_TOO_LARGE);
}

/** The tickets `lines` issue when each unit issues `perUnit` tickets. */
export function ticketsOfLines(lines: readonly { count: number }[], perUnit: number): number {
  return lines.reduce((n, l) => n + l.count, 0) * perUnit;
}

export interface FieldAnswer {
  field: InputFieldRow;
  value: string;
}

/**
 * The order-level input fields (personalised ones are asked after ordering, never here): required ones answered,
 * every answer legal for its field. Unknown or personalised field ids are illegal. Answers in the event's order.
 */
export function checkFieldAnswers(fields: readonly InputFieldRow[], sent: ReadonlyMap<string, string>): FieldAnswer[] {
  const orderLevel = fields.filter((f) => !f.isPersonalised);
  const known = new Set(orderLevel.map((f) => f.id));
  for (const id of sent.keys()) if (!known.has(id)) throw fail.order_illegal_field_value();
  for (const f of orderLevel) {
    if (f.isRequired && (sent.get(f.id) ?? "").trim() === "") throw fail.order_required_fields(undefined, { subject: { field: f.id } });
  }
  const answers: FieldAnswer[] = [];
  for (const f of orderLevel) {
    const value = (sent.get(f.id) ?? "").trim();
    if (value !== "" && !isLegalFieldValue(f, value)) throw fail.order_illegal_field_value(undefined, { subject: { field: f.id } });
    answers.push({ field: f, value });
  }
  return answers;
}

/** A ticket an order is about to issue: its id, event and type, as the order's batch writes it. */
export interface TicketSeed {
  id: string;
  eventId: number;
  /** The name of that event (a passe-partout's child event for its child tickets), as the order's email names it. */
  eventName: string;
  typeId: string;
  typeName: string;
  /** The seat text, for tickets of seated events ("" otherwise). */
  seat: string;
  /** Its type asks for personalisation (passe-partout child tickets never need it: personalisation.service). */
  personalise: boolean;
}

/** What `waitingDeadline` reads of an order: the columns D1 and the event object both hold. */
export interface WaitingOrder {
  open: boolean;
  /** An open order's payment deadline, epoch seconds. */
  expiresAt: number | null;
  awaitsConfirmation: boolean;
  /** When the order was placed, epoch seconds. */
  createdAt: number;
}

/**
 * Until when a waiting order keeps its units (decisions.md 5.7 and 13 "Holds and takes"), in epoch milliseconds: an
 * open order until its payment deadline, a booking awaiting confirmation `confirmation_timeout` minutes after it was
 * placed, anything else (a final order, a timeout of 0) for good: null. The order's answer, the event object's
 * take and the reconciler all read this one rule, so none of them counts from another moment than `created_at`.
 */
export function waitingDeadline(order: WaitingOrder, confirmationTimeoutMinutes: number): number | null {
  if (order.open) return (order.expiresAt ?? 0) * 1000;
  if (order.awaitsConfirmation && confirmationTimeoutMinutes > 0) return (order.createdAt + confirmationTimeoutMinutes * 60) * 1000;
  return null;
}
