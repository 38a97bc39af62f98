import type { Env } from "../env";
import { consumeDeadLetters, consumeJobs, type JobHandler } from "./jobs.consumer";

/** Must match the dead-letter queue named in wrangler.toml. */
export const DEAD_LETTER_QUEUE = "ticketing-jobs-dlq";

/** One handler per message kind; the webhook, email and bulk issues add theirs here. */
export const jobHandlers: Readonly<Record<string, JobHandler>> = {};

export function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  return batch.queue === DEAD_LETTER_QUEUE ? consumeDeadLetters(batch, env) : consumeJobs(batch, env, jobHandlers);
}
