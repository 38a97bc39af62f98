import { attemptDelivery } from "../features/messaging/webhook-deliveries.service";
import type { JobHandler } from "./jobs.consumer";
import { parseJob } from "./parse-job";
import { webhookDeliveryJob } from "../platform/messages";

/** `webhook.deliver`: one attempt of one delivery; a message that does not parse cannot become one. */
export const deliverWebhook: JobHandler = async (deps, _env, job) => {
  await attemptDelivery(deps, parseJob(webhookDeliveryJob, job));
};
