import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { desc, eq } from "drizzle-orm";
import { logs } from "../src/db/schema";
import { openDb } from "../src/db/client";
import { eventObject } from "../src/platform/event-object.client";
import type { EventObject } from "../src/event-object/event.do";
import worker from "../src/index";
import { consumeJobs, retryDelaySeconds } from "../src/queue";
import { DEAD_LETTER_QUEUE } from "../src/queue";
import { expectLogged } from "./helpers/logs";

const db = openDb(env.DB);

async function logsWhere(text: string) {
  const rows = await db.select().from(logs).orderBy(desc(logs.id));
  return rows.filter((r) => r.description.includes(text));
}

describe("the event Durable Object", () => {
  it("is reachable per event through its typed client, with its SQLite schema in place", async () => {
    const stub = eventObject(env, 900_000_041);
    expect(await stub.configVersion()).toBe(0);
    await runInDurableObject(stub, (instance: EventObject, state) => {
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").toArray();
      expect(tables.map((t) => t.name)).toContain("config");
      expect(instance.configVersion()).toBe(0);
    });
  });

  it("is one object per event", () => {
    expect(eventObject(env, 1).id.equals(eventObject(env, 1).id)).toBe(true);
    expect(eventObject(env, 1).id.equals(eventObject(env, 2).id)).toBe(false);
  });
});

describe("the jobs queue", () => {
  it("delivers a sent message to the consumer (producer and consumer are wired)", async () => {
    await env.JOBS.send({ v: 1, kind: "wiring-check" });
    let found: unknown[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = await logsWhere('unknown kind "wiring-check"');
    }
    expect(found).toHaveLength(1);
  });

  it("drops an unreadable message with a log entry instead of retrying it", async () => {
    const batch = createMessageBatch("ticketing-jobs", [
      { id: "m-bad-1", timestamp: new Date(), attempts: 1, body: { nonsense: true } },
      { id: "m-bad-2", timestamp: new Date(), attempts: 1, body: { v: 2, kind: "x" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m-bad-1", "m-bad-2"]);
    expect(result.retryMessages).toEqual([]);
    expect(await logsWhere("m-bad-1")).toHaveLength(1);
  });

  it("acks what succeeds and retries what fails, each message on its own, with growing delays", async () => {
    const batch = createMessageBatch("ticketing-jobs", [
      { id: "ok-1", timestamp: new Date(), attempts: 1, body: { v: 1, kind: "works" } },
      { id: "fail-1", timestamp: new Date(), attempts: 3, body: { v: 1, kind: "breaks" } },
    ]);
    const seen: string[] = [];
    // The test harness records retries but not their options, so watch the call itself for the delay.
    const retry = vi.spyOn(batch.messages[1]!, "retry");
    const retried = expectLogged("warn", /"msg":"job failed, will retry","kind":"breaks"/);
    await consumeJobs(batch, env, {
      works: async (_deps, _env, job) => void seen.push(job.kind),
      breaks: async () => {
        throw new Error("provider down");
      },
    });
    const result = await getQueueResult(batch, createExecutionContext());
    expect(seen).toEqual(["works"]);
    expect(result.explicitAcks).toEqual(["ok-1"]);
    expect(result.retryMessages).toEqual([{ msgId: "fail-1" }]);
    expect(retry).toHaveBeenCalledWith({ delaySeconds: retryDelaySeconds(3) });
    expect(retried.lines.map((l) => JSON.parse(l))).toMatchObject([{ message_id: "fail-1", attempts: 3, error: "Error: provider down" }]);
    expect([1, 2, 3, 20].map(retryDelaySeconds)).toEqual([10, 20, 40, 3600]);
  });

  it("turns what reaches the dead-letter queue into an error log entry", async () => {
    const batch = createMessageBatch(DEAD_LETTER_QUEUE, [
      { id: "dead-1", timestamp: new Date(), attempts: 6, body: { v: 1, kind: "webhook.deliver", eventId: 12, orderId: 34 } },
    ]);
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, createExecutionContext());
    expect(result.explicitAcks).toEqual(["dead-1"]);
    const [entry] = await db.select().from(logs).where(eq(logs.orderId, 34));
    expect(entry).toMatchObject({ eventId: 12, orderId: 34, logType: "Queue" });
    expect(entry!.description).toContain('"webhook.deliver" failed after all retries');
  });
});

describe("the cron sweep", () => {
  it("deletes log entries older than LOG_RETENTION_DAYS and keeps the rest", async () => {
    const now = Math.floor(Date.now() / 1000);
    await db.insert(logs).values([
      { logType: "REST API", description: "sweep-old", createdAt: now - 91 * 86_400 },
      { logType: "REST API", description: "sweep-recent", createdAt: now - 89 * 86_400 },
    ]);
    const ctx = createExecutionContext();
    // Retention runs on every tenth minute's sweep.
    worker.scheduled(createScheduledController({ scheduledTime: Math.floor(Date.now() / 600_000) * 600_000, cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await logsWhere("sweep-old")).toHaveLength(0);
    expect(await logsWhere("sweep-recent")).toHaveLength(1);
  });
});

describe("R2", () => {
  it("is bound as FILES", async () => {
    await env.FILES.put("wiring/check.txt", "ok");
    expect(await (await env.FILES.get("wiring/check.txt"))!.text()).toBe("ok");
  });
});
