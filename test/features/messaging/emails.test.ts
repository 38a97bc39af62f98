import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emails, logs, orders } from "../../../src/db/schema";
import { sendEmail } from "../../../src/features/messaging/emails.jobs";
import type { JobQueue } from "../../../src/platform/job-queue";
import { consumeJobs } from "../../../src/queue";
import type { JobHandler } from "../../../src/platform/parse-job";
import type { JobMessage } from "../../../src/platform/messages";
import type { Deps } from "../../../src/platform/deps";
import { depsFromEnv } from "../../../src/platform/deps";
import { EMAIL_RETRY_MINUTES, sendQueuedEmail } from "../../../src/features/messaging/emails.service";
import { orderEmail } from "../../../src/features/ordering/order-emails.service";
import { getEvent } from "../../../src/features/catalogue/events.service";
import { db } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";
import { programStub, receivedBy, stubUrl, type StubRequest } from "../../helpers/stubs";
import { expectLogged } from "../../helpers/logs";

/**
 * Sending outbox rows (decisions.md 9; docs/webhooks-and-email.md "Email") through the Resend provider against the
 * local stub: the request itself, retries after 1, 5, 15 and 60 minutes on 5xx/429/network errors, an immediate
 * failure on other 4xx, the final failure logged, duplicates of an attempt sending nothing, and a queue batch in
 * which one send fails and another kind's handler throws without anything being lost.
 *
 * The retry messages that sendQueuedEmail sends are recorded instead of going to the real queue, so that the real
 * consumer (outbox provider) never races these tests for a row.
 */

/** A fixed clock, so due times can be asserted exactly. */
const NOW = 1_900_000_000;

type EmailInsert = typeof emails.$inferInsert;
type EmailRow = typeof emails.$inferSelect;

let serial = 0;
/** Event and order ids no real event uses, so each test reads only its own rows and logs. */
function ids() {
  serial += 1;
  return { eventId: 700_000 + serial, orderId: 800_000 + serial };
}

async function outboxRow(extra: Partial<EmailInsert> = {}): Promise<EmailRow> {
  const [row] = await db
    .insert(emails)
    .values({
      to: "ann@example.com",
      bcc: "",
      fromName: "Acme Events",
      fromEmail: "events@acme.test",
      subject: "Your tickets",
      body: '<!DOCTYPE html><html><body><div style="max-width:600px"><p>Hello Ann</p></div></body></html>',
      createdAt: NOW - 100,
      dueAt: NOW - 100,
      ...ids(),
      ...extra,
    })
    .returning();
  return row!;
}

async function rowOf(id: number): Promise<EmailRow> {
  const row = await db.select().from(emails).where(eq(emails.id, id)).get();
  expect(row, `outbox row ${id}`).toBeDefined();
  return row!;
}

async function logsOfOrder(orderId: number) {
  return db.select().from(logs).where(eq(logs.orderId, orderId));
}

interface Requeued {
  job: JobMessage;
  delaySeconds: number | undefined;
}

/** A JobQueue that records what it is given. */
function recordingQueue(): { queue: JobQueue; sent: Requeued[] } {
  const sent: Requeued[] = [];
  return {
    sent,
    queue: {
      async send(job, delaySeconds) {
        sent.push({ job, delaySeconds });
      },
      async sendAll(jobs) {
        for (const job of jobs) sent.push({ job, delaySeconds: undefined });
      },
    },
  };
}

/** The service's env with the Resend provider pointed at the stub `name`. */
function resendEnv(name: string): typeof env {
  return { ...env, EMAIL_PROVIDER: "resend", EMAIL_API_URL: stubUrl(`/${name}/emails`), EMAIL_API_KEY: "re_test" } as typeof env;
}

function resendDeps(name: string, now = NOW): { deps: Deps; sent: Requeued[] } {
  const { queue, sent } = recordingQueue();
  return { deps: { ...depsFromEnv(resendEnv(name)), now: () => now, jobs: queue }, sent };
}

const job = (emailId: number, attempt: number) => ({ v: 1 as const, kind: "email.send" as const, emailId, attempt });

const RESEND_OK = JSON.stringify({ id: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c" });

function parsed(request: StubRequest): Record<string, unknown> {
  return JSON.parse(request.body) as Record<string, unknown>;
}

describe("the Resend provider", () => {
  it("POSTs the message to the configured URL with the bearer key and the exact JSON body", async () => {
    await programStub("resend-shape", { status: 200, body: RESEND_OK });
    const row = await outboxRow({
      to: "ann.smith@example.com",
      bcc: "archive@acme.test",
      fromName: "Acme Events",
      fromEmail: "events@acme.test",
      subject: `Tickets for Ann & "Bo" (2026)`,
      body: '<!DOCTYPE html><html><body><div style="max-width:600px"><p>Hello &amp; welcome</p></div></body></html>',
    });
    const { deps, sent } = resendDeps("resend-shape");
    await sendQueuedEmail(deps, job(row.id, 1));

    const got = await receivedBy("resend-shape");
    expect(got).toHaveLength(1);
    const request = got[0]!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/resend-shape/emails");
    expect(request.headers["authorization"]).toBe("Bearer re_test");
    expect(request.headers["content-type"]).toMatch(/^application\/json\b/);
    // Derived from the outbox row, so Resend sends a re-sent attempt once.
    expect(request.headers["idempotency-key"]).toBe(`outbox-email/${row.id}-${row.createdAt}`);
    expect(parsed(request)).toStrictEqual({
      from: "Acme Events <events@acme.test>",
      to: ["ann.smith@example.com"],
      subject: `Tickets for Ann & "Bo" (2026)`,
      html: row.body,
      bcc: ["archive@acme.test"],
    });

    const after = await rowOf(row.id);
    expect(after).toMatchObject({ status: "sent", attempts: 1, lastError: "", sentAt: NOW });
    expect(sent).toEqual([]);
  });

  it("sends no bcc field when the email has no BCC, and the bare address when there is no sender name", async () => {
    await programStub("resend-nobcc", { status: 200, body: RESEND_OK });
    const row = await outboxRow({ bcc: "", fromName: "", fromEmail: "tickets@example.com", to: "bo@example.com" });
    const { deps } = resendDeps("resend-nobcc");
    await sendQueuedEmail(deps, job(row.id, 1));
    const [request] = await receivedBy("resend-nobcc");
    expect(request).toBeDefined();
    const body = parsed(request!);
    expect(body).toStrictEqual({ from: "tickets@example.com", to: ["bo@example.com"], subject: row.subject, html: row.body });
    expect("bcc" in body).toBe(false);
    expect((await rowOf(row.id)).status).toBe("sent");
  });

  it("keeps the from header one address when the sender name holds address syntax", async () => {
    await programStub("resend-fromname", { status: 200, body: RESEND_OK });
    const row = await outboxRow({ fromName: `Acme <evil@attacker.test> "Events"`, fromEmail: "events@acme.test" });
    const { deps } = resendDeps("resend-fromname");
    await sendQueuedEmail(deps, job(row.id, 1));
    const [request] = await receivedBy("resend-fromname");
    const from = parsed(request!).from as string;
    expect(from.endsWith(" <events@acme.test>")).toBe(true);
    // Read as a mail API reads it: one mailbox, and its address is the event's, never the one inside the name.
    expect(readMailbox(from)?.address, from).toBe("events@acme.test");
  });
});

/**
 * Reads an RFC 5322 `name-addr` (`display-name <address>`) the way a mail API does: the display name is a phrase of
 * atoms (dots allowed, UTF-8 allowed) or one quoted string. Anything else (a comma, colon, parenthesis ... outside
 * quotes) is not one mailbox with that name. Answers null when it does not read.
 */
function readMailbox(from: string): { name: string; address: string } | null {
  const m = /^(.*?)\s*<([^<>\s@]+@[^<>\s@]+)>$/.exec(from);
  if (!m) return /^[^<>\s@]+@[^<>\s@]+$/.test(from) ? { name: "", address: from } : null;
  const phrase = m[1]!.trim();
  const address = m[2]!;
  if (/^"(?:[^"\\\r\n]|\\.)*"$/.test(phrase)) return { name: phrase.slice(1, -1).replace(/\\(.)/g, "$1"), address };
  const atom = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~.\\u0080-\\uffff]+";
  if (new RegExp(`^${atom}( +${atom})*$`).test(phrase)) return { name: phrase, address };
  return null;
}

describe("the Resend from field", () => {
  it("reads back as exactly the event's sender name and address, whatever punctuation the name holds", async () => {
    const names = ["Acme Events", "Café Müller", "Dr. Ann Smith", "Smith, Jones & Co", "Box Office: Main Hall", "Acme (Tickets)"];
    await programStub("resend-names", { status: 200, body: RESEND_OK });
    const { deps } = resendDeps("resend-names");
    for (const fromName of names) {
      const row = await outboxRow({ fromName, fromEmail: "events@acme.test" });
      await sendQueuedEmail(deps, job(row.id, 1));
    }
    const froms = (await receivedBy("resend-names")).map((r) => parsed(r).from as string);
    expect(froms).toHaveLength(names.length);
    expect(froms.map(readMailbox)).toEqual(names.map((name) => ({ name, address: "events@acme.test" })));
  });
});

describe("sendQueuedEmail: retries and failures", () => {
  it("500 twice then 200: requeued with a delay each time, then sent", async () => {
    await programStub("resend-flaky", { failTimes: 2, failStatus: 500, status: 200, body: RESEND_OK });
    const row = await outboxRow();

    const first = resendDeps("resend-flaky", NOW);
    await sendQueuedEmail(first.deps, job(row.id, 1));
    let after = await rowOf(row.id);
    expect(after.status).toBe("queued");
    expect(after.attempts).toBe(1);
    expect(after.lastError).toContain("500");
    expect(after.dueAt).toBe(NOW + 60);
    expect(after.sentAt).toBeNull();
    expect(first.sent).toEqual([{ job: job(row.id, 2), delaySeconds: 60 }]);

    const second = resendDeps("resend-flaky", NOW + 60);
    await sendQueuedEmail(second.deps, job(row.id, 2));
    after = await rowOf(row.id);
    expect(after).toMatchObject({ status: "queued", attempts: 2, dueAt: NOW + 60 + 5 * 60 });
    expect(after.lastError).toContain("500");
    expect(second.sent).toEqual([{ job: job(row.id, 3), delaySeconds: 5 * 60 }]);

    const third = resendDeps("resend-flaky", NOW + 360);
    await sendQueuedEmail(third.deps, job(row.id, 3));
    after = await rowOf(row.id);
    expect(after).toMatchObject({ status: "sent", attempts: 3, lastError: "", sentAt: NOW + 360 });
    expect(third.sent).toEqual([]);

    const got = await receivedBy("resend-flaky");
    expect(got).toHaveLength(3);
    // Every attempt sends the same message under the same idempotency key.
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(new Set(got.map((r) => r.headers["idempotency-key"]))).toEqual(new Set([`outbox-email/${row.id}-${row.createdAt}`]));
    expect(await logsOfOrder(row.orderId)).toEqual([]);
  });

  it("429 and an unreachable API are retried too", async () => {
    await programStub("resend-429", { status: 429, body: JSON.stringify({ message: "Too many requests" }) });
    const limited = await outboxRow();
    const a = resendDeps("resend-429");
    await sendQueuedEmail(a.deps, job(limited.id, 1));
    expect(await rowOf(limited.id)).toMatchObject({ status: "queued", attempts: 1, dueAt: NOW + 60 });
    expect((await rowOf(limited.id)).lastError).toContain("429");
    expect(a.sent).toEqual([{ job: job(limited.id, 2), delaySeconds: 60 }]);

    // Nothing listens on port 9 of the loopback interface: a network error, not an answer.
    const unreachable = await outboxRow();
    const { queue, sent } = recordingQueue();
    const deps: Deps = {
      ...depsFromEnv({ ...env, EMAIL_PROVIDER: "resend", EMAIL_API_URL: "http://127.0.0.1:9/emails", EMAIL_API_KEY: "re_test" } as typeof env),
      now: () => NOW,
      jobs: queue,
    };
    await sendQueuedEmail(deps, job(unreachable.id, 1));
    const row = await rowOf(unreachable.id);
    expect(row).toMatchObject({ status: "queued", attempts: 1, dueAt: NOW + 60 });
    expect(row.lastError).not.toBe("");
    expect(sent).toEqual([{ job: job(unreachable.id, 2), delaySeconds: 60 }]);
  });

  it("a 409 for the same idempotency key still in progress is retried; another 409 fails at once", async () => {
    const inProgress = { name: "concurrent_idempotent_requests", message: "Same idempotency key used while original request is still in progress" };
    await programStub("resend-409-busy", { status: 409, body: JSON.stringify({ statusCode: 409, ...inProgress }) });
    const busy = await outboxRow();
    const a = resendDeps("resend-409-busy");
    await sendQueuedEmail(a.deps, job(busy.id, 1));
    expect(await rowOf(busy.id)).toMatchObject({ status: "queued", attempts: 1, dueAt: NOW + 60 });
    expect(a.sent).toEqual([{ job: job(busy.id, 2), delaySeconds: 60 }]);

    const reused = { name: "invalid_idempotent_request", message: "Same idempotency key used with a different request payload" };
    await programStub("resend-409-other", { status: 409, body: JSON.stringify({ statusCode: 409, ...reused }) });
    const other = await outboxRow();
    const b = resendDeps("resend-409-other");
    await sendQueuedEmail(b.deps, job(other.id, 1));
    expect(await rowOf(other.id)).toMatchObject({ status: "failed", attempts: 1 });
    expect(b.sent).toEqual([]);
  });

  it("a 400 from the API fails at once: status failed, last_error kept, a log entry, no retry", async () => {
    await programStub("resend-400", { status: 400, body: JSON.stringify({ name: "validation_error", message: "Invalid `to` field" }) });
    const row = await outboxRow({ to: "bad@example.com" });
    const { deps, sent } = resendDeps("resend-400");
    await sendQueuedEmail(deps, job(row.id, 1));

    const after = await rowOf(row.id);
    expect(after.status).toBe("failed");
    expect(after.attempts).toBe(1);
    expect(after.lastError).toContain("400");
    expect(after.lastError).toContain("Invalid `to` field");
    expect(after.sentAt).toBeNull();
    expect(sent).toEqual([]);
    expect(await receivedBy("resend-400")).toHaveLength(1);

    const entries = await logsOfOrder(row.orderId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ logType: "Email", eventId: row.eventId, orderId: row.orderId });
    expect(entries[0]!.description).toContain(String(row.id));
    expect(entries[0]!.description).toContain("bad@example.com");
    expect(entries[0]!.description).toContain("400");
  });

  it("retries after 1, 5, 15 and 60 minutes; the last retry failing makes it failed with a log entry", async () => {
    expect(EMAIL_RETRY_MINUTES).toEqual([1, 5, 15, 60]);
    await programStub("resend-down", { status: 503, body: JSON.stringify({ message: "unavailable" }) });
    const row = await outboxRow();
    let clock = NOW;
    for (let attempt = 1; attempt <= 4; attempt++) {
      const { deps, sent } = resendDeps("resend-down", clock);
      await sendQueuedEmail(deps, job(row.id, attempt));
      const minutes = EMAIL_RETRY_MINUTES[attempt - 1]!;
      const after = await rowOf(row.id);
      expect(after, `attempt ${attempt}`).toMatchObject({ status: "queued", attempts: attempt, dueAt: clock + minutes * 60 });
      expect(sent, `attempt ${attempt}`).toEqual([{ job: job(row.id, attempt + 1), delaySeconds: minutes * 60 }]);
      expect(await logsOfOrder(row.orderId), `attempt ${attempt}`).toEqual([]);
      clock += minutes * 60;
    }
    const last = resendDeps("resend-down", clock);
    await sendQueuedEmail(last.deps, job(row.id, 5));
    const after = await rowOf(row.id);
    expect(after.status).toBe("failed");
    expect(after.attempts).toBe(5);
    expect(after.lastError).toContain("503");
    expect(after.sentAt).toBeNull();
    expect(last.sent).toEqual([]);
    expect(await receivedBy("resend-down")).toHaveLength(5);
    const entries = await logsOfOrder(row.orderId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ logType: "Email", eventId: row.eventId, orderId: row.orderId });
    expect(entries[0]!.description).toContain("503");
  });

  it("a duplicate job for an attempt already made sends nothing more", async () => {
    await programStub("resend-dup", { failTimes: 1, failStatus: 500, status: 200, body: RESEND_OK });
    const row = await outboxRow();

    // Attempt 1 fails and is requeued; the same message delivered again must not send a second request.
    const a = resendDeps("resend-dup");
    await sendQueuedEmail(a.deps, job(row.id, 1));
    await sendQueuedEmail(a.deps, job(row.id, 1));
    expect(await receivedBy("resend-dup")).toHaveLength(1);
    expect(a.sent).toEqual([{ job: job(row.id, 2), delaySeconds: 60 }]);
    expect(await rowOf(row.id)).toMatchObject({ status: "queued", attempts: 1, dueAt: NOW + 60 });

    // An attempt out of turn (attempt 3 while attempt 2 was never made) sends nothing either.
    await sendQueuedEmail(a.deps, job(row.id, 3));
    expect(await receivedBy("resend-dup")).toHaveLength(1);

    // Attempt 2 sends; a duplicate of it, or of attempt 1, afterwards sends nothing and changes nothing.
    const b = resendDeps("resend-dup", NOW + 60);
    await sendQueuedEmail(b.deps, job(row.id, 2));
    const sentRow = await rowOf(row.id);
    expect(sentRow).toMatchObject({ status: "sent", attempts: 2, sentAt: NOW + 60 });
    const c = resendDeps("resend-dup", NOW + 120);
    await sendQueuedEmail(c.deps, job(row.id, 2));
    await sendQueuedEmail(c.deps, job(row.id, 1));
    await sendQueuedEmail(c.deps, job(row.id, 3));
    expect(await receivedBy("resend-dup")).toHaveLength(2);
    expect(await rowOf(row.id)).toEqual(sentRow);
    expect([...b.sent, ...c.sent]).toEqual([]);
  });

  it("two copies of the same job delivered at the same moment send once", async () => {
    await programStub("resend-race", { status: 200, body: RESEND_OK, delayMs: 100 });
    const row = await outboxRow();
    const { deps } = resendDeps("resend-race");
    await Promise.all([sendQueuedEmail(deps, job(row.id, 1)), sendQueuedEmail(deps, job(row.id, 1)), sendQueuedEmail(deps, job(row.id, 1))]);
    expect(await receivedBy("resend-race")).toHaveLength(1);
    expect(await rowOf(row.id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("a job for a failed email, or for an email that does not exist, sends nothing", async () => {
    await programStub("resend-gone", { status: 200, body: RESEND_OK });
    const failed = await outboxRow({ status: "failed", attempts: 1, lastError: "HTTP 400: bad" });
    const { deps, sent } = resendDeps("resend-gone");
    await sendQueuedEmail(deps, job(failed.id, 2));
    await sendQueuedEmail(deps, job(2_000_000_000, 1));
    expect(await receivedBy("resend-gone")).toEqual([]);
    expect(await rowOf(failed.id)).toEqual(failed);
    expect(sent).toEqual([]);
  });
});

describe("a queue batch of email.send messages", () => {
  it("loses nothing when the provider fails for one message and another kind's handler throws", async () => {
    // The stub fails the first request it gets, which is the first message of the batch.
    await programStub("resend-batch", { failTimes: 1, failStatus: 502, status: 200, body: RESEND_OK });
    const rows = [await outboxRow({ to: "first@example.com" }), await outboxRow({ to: "second@example.com" }), await outboxRow({ to: "third@example.com" })];
    const [failing, b, c] = rows as [EmailRow, EmailRow, EmailRow];
    const { queue, sent } = recordingQueue();
    const handlers: Record<string, JobHandler> = {
      "email.send": (deps, e, message) => sendEmail({ ...deps, jobs: queue }, e, message),
      "test.downstream": async () => {
        throw new Error("downstream unavailable");
      },
    };
    const at = new Date();
    const batch = createMessageBatch<unknown>("ticketing-jobs", [
      { id: "mail-1", timestamp: at, attempts: 1, body: job(failing.id, 1) },
      { id: "other-1", timestamp: at, attempts: 1, body: { v: 1, kind: "test.downstream" } },
      { id: "mail-2", timestamp: at, attempts: 1, body: job(b.id, 1) },
      { id: "mail-3", timestamp: at, attempts: 1, body: job(c.id, 1) },
    ]);
    const retried = expectLogged("warn", /"msg":"job failed, will retry","kind":"test\.downstream"/);
    await consumeJobs(batch, resendEnv("resend-batch"), handlers);
    const result = await getQueueResult(batch, createExecutionContext());

    // The others are acked and sent; the throwing one goes back to the queue; the failed send is retried by a
    // new delayed message for its next attempt.
    expect(result.ackAll).toBe(false);
    expect(result.retryBatch.retry).toBe(false);
    expect([...result.explicitAcks].sort()).toEqual(["mail-1", "mail-2", "mail-3"]);
    expect(result.retryMessages).toEqual([{ msgId: "other-1" }]);
    expect(retried.lines.map((l) => JSON.parse(l))).toMatchObject([{ message_id: "other-1", error: "Error: downstream unavailable" }]);
    expect(sent).toEqual([{ job: job(failing.id, 2), delaySeconds: 60 }]);

    const got = await receivedBy("resend-batch");
    expect(got.map((r) => (parsed(r).to as string[])[0])).toEqual(["first@example.com", "second@example.com", "third@example.com"]);

    const after = await db
      .select()
      .from(emails)
      .where(
        inArray(
          emails.id,
          rows.map((r) => r.id),
        ),
      );
    const byId = new Map(after.map((r) => [r.id, r]));
    expect(byId.get(b.id)).toMatchObject({ status: "sent", attempts: 1 });
    expect(byId.get(c.id)).toMatchObject({ status: "sent", attempts: 1 });
    expect(byId.get(failing.id)).toMatchObject({ status: "queued", attempts: 1 });
    expect(byId.get(failing.id)!.lastError).toContain("502");
    for (const row of after) {
      const queuedForRetry = row.status === "queued" && sent.some((s) => (s.job as { emailId?: number }).emailId === row.id);
      expect(row.status === "sent" || queuedForRetry, `email ${row.id} is ${row.status}`).toBe(true);
    }

    // The retry message, delivered later, finishes the job: every row sent, each exactly once.
    const retry = createMessageBatch<unknown>("ticketing-jobs", [{ id: "mail-1-retry", timestamp: new Date(), attempts: 1, body: sent[0]!.job }]);
    await consumeJobs(retry, resendEnv("resend-batch"), handlers);
    expect((await getQueueResult(retry, createExecutionContext())).explicitAcks).toEqual(["mail-1-retry"]);
    expect(await rowOf(failing.id)).toMatchObject({ status: "sent", attempts: 2, lastError: "" });
    const recipients = (await receivedBy("resend-batch")).map((r) => (parsed(r).to as string[])[0]);
    expect(recipients.sort()).toEqual(["first@example.com", "first@example.com", "second@example.com", "third@example.com"]);
  });

  it("a malformed email.send message is logged and dropped (retrying cannot make it readable); the others are sent", async () => {
    await programStub("resend-malformed", { status: 200, body: RESEND_OK });
    const row = await outboxRow();
    const batch = createMessageBatch<unknown>("ticketing-jobs", [
      { id: "bad-mail", timestamp: new Date(), attempts: 1, body: { v: 1, kind: "email.send", emailId: "x", attempt: 1 } },
      { id: "good-mail", timestamp: new Date(), attempts: 1, body: job(row.id, 1) },
    ]);
    const { queue } = recordingQueue();
    await consumeJobs(batch, resendEnv("resend-malformed"), { "email.send": (deps, e, m) => sendEmail({ ...deps, jobs: queue }, e, m) });
    const result = await getQueueResult(batch, createExecutionContext());
    expect(result.explicitAcks.sort()).toEqual(["bad-mail", "good-mail"]);
    expect(result.retryMessages).toEqual([]);
    expect(await rowOf(row.id)).toMatchObject({ status: "sent", attempts: 1 });
    expect(await receivedBy("resend-malformed")).toHaveLength(1);
    const [entry] = await db.select().from(logs).where(like(logs.description, "%bad-mail%"));
    expect(entry).toMatchObject({ logType: "Queue" });
    expect(entry!.description).toContain('malformed "email.send"');
  });
});

describe("orderEmail: a customer's name in the message (decisions.md 14)", () => {
  const ORIGIN = "https://tickets.example";
  const BODY = '<p>Dear {%NAME%},</p><p><a href="{%NAME%}">a</a> <a href="%7B%25NAME%25%7D">b</a> <a href="%7b%25TICKETS%25%7d">c</a></p>';

  /** The new-order email of an order whose stored name is `name` (written directly, as rows from before the rule). */
  async function emailFor(name: string) {
    const event = await createOrderEvent({ email: { subject: "Your tickets\r\nfor {%NAME%}", body: BODY } });
    const type = await createOrderType(event.id, "Regular");
    const placed = await placeOrder(orderBody(event.id, [type.id], { [type.id]: 1 }));
    await db.update(orders).set({ name }).where(eq(orders.id, placed.id));
    const order = await db.select().from(orders).where(eq(orders.id, placed.id)).get();
    const deps = depsFromEnv(env, undefined, ORIGIN);
    return { mail: orderEmail(deps, order!, await getEvent(deps, event.id), "new-order", { toPersonalise: false, passes: [] }), uid: placed.uid as string };
  }

  it("links no name: href empty, plain or URL-escaped; the tickets link still filled", async () => {
    for (const name of ["javascript:alert(1)", "https://evil.example/login"]) {
      const { mail, uid } = await emailFor(name);
      expect(mail.body, name).toContain(`<p>Dear ${name},</p><p><a href="">a</a> <a href="">b</a> <a href="${ORIGIN}/ticketing/v1/tickets/${uid}">c</a></p>`);
      expect(mail.body, name).not.toMatch(/href="(javascript|https:\/\/evil)/);
    }
  });

  it("escapes a name with markup in the body", async () => {
    const { mail } = await emailFor("<b>x</b>");
    expect(mail.body).toContain("<p>Dear &lt;b&gt;x&lt;/b&gt;,</p>");
    expect(mail.body).not.toContain("<b>x</b>");
  });

  it("keeps the subject on one line, whatever the template and the stored name hold", async () => {
    const { mail } = await emailFor("Ann\r\nBcc: evil@x.com");
    expect(mail.subject).toBe("Your tickets for Ann Bcc: evil@x.com");
  });
});
