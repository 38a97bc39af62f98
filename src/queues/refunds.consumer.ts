import { refundOrder } from "../features/payments/refunds.service";
import type { JobHandler } from "./jobs.consumer";
import { orderRefundJob } from "../platform/messages";
import { parseJob } from "./parse-job";

/** `order.refund`: refunds a paid order through its payment provider, once. */
export const refundPaidOrder: JobHandler = async (deps, _env, job) => {
  const { orderId, amountCents } = parseJob(orderRefundJob, job);
  await refundOrder(deps, orderId, amountCents);
};
