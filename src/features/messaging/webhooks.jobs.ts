import { attemptDelivery } from "./webhook-deliveries.service";
import { parseJob, type JobHandler } from "../../platform/parse-job";
import { webhookDeliveryJob } from "../../platform/messages";

/** `webhook.deliver`: one attempt of one delivery; a message that does not parse cannot become one. */
export const deliverWebhook: JobHandler = async (deps, _env, job) => {
  await attemptDelivery(deps, parseJob(webhookDeliveryJob, job));
};
