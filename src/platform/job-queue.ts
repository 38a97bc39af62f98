import type { Env } from "../env";
import type { QueuedJob } from "./messages";

/** The seam over the jobs Queue, so services never hold the binding; it sends only bodies built by `buildJob`. */
export interface JobQueue {
  send(job: QueuedJob, delaySeconds?: number): Promise<void>;
  sendAll(jobs: readonly QueuedJob[]): Promise<void>;
}

/**
 * A message not taken this long after it was due is taken to be lost (a crash after the commit, a failed send, a
 * stalled queue) and the cron sweep sends it again. A late original and its re-send are harmless together: every
 * consumer that can be re-driven claims its work in D1 by attempt number.
 */
export const LOST_MESSAGE_S = 60;

/** A Queue takes at most 100 messages in one sendBatch call. */
const BATCH = 100;

export function jobQueueFrom(env: Pick<Env, "JOBS">): JobQueue {
  return {
    async send(job, delaySeconds) {
      await env.JOBS.send(job, delaySeconds ? { delaySeconds } : undefined);
    },
    async sendAll(jobs) {
      for (let i = 0; i < jobs.length; i += BATCH) await env.JOBS.sendBatch(jobs.slice(i, i + BATCH).map((body) => ({ body })));
    },
  };
}
