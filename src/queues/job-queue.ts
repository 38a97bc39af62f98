import type { Env } from "../env";
import type { JobMessage } from "./messages";

/** The seam over the jobs Queue, so services never hold the binding. */
export interface JobQueue {
  send(job: JobMessage, delaySeconds?: number): Promise<void>;
  sendAll(jobs: readonly JobMessage[]): Promise<void>;
}

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
