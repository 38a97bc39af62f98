import { loadConfig, type Config } from "../config";
import { openDb, type Db } from "../db/client";
import { eventObjectsFrom, type EventObjects } from "./event-object.client";
import type { Env } from "../env";
import { log } from "../lib/log";
import { nowSeconds } from "../lib/time";
import { jobQueueFrom, type JobQueue } from "./job-queue";
import { fileStoreFrom, type FileStore } from "./file-store";

/** What a service function needs, built once per request (or per queue batch, or per cron run). */
export interface Deps {
  db: Db;
  config: Config;
  /** UTC epoch seconds; injectable so that tests can move the clock. */
  now: () => number;
  eventObjects: EventObjects;
  files: FileStore;
  jobs: JobQueue;
  /**
   * The service's origin (scheme and host) for links in emails and pages and `X-EVT-Webhook-Source`: PUBLIC_URL
   * whenever it is set, so a request's `Host` never decides where a customer is sent (decisions.md 15); the
   * request's own origin only without it (local development); "" outside a request without it.
   */
  origin: string;
  /**
   * Runs work after the answer is sent (`ctx.waitUntil`); its failure is logged, never raised. It may never run (the
   * runtime can die first), so it only ever speeds up what D1 already records (docs/reliability.md "Guarantees");
   * tests drop it.
   */
  defer: (work: () => Promise<unknown>) => void;
}

export function depsFromEnv(env: Env, waitUntil?: (work: Promise<unknown>) => void, origin?: string): Deps {
  const defer = (work: () => Promise<unknown>) => {
    const logged = Promise.resolve()
      .then(work)
      .catch((err: unknown) => log("error", "deferred work failed", { error: String(err) }));
    if (waitUntil) waitUntil(logged);
  };
  const config = loadConfig(env);
  return {
    db: openDb(env.DB),
    config,
    origin: config.publicUrl || (origin ?? ""),
    now: nowSeconds,
    eventObjects: eventObjectsFrom(env),
    files: fileStoreFrom(env),
    jobs: jobQueueFrom(env),
    defer,
  };
}
