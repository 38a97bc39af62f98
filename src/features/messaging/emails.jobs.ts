import { sendQueuedEmail } from "./emails.service";
import { parseJob, type JobHandler } from "../../platform/parse-job";
import { emailJob } from "../../platform/messages";

/** `email.send`: one attempt to send one outbox row. */
export const sendEmail: JobHandler = async (deps, _env, job) => {
  await sendQueuedEmail(deps, parseJob(emailJob, job));
};
