import { buildApp } from "./app";
import type { Env } from "./env";
import { handleQueue } from "./queues";
import { sweep } from "./scheduled/sweep";

export { EventObject } from "./durable-objects/event.do";

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => handleQueue(batch, env),
  scheduled: (_controller, env, ctx) => ctx.waitUntil(sweep(env)),
} satisfies ExportedHandler<Env, unknown>;
