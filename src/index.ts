import { buildApp } from "./app";
import type { Env } from "./env";
import { handleQueue } from "./queue";
import { sweep } from "./cron";
import { depsFromEnv } from "./platform/deps";

export { EventObject } from "./event-object/event.do";

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => handleQueue(batch, env),
  scheduled: (controller, env, ctx) => ctx.waitUntil(sweep(depsFromEnv(env), controller.scheduledTime)),
} satisfies ExportedHandler<Env, unknown>;
