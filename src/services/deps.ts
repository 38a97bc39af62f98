import { loadConfig, type Config } from "../config";
import { openDb, type Db } from "../db/client";
import { eventObjectsFrom, type EventObjects } from "../durable-objects/event.client";
import type { Env } from "../env";
import { log } from "../lib/log";
import { nowSeconds } from "../lib/time";
import { fileStoreFrom, type FileStore } from "../storage/file-store";

/** What a service function needs, built once per request (or per queue batch, or per cron run). */
export interface Deps {
  db: Db;
  config: Config;
  /** UTC epoch seconds; injectable so that tests can move the clock. */
  now: () => number;
  eventObjects: EventObjects;
  files: FileStore;
  /** Runs work after the answer is sent (`ctx.waitUntil`); its failure is logged, never raised. */
  defer: (work: Promise<unknown>) => void;
}

export function depsFromEnv(env: Env, waitUntil?: (work: Promise<unknown>) => void): Deps {
  const defer = (work: Promise<unknown>) => {
    const logged = work.catch((err: unknown) => log("error", "deferred work failed", { error: String(err) }));
    if (waitUntil) waitUntil(logged);
  };
  return { db: openDb(env.DB), config: loadConfig(env), now: nowSeconds, eventObjects: eventObjectsFrom(env), files: fileStoreFrom(env), defer };
}
