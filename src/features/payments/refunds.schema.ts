import { z } from "zod";
import { money } from "../../http/field-types";
import { orderIds } from "../ordering/bulk.schema";

/** `POST /admin/bulk/refunds/send` (spec "Bulk refunds"; decisions.md 10): what each order gets back. */
export const refundSendBody = z.strictObject({
  order_ids: orderIds,
  cost_type: z.enum(["ticket", "order"]),
  cost: money,
});
export type RefundSendInput = z.output<typeof refundSendBody>;

/** `POST /admin/orders/<id>/refund`: optionally less than the whole total. */
export const refundOneBody = z.strictObject({ amount: money.optional() });
