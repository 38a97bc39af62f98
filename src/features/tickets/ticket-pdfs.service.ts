import { asc, sql } from "drizzle-orm";
import { orders } from "../../db/schema";
import { PART_SIZE } from "../../pdf/ticket-parts";
import type { Deps } from "../../platform/deps";
import { buildJob } from "../../platform/messages";
import { orderByUid } from "./personalisation.service";
import { isListenedTo } from "../messaging/webhook-deliveries.service";
import { ticketPdfKey } from "../../platform/pdf-cache";
import { downloadProblem, keepPdf, pagesInOrder, pdfDisposition, readInputs, renderPages } from "./ticket-pdf-render.service";
import { renderInParts, type Rendering } from "./ticket-pdf-parts.service";
import type { OrderRow } from "../../db/rows";

export interface TicketPdf {
  kind: "pdf";
  body: ReadableStream | Uint8Array;
  contentDisposition: string;
  cached: boolean;
}

/**
 * `GET /tickets/<uid>` (decisions.md 7, 13 and 15): the order's tickets as one PDF. A cached copy exists only once
 * every ticket is personalised, so its presence means the download is allowed: it is answered from R2 without asking
 * D1. Otherwise `404` without tickets, `409 tickets_not_personalised` until every ticket that needs it is
 * personalised; else an order of at most PART_SIZE tickets is rendered and kept, and a larger one is rendered in parts
 * by the queue (ticket-pdf-parts.service.ts), answered as `rendering` until its PDF is kept. `tickets.downloaded`
 * fires after a PDF is answered.
 */
export async function ticketPdf(deps: Deps, uid: string): Promise<TicketPdf | Rendering> {
  const hit = await deps.files.get(ticketPdfKey(uid));
  if (hit) {
    deps.defer(() => queueDownloaded(deps, uid));
    return { kind: "pdf", body: hit.body, contentDisposition: hit.contentDisposition ?? pdfDisposition(0), cached: true };
  }
  const order = await orderByUid(deps, uid);
  const inputs = await readInputs(deps, order);
  const problem = await downloadProblem(deps, inputs);
  if (problem || !inputs) throw problem;
  if (inputs.tickets.length > PART_SIZE) return renderInParts(deps, inputs);
  const bytes = await renderPages(deps, inputs, pagesInOrder(inputs));
  await keepPdf(deps, inputs, bytes);
  deps.defer(() => queueDownloaded(deps, uid));
  return { kind: "pdf", body: bytes, contentDisposition: pdfDisposition(order.id), cached: false };
}

/**
 * For the order page (decisions.md 15 "The box office"): the render of an order too large for one request, started
 * now as a download would start it (renderInParts), with its progress; null when a download answers at once (the PDF
 * is kept, the order is small) or not at all (downloadProblem). Fires no `tickets.downloaded`: nothing is downloaded.
 */
export async function downloadPreparing(deps: Deps, order: OrderRow): Promise<Rendering | null> {
  if (await deps.files.has(ticketPdfKey(order.uid))) return null;
  const inputs = await readInputs(deps, order);
  if (!inputs || inputs.tickets.length <= PART_SIZE || (await downloadProblem(deps, inputs))) return null;
  return renderInParts(deps, inputs);
}

/**
 * The download's only cost beyond R2: after the answer, one queue message, whose consumer does the rest, and only
 * while some webhook listens to `tickets.downloaded`.
 */
async function queueDownloaded(deps: Deps, uid: string): Promise<void> {
  if (await isListenedTo(deps, "tickets.downloaded")) await deps.jobs.send(buildJob("tickets.downloaded", { uid, at: deps.now() }));
}

/** The `pdf.purge` job: deletes the cached PDFs of the given orders and of every order with tickets at the events. */
export async function purgeTicketPdfs(deps: Deps, job: { uids: readonly string[]; eventIds: readonly number[] }): Promise<void> {
  await deps.files.delete(job.uids.map(ticketPdfKey));
  if (job.eventIds.length === 0) return;
  const ids = JSON.stringify(job.eventIds);
  let after = 0;
  for (;;) {
    // Orders of the events, and orders elsewhere holding tickets for them (a passe-partout's children), by id pages.
    const page = await deps.db
      .select({ id: orders.id, uid: orders.uid })
      .from(orders)
      .where(
        sql`${orders.id} > ${after} AND (${orders.eventId} IN (SELECT value FROM json_each(${ids}))
          OR ${orders.id} IN (SELECT order_id FROM tickets WHERE event_id IN (SELECT value FROM json_each(${ids}))))`,
      )
      .orderBy(asc(orders.id))
      .limit(1000);
    if (page.length === 0) return;
    await deps.files.delete(page.map((o) => ticketPdfKey(o.uid)));
    after = page[page.length - 1]!.id;
  }
}
