import { loadConfig, type Config } from "../config";
import { openDb, type Db } from "../db/client";
import { eventObjectsFrom, type EventObjects } from "../durable-objects/event.client";
import type { Env } from "../env";
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
}

export function depsFromEnv(env: Env): Deps {
  return { db: openDb(env.DB), config: loadConfig(env), now: nowSeconds, eventObjects: eventObjectsFrom(env), files: fileStoreFrom(env) };
}
