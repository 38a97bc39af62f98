import { expireOrder } from "../services/payments.service";
import type { JobHandler } from "./jobs.consumer";
import { orderExpireJob } from "./messages";

/** `order.expire`: an open order's payment time is up (sent by the event object's alarm). */
export const expireOpenOrder: JobHandler = async (deps, _env, job) => {
  const { uid, eventId } = orderExpireJob.parse(job);
  await expireOrder(deps, uid, eventId);
};
