import type { z } from "zod";
import type { Env } from "../env";
import type { Deps } from "./deps";
import type { JobMessage } from "./messages";

/** What a feature's `*.jobs.ts` exports: the work of one message kind (src/queue.ts routes each kind to its handler). */
export type JobHandler = (deps: Deps, env: Env, job: JobMessage) => Promise<void>;

/** A message whose kind is known but whose body does not match it: retrying cannot make it readable. */
export class MalformedJob extends Error {}

export function parseJob<S extends z.ZodType>(schema: S, job: unknown): z.output<S> {
  const parsed = schema.safeParse(job);
  if (!parsed.success) throw new MalformedJob(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  return parsed.data;
}
