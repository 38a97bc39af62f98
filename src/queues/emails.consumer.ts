import { sendQueuedEmail } from "../features/messaging/emails.service";
import type { JobHandler } from "./jobs.consumer";
import { parseJob } from "./parse-job";
import { emailJob } from "../platform/messages";

/** `email.send`: one attempt to send one outbox row. */
export const sendEmail: JobHandler = async (deps, _env, job) => {
  await sendQueuedEmail(deps, parseJob(emailJob, job));
};
