import type { Env } from "../env";
import { consumeDeadLetters, consumeJobs, type JobHandler } from "./jobs.consumer";
import { sendEmail } from "./emails.consumer";
import { expireOpenOrder } from "./orders.consumer";
import { announceTicketsDownloaded, purgePdfs } from "./pdfs.consumer";
import { recordObjectScans } from "./scans.consumer";
import { refundPaidOrder } from "./refunds.consumer";
import { deliverWebhook } from "./webhooks.consumer";

/** Must match the dead-letter queue named in wrangler.toml. */
export const DEAD_LETTER_QUEUE = "ticketing-jobs-dlq";

/** One handler per message kind. */
export const jobHandlers: Readonly<Record<string, JobHandler>> = {
  "webhook.deliver": deliverWebhook,
  "email.send": sendEmail,
  "order.expire": expireOpenOrder,
  "pdf.purge": purgePdfs,
  "tickets.downloaded": announceTicketsDownloaded,
  "scans.record": recordObjectScans,
  "order.refund": refundPaidOrder,
};

export function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  return batch.queue === DEAD_LETTER_QUEUE ? consumeDeadLetters(batch, env) : consumeJobs(batch, env, jobHandlers);
}
