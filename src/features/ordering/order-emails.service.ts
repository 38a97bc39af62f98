import { inIds } from "../../db/client";
import { FINAL_STATUSES } from "../../db/order-status";
import { events, orders } from "../../db/schema";
import { invalidParams } from "../../domain/errors";
import type { OrderEmailsSendInput } from "./bulk.schema";
import { canAccessEvent, type AuthUser } from "../../domain/authority";
import type { BulkError } from "./bulk-orders.service";
import type { Deps } from "../../platform/deps";
import { enqueueEmails, orderEmail, outboxStatement } from "../messaging/emails.service";
import { ordersToPersonalise } from "../tickets/personalisation.service";

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
  const toPersonalise = await ordersToPersonalise(deps, rows.map((o) => o.id));
  const byId = new Map(rows.map((o) => [o.id, o]));
  const eventsById = new Map(eventRows.map((e) => [e.id, e]));
  const errors: BulkError[] = [];
  const statements = [];
  for (const id of input.order_ids) {
    const order = byId.get(id);
    const event = order ? eventsById.get(order.eventId) : undefined;
    if (!order || !event || !canAccessEvent(user, order.eventId)) errors.push({ order_id: id, error: "Order not found" });
    else statements.push(outboxStatement(deps, orderEmail(deps, order, event, "new-order", toPersonalise.has(order.id)), order.id));
  }
  if (statements.length > 0) {
    const written = await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
    await enqueueEmails(deps, written.flatMap((r) => r.map((e) => e.id)));
  }
  return errors;
}
