import { refundOrder } from "./refunds.service";
import type { JobHandler } from "../../queue";
import { orderRefundJob } from "../../platform/messages";
import { parseJob } from "../../platform/parse-job";

/** `order.refund`: refunds a paid order through its payment provider, once. */
export const refundPaidOrder: JobHandler = async (deps, _env, job) => {
  const { orderId, amountCents } = parseJob(orderRefundJob, job);
  await refundOrder(deps, orderId, amountCents);
};
