import { refundOrder } from "./refunds.service";
import { orderRefundJob } from "../../platform/messages";
import { parseJob, type JobHandler } from "../../platform/parse-job";

/** `order.refund`: refunds a paid order through its payment provider, once. */
export const refundPaidOrder: JobHandler = async (deps, _env, job) => {
  const { orderId, amountCents } = parseJob(orderRefundJob, job);
  await refundOrder(deps, orderId, amountCents);
};
