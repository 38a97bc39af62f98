import { inject } from "vitest";

/** The local stub server of test/stubs/global-setup.ts: addresses, programming, and what it received. */

export function stubUrl(path: string): string {
  return `http://127.0.0.1:${inject("stubPort")}${path}`;
}

export interface StubBehaviour {
  failTimes?: number;
  failStatus?: number;
  status?: number;
  body?: string;
  delayMs?: number;
}

/** Sets how `/<name>/...` answers and forgets what it received. Each test uses its own name. */
export async function programStub(name: string, behaviour: StubBehaviour = {}): Promise<void> {
  const res = await fetch(stubUrl(`/control/${name}`), { method: "PUT", body: JSON.stringify(behaviour) });
  if (!res.ok) throw new Error(`stub control failed: ${res.status}`);
}

export interface StubRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export async function receivedBy(name: string): Promise<StubRequest[]> {
  return (await fetch(stubUrl(`/control/${name}/requests`))).json();
}

/** Polls until `name` has received at least `count` requests (deliveries go through the queue). */
export async function waitForRequests(name: string, count: number, timeoutMs = 10_000): Promise<StubRequest[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await receivedBy(name);
    if (got.length >= count || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
}
