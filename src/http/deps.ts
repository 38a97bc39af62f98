import type { Context } from "hono";
import type { Env } from "../env";
import { depsFromEnv, type Deps } from "../platform/deps";

const perRequest = new WeakMap<Request, Deps>();

/** The service dependencies of this request, built on first use (so `/health` never builds them). */
export function depsOf(c: Pick<Context<{ Bindings: Env }>, "env" | "req" | "executionCtx">): Deps {
  let deps = perRequest.get(c.req.raw);
  if (!deps) {
    deps = depsFromEnv(c.env, (work) => c.executionCtx.waitUntil(work), new URL(c.req.url).origin);
    perRequest.set(c.req.raw, deps);
  }
  return deps;
}
