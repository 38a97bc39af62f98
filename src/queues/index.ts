import type { Env } from "../env";
import { consumeDeadLetters, consumeJobs, type JobHandler } from "../queue";
import { sendEmail } from "../features/messaging/emails.jobs";
import { expireOpenOrder } from "../features/payments/order-expiry.jobs";
import { announceTicketsDownloaded, purgePdfs } from "../features/tickets/ticket-pdfs.jobs";
import { recordObjectScans } from "../features/scanning/scans.jobs";
import { refundPaidOrder } from "../features/payments/refunds.jobs";
import { deliverWebhook } from "../features/messaging/webhooks.jobs";

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
