import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";

/** Calls the Worker under other settings (`overrides` over the test env), waiting for its work after the answer. */
export async function fetchWith(overrides: Record<string, unknown>, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** Waits, when needed, so the test's requests all fall in one minute window (the rate limits count per minute). */
export async function startOfWindow(): Promise<void> {
  const second = Math.floor(Date.now() / 1000) % 60;
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}
