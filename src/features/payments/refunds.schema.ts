import { z } from "zod";
import { money } from "../../http/field-types";
import { CRITERIA_NOTE, orderIds, selectedOrdersView } from "../ordering/bulk.schema";
import { answers, type RouteDoc } from "../../http/route-docs";
import { amountView, bulkErrorsView } from "../../http/view-types";

/** `POST /admin/bulk/refunds/send` (spec "Bulk refunds"; decisions.md 10): what each order gets back. */
export const refundSendBody = z.strictObject({
  order_ids: orderIds,
  cost_type: z.enum(["ticket", "order"]),
  cost: money,
});
export type RefundSendInput = z.output<typeof refundSendBody>;

/** `POST /admin/orders/<id>/refund`: optionally less than the whole total. */
export const refundOneBody = z.strictObject({ amount: money.optional() });

/** The refund routes (spec "Orders", "Bulk refunds"; decisions.md 10): the refunds themselves run in the queue. */
export const refundsApi = {
  one: {
    operationId: "refundOrder",
    summary: "Refund an order",
    description:
      "Asks the payment provider, through the queue, to refund a paid order: its total, or `amount` of it. The order turns `refunded` when the provider has done it; the same order is refunded once however often asked.",
    success: answers.ok(z.object({ order_id: z.number().int(), amount: amountView, status: z.literal("queued") }), "Queued: the amount that will be refunded."),
    errors: { "409": "`order_not_paid`: only a paid order can be refunded." },
  },
  list: {
    operationId: "listRefundTargets",
    summary: "Select orders for a bulk refund",
    description: `The paid orders matching the criteria. ${CRITERIA_NOTE}`,
    success: answers.ok(selectedOrdersView),
  },
  send: {
    operationId: "refundOrders",
    summary: "Refund orders in bulk",
    description: "Queues a refund of each order, less `cost` per ticket or per order (`cost_type`). One batch per call.",
    success: answers.ok(bulkErrorsView("order_id"), "What could not be queued, per order; empty when everything was."),
  },
} satisfies Record<string, RouteDoc>;
