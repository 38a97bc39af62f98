import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { PDFDict, PDFDocument, PDFName } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { sweep } from "../../../src/cron";
import { PART_REDRIVE_S, PART_TTL_S } from "../../../src/features/tickets/ticket-pdf-parts.service";
import { ticketPdf } from "../../../src/features/tickets/ticket-pdfs.service";
import { PART_SIZE } from "../../../src/pdf/ticket-parts";
import { depsFromEnv, type Deps } from "../../../src/platform/deps";
import type { JobQueue } from "../../../src/platform/job-queue";
import type { JobMessage } from "../../../src/platform/messages";
import { consumeJobs, jobHandlers } from "../../../src/queue";
import { call, expectError, expectJson } from "../../helpers/api";
import { createInputField } from "../../helpers/catalogue";
import { makePdf, upload } from "../../helpers/uploads";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * decisions.md 15 "No request renders without bound" (docs/tickets-pdf.md): `GET /tickets/<uid>` renders at most
 * PART_SIZE tickets itself; a larger order is rendered part by part by the queue into R2 (each message one part, or
 * the assembly of the whole), answering `202` with `Retry-After` and `{"status": "rendering", "ready", "parts"}`
 * until the whole PDF is there. The runtime may die between any two lines: a later download sends a lost message
 * again, a step resumes at the first missing part, and parts are keyed by what they show, so a part rendered before a
 * change is never stitched into a PDF after it. Storage is shared: every test makes its own events and orders.
 */

const FORMAT = ", seat %s%d";
const download = (uid: string) => call("GET", `/tickets/${uid}`, { key: null, auth: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const partsOf = (uid: string) => env.FILES.list({ prefix: `ticket-parts/${uid}/` }).then((l) => l.objects.map((o) => o.key).sort());

/** A seated event (each ticket's type line names its seat, so pages can be told apart) and an order of `count`. */
async function seatedOrder(count: number, extra: { name?: string } = {}) {
  const event = await createOrderEvent({ seats_needed: true, seats: { seats_config: `A:1-${count}`, seats_format: FORMAT, number_of_seats: 0, linked_event: 0 } });
  const type = await createOrderType(event.id, "Regular");
  const order = await placeOrder(orderBody(event.id, [type.id], { [type.id]: count }, extra));
  return { event, type, order };
}

/** The type line (with its seat) of each ticket, in the order the admin API lists them (ticket order). */
async function ticketLabels(orderId: number): Promise<string[]> {
  const body = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return body.tickets.map((t: { ticket_type: string }) => t.ticket_type);
}

async function expectRendering(res: Response, parts: number): Promise<number> {
  expect(res.status).toBe(202);
  const body = await res.json();
  expect(res.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  expect(body).toEqual({ status: "rendering", ready: expect.any(Number), parts });
  const { ready } = body as { ready: number };
  expect(ready).toBeGreaterThanOrEqual(0);
  expect(ready).toBeLessThanOrEqual(parts);
  return ready;
}

/** Downloads until the PDF comes (the real queue renders meanwhile); every answer before it is a well-formed 202. */
async function downloadWhenReady(uid: string, parts: number): Promise<{ bytes: Uint8Array; doc: PDFDocument; answers202: number[] }> {
  const answers202: number[] = [];
  const deadline = Date.now() + 150_000;
  for (;;) {
    const res = await download(uid);
    if (res.status === 200) {
      expect(res.headers.get("Content-Type")).toBe("application/pdf");
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { bytes, doc: await PDFDocument.load(bytes), answers202 };
    }
    answers202.push(await expectRendering(res, parts));
    if (Date.now() > deadline) throw new Error(`no PDF for ${uid} after 150 s: ${answers202.join(",")}`);
    await sleep(150);
  }
}

/** The type line drawn on each page (the line holding the seat). */
const pageLabels = (doc: PDFDocument) => doc.getPages().map((page) => readPage(page).lines.find((l) => l.text.includes(", seat "))?.text);

/** Deps whose queue messages are lost (recorded, never sent) and whose clock runs `offset` seconds ahead. */
function lostDeps(offset = 0): { deps: Deps; sent: JobMessage[] } {
  const sent: JobMessage[] = [];
  const jobs: JobQueue = {
    async send(job) {
      sent.push(job);
    },
    async sendAll(list) {
      sent.push(...list);
    },
  };
  const deps = depsFromEnv(env);
  return { deps: { ...deps, jobs, defer: () => {}, now: () => Math.floor(Date.now() / 1000) + offset }, sent };
}

/** Real deps (messages reach the real queue) with the clock `offset` seconds ahead. */
function laterDeps(offset: number): Deps {
  const deps = depsFromEnv(env);
  return { ...deps, now: () => Math.floor(Date.now() / 1000) + offset };
}

/** One message through the real consumer, its follow-up message lost (the runtime dies after the step). */
async function oneStep(job: JobMessage): Promise<void> {
  const batch = createMessageBatch<unknown>("ticketing-jobs", [{ id: `step-${Math.random()}`, timestamp: new Date(), attempts: 1, body: job }]);
  const lost = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;
  await consumeJobs(batch, { ...env, JOBS: lost }, jobHandlers);
  const result = await getQueueResult(batch, createExecutionContext());
  expect(result.explicitAcks).toHaveLength(1);
  expect(result.retryMessages).toEqual([]);
}

describe("GET /tickets/<uid> of more than one part (decisions.md 15)", () => {
  it("a 250-ticket order answers 202 with Retry-After and its progress, then the whole PDF: 250 pages in ticket order", { timeout: 180_000 }, async () => {
    const { order } = await seatedOrder(250);
    const labels = await ticketLabels(order.id);
    expect(labels).toHaveLength(250);
    expect(new Set(labels).size).toBe(250);

    const first = await download(order.uid);
    expect(await expectRendering(first, 3)).toBe(0);

    const { bytes, doc, answers202 } = await downloadWhenReady(order.uid, 3);
    // Progress only grows.
    expect(answers202).toEqual([...answers202].sort((a, b) => a - b));
    expect(doc.getPageCount()).toBe(250);
    expect(pageLabels(doc)).toEqual(labels);
    for (const i of [0, 99, 100, 249]) expect(readPage(doc.getPage(i)).lines.map((l) => l.text)).toContain(String(order.id));

    // Kept whole in the cache, the parts gone; the next download is the same document at once.
    expect(await partsOf(order.uid)).toEqual([]);
    const again = await download(order.uid);
    expect(again.status).toBe(200);
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
  });

  it(`answers up to ${PART_SIZE} tickets at once, as before; one more is rendered in parts`, { timeout: 60_000 }, async () => {
    const small = await seatedOrder(PART_SIZE);
    const res = await download(small.order.uid);
    expect(res.status).toBe(200);
    expect((await PDFDocument.load(new Uint8Array(await res.arrayBuffer()))).getPageCount()).toBe(PART_SIZE);

    const large = await seatedOrder(PART_SIZE + 1);
    const pending = await download(large.order.uid);
    await expectRendering(pending, 2);
  });

  it("a large order on a template keeps its page size, and the whole PDF holds one copy of the template", { timeout: 120_000 }, async () => {
    const template = await expectJson(
      upload("POST", "/admin/pdf-templates", { file: await makePdf(1, { size: [612, 792], text: "Letter template" }), fields: { title: "Letter" } }),
      201,
    );
    const event = await createOrderEvent();
    const type = await createOrderType(event.id, "Templated", { attachment_id: template.id });
    const order = await placeOrder(orderBody(event.id, [type.id], { [type.id]: PART_SIZE + 30 }));
    const { doc } = await downloadWhenReady(order.uid, 2);
    expect(doc.getPageCount()).toBe(PART_SIZE + 30);
    const forms = new Set(
      doc.getPages().map((page) => {
        expect([page.getWidth(), page.getHeight()]).toEqual([612, 792]);
        return String(page.node.Resources()!.lookup(PDFName.of("XObject"), PDFDict).get(PDFName.of("Tpl")));
      }),
    );
    expect(forms.size).toBe(1);
  });

  it("keeps the other answers: 409 while tickets need personalisation, 404 before the order is final; no part is rendered", async () => {
    const event = await createOrderEvent();
    await createInputField(event.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const type = await createOrderType(event.id, "Personal", { personalise: "Attendee" });
    const order = await placeOrder(orderBody(event.id, [type.id], { [type.id]: PART_SIZE + 50 }));
    await expectError(download(order.uid), 409, "tickets_not_personalised");

    const paid = await createOrderType(event.id, "Paid", { price: 10 });
    const open = await expectJson(
      call("POST", `/events/${event.id}/orders`, {
        auth: null,
        body: { name: "Ann Smith", email: "ann@example.com", tickets: [{ [type.id]: 0 }, { [paid.id]: PART_SIZE + 50 }] },
      }),
      201,
    );
    expect(open.payment_status).toBe("open");
    await expectError(download(open.uid), 404, "tickets_not_found");
    await sleep(300);
    expect([...(await partsOf(order.uid)), ...(await partsOf(open.uid))]).toEqual([]);
  });
});

describe("large downloads after a crash (docs/reliability.md)", () => {
  it(`a lost render message is sent again by a later download once nothing moved for ${PART_REDRIVE_S} s`, { timeout: 180_000 }, async () => {
    const { order } = await seatedOrder(150);
    const lost = lostDeps();
    expect(await ticketPdf(lost.deps, order.uid)).toMatchObject({ kind: "rendering", ready: 0, parts: 2 });
    expect(lost.sent).toEqual([expect.objectContaining({ kind: "pdf.render", uid: order.uid })]);

    // Within the window the first message may still be on its way: nothing is sent again.
    const soon = lostDeps(PART_REDRIVE_S - 5);
    expect(await ticketPdf(soon.deps, order.uid)).toMatchObject({ kind: "rendering", ready: 0, parts: 2 });
    expect(soon.sent).toEqual([]);

    // After it, a download sends it again (here through the real queue), and the PDF comes.
    expect(await ticketPdf(laterDeps(PART_REDRIVE_S + 1), order.uid)).toMatchObject({ kind: "rendering", ready: 0, parts: 2 });
    const { doc } = await downloadWhenReady(order.uid, 2);
    expect(doc.getPageCount()).toBe(150);
  });

  it("each message renders one part or assembles the whole; a step after a crash resumes at the first missing part", { timeout: 180_000 }, async () => {
    const { order } = await seatedOrder(250);
    const labels = await ticketLabels(order.id);
    const lost = lostDeps();
    await ticketPdf(lost.deps, order.uid);
    const job = lost.sent[0]!;

    await oneStep(job);
    const afterOne = await partsOf(order.uid);
    expect(afterOne.filter((k) => k.endsWith(".pdf"))).toHaveLength(1);
    const firstPart = afterOne.find((k) => k.endsWith("/0.pdf"))!;
    const firstEtag = (await env.FILES.head(firstPart))!.etag;

    // A download meanwhile sees one part of three ready, and (the chain having moved just now) sends nothing.
    const soon = lostDeps();
    expect(await ticketPdf(soon.deps, order.uid)).toMatchObject({ kind: "rendering", ready: 1, parts: 3 });
    expect(soon.sent).toEqual([]);

    // The same message again (a re-sent or duplicated one) renders the next part, not the first again.
    await oneStep(job);
    expect((await partsOf(order.uid)).filter((k) => k.endsWith(".pdf"))).toHaveLength(2);
    expect((await env.FILES.head(firstPart))!.etag).toBe(firstEtag);
    await oneStep(job);
    expect(await ticketPdf(lostDeps().deps, order.uid)).toMatchObject({ kind: "rendering", ready: 3, parts: 3 });

    // The fourth step assembles: the whole PDF is kept and the parts are gone; a fifth changes nothing.
    await oneStep(job);
    expect(await partsOf(order.uid)).toEqual([]);
    await oneStep(job);
    const res = await download(order.uid);
    expect(res.status).toBe(200);
    const doc = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    expect(pageLabels(doc)).toEqual(labels);
  });

  it("a part rendered before a change is never stitched into the PDF after it, and is swept away later", { timeout: 180_000 }, async () => {
    const { order } = await seatedOrder(150, { name: "Ada Lovelace" });
    const lost = lostDeps();
    await ticketPdf(lost.deps, order.uid);
    const staleJob = lost.sent[0]!;
    await oneStep(staleJob);
    const staleParts = await partsOf(order.uid);
    expect(staleParts.filter((k) => k.endsWith(".pdf"))).toHaveLength(1);

    // The name changes (the purge of the order's PDF is queued): the part made before it does not count.
    await expectJson(call("PUT", `/admin/orders/${order.id}`, { body: { name: "Grace Hopper" } }), 200);
    const res = await download(order.uid);
    expect(await expectRendering(res, 2)).toBe(0);

    const { doc } = await downloadWhenReady(order.uid, 2);
    expect(doc.getPageCount()).toBe(150);
    for (let i = 0; i < 150; i++) {
      const lines = readPage(doc.getPage(i)).lines.map((l) => l.text);
      expect(lines).toContain("Grace Hopper");
      expect(lines).not.toContain("Ada Lovelace");
    }

    // The stale message, arriving late, renders nothing and drops what it had made.
    await oneStep(staleJob);
    expect(await partsOf(order.uid)).toEqual([]);

    // Parts a crash left behind are swept once they are older than PART_TTL_S.
    const { order: other } = await seatedOrder(150);
    const otherLost = lostDeps();
    await ticketPdf(otherLost.deps, other.uid);
    await oneStep(otherLost.sent[0]!);
    expect(await partsOf(other.uid)).not.toEqual([]);
    const tenthMinute = Math.floor(Date.now() / 600_000) * 600_000;
    await sweep(lostDeps().deps, tenthMinute);
    expect(await partsOf(other.uid)).not.toEqual([]);
    await sweep(lostDeps(PART_TTL_S + 1).deps, tenthMinute);
    expect(await partsOf(other.uid)).toEqual([]);
  });
});
