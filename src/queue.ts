import type { Env } from "./env";
import { log } from "./lib/log";
import { depsFromEnv } from "./platform/deps";
import { writeLog } from "./features/logs/logs.service";
import { jobEnvelope } from "./platform/messages";
import { MalformedJob, type JobHandler } from "./platform/parse-job";
import { sendEmail } from "./features/messaging/emails.jobs";
import { deliverWebhook } from "./features/messaging/webhooks.jobs";
import { announceTicketsDownloaded } from "./features/ordering/tickets-downloaded.jobs";
import { expireOpenOrder } from "./features/payments/order-expiry.jobs";
import { refundPaidOrder } from "./features/payments/refunds.jobs";
import { recordObjectScans } from "./features/scanning/scans.jobs";
import { purgePdfs, renderPdfPart } from "./features/tickets/ticket-pdfs.jobs";
import { recordWaitingList } from "./features/waiting-list/waiting-list.jobs";

/** Must match the dead-letter queue named in wrangler.toml. */
export const DEAD_LETTER_QUEUE = "ticketing-jobs-dlq";

/** One handler per message kind; each lives with the feature whose work it is. */
export const jobHandlers: Readonly<Record<string, JobHandler>> = {
  "webhook.deliver": deliverWebhook,
  "email.send": sendEmail,
  "order.expire": expireOpenOrder,
  "pdf.purge": purgePdfs,
  "pdf.render": renderPdfPart,
  "tickets.downloaded": announceTicketsDownloaded,
  "scans.record": recordObjectScans,
  "order.refund": refundPaidOrder,
  "waiting-list.update": recordWaitingList,
};

export function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  return batch.queue === DEAD_LETTER_QUEUE ? consumeDeadLetters(batch, env) : consumeJobs(batch, env, jobHandlers);
}

/** Delay before retry n (1-based): 10 s, 20 s, 40 s ... capped at one hour. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(3600, 10 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Acks each message on its own: one that succeeds is never redone because a neighbour failed. A message that
 * cannot be read, or names no known kind, is logged and dropped, since retrying cannot make it readable.
 */
export async function consumeJobs(batch: MessageBatch<unknown>, env: Env, handlers: Readonly<Record<string, JobHandler>>): Promise<void> {
  // Work a handler defers (webhooks fired by the services it calls) is part of its job: awaited before the ack,
  // since a queue invocation may end as soon as the handler returns.
  let deferred: Promise<unknown>[] = [];
  const deps = depsFromEnv(env, (work) => deferred.push(work));
  const settle = async () => {
    const pending = deferred;
    deferred = [];
    await Promise.allSettled(pending);
  };
  for (const message of batch.messages) {
    const parsed = jobEnvelope.safeParse(message.body);
    const handler = parsed.success ? handlers[parsed.data.kind] : undefined;
    if (!parsed.success || !handler) {
      await writeLog(deps, {
        logType: "Queue",
        description: `Dropped unreadable job message ${message.id}${parsed.success ? ` of unknown kind "${parsed.data.kind}"` : ""}`,
      });
      message.ack();
      continue;
    }
    try {
      await handler(deps, env, parsed.data);
      await settle();
      message.ack();
    } catch (err) {
      await settle();
      if (err instanceof MalformedJob) {
        await writeLog(deps, { logType: "Queue", description: `Dropped malformed "${parsed.data.kind}" message ${message.id}: ${err.message}` });
        message.ack();
        continue;
      }
      log("warn", "job failed, will retry", { kind: parsed.data.kind, message_id: message.id, attempts: message.attempts, error: String(err) });
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}

/** What never succeeded lands here after its retries: it becomes an error log entry an administrator can read. */
async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const deps = depsFromEnv(env);
  for (const message of batch.messages) {
    const parsed = jobEnvelope.safeParse(message.body);
    const job = parsed.success ? parsed.data : undefined;
    await writeLog(deps, {
      eventId: job?.eventId,
      orderId: job?.orderId,
      logType: "Queue",
      description: `Job ${job ? `"${job.kind}"` : message.id} failed after all retries`,
    });
    message.ack();
  }
}
