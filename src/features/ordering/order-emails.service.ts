import { inIds } from "../../db/client";
import { FINAL_STATUSES } from "../../db/order-status";
import { events, orders } from "../../db/schema";
import { invalidParams } from "../../domain/errors";
import type { OrderEmailsSendInput } from "./bulk.schema";
import { canAccessEvent, type AuthUser } from "../../domain/authority";
import type { BulkError } from "./bulk-orders.service";
import type { Deps } from "../../platform/deps";
import type { EventRow, OrderRow } from "../../db/rows";
import { enqueueEmails, outboxStatement, type OutboxEmail } from "../messaging/emails.service";
import { DEFAULT_CONFIRM_BODY, DEFAULT_CONFIRMED_BODY, DEFAULT_ORDER_BODY, renderEmail } from "../messaging/email-templates";
import { orderKeywords } from "./order-keywords";
import { ordersToPersonalise } from "../tickets/personalisation.service";
import { ordersPassTickets, type PassTicket, seedPassTickets } from "../tickets/wallet-links";
import type { TicketSeed } from "../../domain/order-rules";

export type OrderEmailKind = "new-order" | "confirm" | "confirmed";

/** What an order's email says of its tickets. */
export interface EmailTickets {
  /** Some ticket is still to be personalised ({%PERSONALISE%}; no download or passes yet). */
  toPersonalise: boolean;
  /** The tickets, for their wallet passes ({%WALLET%}). */
  passes: readonly PassTicket[];
}

/** The confirmation request's: the order has no tickets yet. */
export const NO_TICKETS: EmailTickets = { toPersonalise: false, passes: [] };

/** The tickets the final batch of an order at `event` writes, as its email tells of them. */
export function seedTickets(seeds: readonly TicketSeed[], event: EventRow): EmailTickets {
  return { toPersonalise: seeds.some((s) => s.personalise), passes: seedPassTickets(seeds, event.id) };
}

/**
 * The outbox row of an order email: the new-order email (the event's `email` template; with confirmation emails
 * on it asks for the confirmation and carries {%CONFIRM%}), or the confirmation-done email (`email_confirmation`).
 * Sender name and address override the global ones only when set; one BCC at most.
 */
export function orderEmail(deps: Deps, order: OrderRow, event: EventRow, kind: OrderEmailKind, tickets: EmailTickets): OutboxEmail {
  const confirmed = kind === "confirmed";
  const template = confirmed ? event.emailConfirmation : event.email;
  const fallback = kind === "confirm" ? DEFAULT_CONFIRM_BODY : confirmed ? DEFAULT_CONFIRMED_BODY : DEFAULT_ORDER_BODY;
  const subject = template.subject || (confirmed ? `Booking confirmed: ${event.eventName}` : `Your order for ${event.eventName}`);
  const keywords = orderKeywords(deps, order, event, { confirm: kind === "confirm", personalise: tickets.toPersonalise, passes: tickets.passes });
  const rendered = renderEmail({ subject, body: template.body || fallback }, keywords);
  const now = deps.now();
  return {
    to: order.email,
    bcc: template.bcc,
    fromName: event.email.sender_name || deps.config.email.fromName,
    fromEmail: event.email.sender_email || deps.config.email.from,
    subject: rendered.subject,
    body: rendered.html,
    eventId: event.id,
    createdAt: now,
    dueAt: now,
  };
}

/** The orders whose new-order email a bulk list may select: final ones (they have tickets to send). */
export const ORDER_EMAIL_STATUSES = FINAL_STATUSES;

/**
 * `POST /admin/bulk/order-emails/send` (decisions.md 10): each found order's new-order email written to the outbox
 * again (as when the order became final) and queued for sending; unknown or foreign ids are `Order not found`.
 */
export async function resendOrderEmails(deps: Deps, user: AuthUser, input: OrderEmailsSendInput): Promise<BulkError[]> {
  if (input.order_ids.length > deps.config.bulkBatchSize) throw invalidParams({ order_ids: `must name at most ${deps.config.bulkBatchSize} orders` });
  const { db } = deps;
  const rows = await db.select().from(orders).where(inIds(orders.id, input.order_ids));
  const eventIds = [...new Set(rows.map((o) => o.eventId))];
  const eventRows = eventIds.length > 0 ? await db.select().from(events).where(inIds(events.id, eventIds)) : [];
  const toPersonalise = await ordersToPersonalise(
    deps,
    rows.map((o) => o.id),
  );
  const passes = await ordersPassTickets(deps, rows);
  const byId = new Map(rows.map((o) => [o.id, o]));
  const eventsById = new Map(eventRows.map((e) => [e.id, e]));
  const errors: BulkError[] = [];
  const statements = [];
  for (const id of input.order_ids) {
    const order = byId.get(id);
    const event = order ? eventsById.get(order.eventId) : undefined;
    if (!order || !event || !canAccessEvent(user, order.eventId)) errors.push({ order_id: id, error: "Order not found" });
    else
      statements.push(
        outboxStatement(deps, orderEmail(deps, order, event, "new-order", { toPersonalise: toPersonalise.has(order.id), passes: passes.get(order.id) ?? [] }), order.id),
      );
  }
  if (statements.length > 0) {
    const written = await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
    await enqueueEmails(
      deps,
      written.flatMap((r) => r.map((e) => e.id)),
    );
  }
  return errors;
}
