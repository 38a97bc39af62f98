import { z } from "zod";
import { count, eventIdCsv, money } from "../../http/field-types";
import { isWireDateTime } from "../../lib/time";
import { answers, type RouteDoc } from "../../http/route-docs";
import { amountView, bulkErrorsView } from "../../http/view-types";

/** Bulk actions (spec "Bulk refunds", "Bulk order emails"; decisions.md 10): criteria, all mandatory. The refund bodies are in features/payments. */

const wireDateTime = z.string().refine(isWireDateTime, 'must be a date-time "YYYY-MM-DD HH:MM:SS"');

/** Integers and amounts may arrive as JSON numbers or as numeric strings (form-minded clients). */
const wholeNumber = z.union([
  count(),
  z
    .string()
    .regex(/^\d{1,9}$/, "must be a whole number")
    .transform(Number),
]);

export const orderCriteriaBody = z
  .strictObject({
    date_from: wireDateTime,
    date_to: wireDateTime,
    event_ids: eventIdCsv,
    tickets_minimum: wholeNumber,
    tickets_maximum: wholeNumber,
    amount_minimum: money,
    amount_maximum: money,
  })
  .superRefine((c, ctx) => {
    if (c.date_to < c.date_from) ctx.addIssue({ code: "custom", path: ["date_to"], message: "must not be before date_from" });
    if (c.tickets_maximum < c.tickets_minimum) ctx.addIssue({ code: "custom", path: ["tickets_maximum"], message: "must not be below tickets_minimum" });
    if (c.amount_maximum < c.amount_minimum) ctx.addIssue({ code: "custom", path: ["amount_maximum"], message: "must not be below amount_minimum" });
  });
export type OrderCriteria = z.output<typeof orderCriteriaBody>;

/** The orders a bulk send acts on (refunds, order emails). */
export const orderIds = z.array(z.number().int().positive("must be order ids").max(Number.MAX_SAFE_INTEGER)).min(1, "must name at least one order").max(1000);

export const orderEmailsSendBody = z.strictObject({ order_ids: orderIds });
export type OrderEmailsSendInput = z.output<typeof orderEmailsSendBody>;

/** What a bulk list call answers: the criteria as read, the batch size a send may use, and the orders selected. */
export const selectedOrdersView = z.object({
  date_from: z.string(),
  date_to: z.string(),
  event_ids: z.string(),
  tickets_minimum: z.number().int(),
  tickets_maximum: z.number().int(),
  amount_minimum: amountView,
  amount_maximum: amountView,
  batch_size: z.number().int().describe("How many order ids a send call may carry."),
  order_ids: z.array(z.number().int()),
});

export const CRITERIA_NOTE = "Every criterion is required: the creation window (service time zone), event ids (empty: all the user may see), ticket and amount bounds.";

/** The routes of `/admin/bulk/order-emails` (spec "Bulk order emails"; decisions.md 10). */
export const bulkOrderEmailsApi = {
  list: {
    operationId: "listOrderEmailTargets",
    summary: "Select orders for a bulk order email",
    description: `The final orders matching the criteria. ${CRITERIA_NOTE}`,
    success: answers.ok(selectedOrdersView),
  },
  send: {
    operationId: "resendOrderEmails",
    summary: "Send the order email again to orders",
    description: "Queues each order's confirmation email again, through the outbox. One batch per call.",
    success: answers.ok(bulkErrorsView("order_id"), "What could not be queued, per order; empty when everything was."),
  },
} satisfies Record<string, RouteDoc>;
