import { expireOrder } from "./payments.service";
import { parseJob, type JobHandler } from "../../platform/parse-job";
import { orderExpireJob } from "../../platform/messages";

/** `order.expire`: an open order's payment time is up (sent by the event object's alarm). */
export const expireOpenOrder: JobHandler = async (deps, _env, job) => {
  const { uid, eventId } = parseJob(orderExpireJob, job);
  await expireOrder(deps, uid, eventId);
};
