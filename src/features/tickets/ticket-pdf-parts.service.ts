import { assembleParts } from "../../pdf/merge";
import { partCount, partPages } from "../../pdf/ticket-parts";
import type { Deps } from "../../platform/deps";
import { LOST_MESSAGE_S } from "../../platform/job-queue";
import { buildJob, type PdfRenderJob } from "../../platform/messages";
import type { StoredEntry } from "../../platform/file-store";
import { TICKET_PARTS_PREFIX, ticketPartKey, ticketPartsPrefix, ticketPdfKey } from "../../platform/pdf-cache";
import { orderByUid } from "./personalisation.service";
import { downloadProblem, inputsFingerprint, keepPdf, pagesInOrder, readInputs, renderPages, type TicketPdfInputs } from "./ticket-pdf-render.service";

/**
 * A download of more tickets than one request renders (decisions.md 15 "No request renders without bound"): the
 * queue renders it part by part into R2 (`pdf.render` messages, each one bounded step: render the first missing part,
 * or assemble all parts into the cached PDF), while `GET /tickets/<uid>` answers `202` with the progress.
 *
 * Crash safety (docs/reliability.md): nothing in D1 records a render, since nothing is owed until someone downloads;
 * the download that finds the work stalled is the re-drive. A step that dies before sending the next message leaves
 * its part in R2, and the next step (sent again by a later download) resumes at the first missing part. Parts are
 * kept under the fingerprint of what they show (platform/pdf-cache.ts): a change makes a new fingerprint, so a part
 * rendered before it (before its purge) is never stitched into the PDF after it; those left behind are swept.
 */

/** A download re-sends the next step when nothing under the fingerprint was written for this long (a lost message). */
export const PART_REDRIVE_S = LOST_MESSAGE_S;
/** Parts older than this (a render abandoned by a change or a crash) are swept by the cron's retention. */
export const PART_TTL_S = 3600;
/** The `Retry-After` of the `202`: a part renders in about a second (docs/tickets-pdf.md). */
const RENDERING_RETRY_AFTER_S = 3;

export interface Rendering {
  kind: "rendering";
  /** Parts rendered so far. */
  ready: number;
  parts: number;
  retryAfter: number;
}

const partIndex = (key: string) => /\/(\d+)\.pdf$/.exec(key)?.[1];

/** The part numbers present among `entries` (of one fingerprint). */
function readyParts(entries: readonly StoredEntry[], parts: number): Set<number> {
  const ready = new Set<number>();
  for (const e of entries) {
    const index = partIndex(e.key);
    if (index !== undefined && Number(index) < parts) ready.add(Number(index));
  }
  return ready;
}

/**
 * `GET /tickets/<uid>` of an order too large to render at once: its progress, after sending the next step when none
 * is under way (nothing written under the fingerprint yet, or nothing for PART_REDRIVE_S). A marker written first
 * keeps downloads that poll meanwhile from sending it again.
 */
export async function renderInParts(deps: Deps, inputs: TicketPdfInputs): Promise<Rendering> {
  const { uid } = inputs.order;
  const fingerprint = await inputsFingerprint(deps, inputs);
  const parts = partCount(inputs.tickets.length);
  const entries = await deps.files.entries(ticketPartsPrefix(uid, fingerprint));
  const ready = readyParts(entries, parts).size;
  const latest = Math.max(0, ...entries.map((e) => e.uploaded));
  if (entries.length === 0 || deps.now() - latest >= PART_REDRIVE_S) {
    await deps.files.put(`${ticketPartsPrefix(uid, fingerprint)}requested`, "", "text/plain");
    await deps.jobs.send(buildJob("pdf.render", { uid, fingerprint }));
  }
  return { kind: "rendering", ready, parts, retryAfter: RENDERING_RETRY_AFTER_S };
}

async function dropParts(deps: Deps, uid: string, fingerprint: string): Promise<void> {
  await deps.files.delete(await deps.files.list(ticketPartsPrefix(uid, fingerprint)));
}

/**
 * One `pdf.render` step: nothing more when the PDF is already kept; when the order changed since the job's
 * fingerprint (or may no longer be downloaded), its parts are dropped and nothing more is done (the next download
 * starts over); else the first missing part is rendered and the next step sent, or, every part being there, they are
 * assembled into the cached PDF (kept as a rendered download is: not when the order changed meanwhile) and dropped.
 */
export async function renderNextPart(deps: Deps, job: PdfRenderJob): Promise<void> {
  // Kept already: this step is a duplicate (a re-sent message), or of a render a change abandoned; its parts go.
  if (await deps.files.has(ticketPdfKey(job.uid))) return dropParts(deps, job.uid, job.fingerprint);
  const order = await orderByUid(deps, job.uid).catch(() => null);
  const inputs = order ? await readInputs(deps, order) : null;
  if (!inputs || (await downloadProblem(deps, inputs)) || (await inputsFingerprint(deps, inputs)) !== job.fingerprint) {
    await dropParts(deps, job.uid, job.fingerprint);
    return;
  }
  const parts = partCount(inputs.tickets.length);
  const ready = readyParts(await deps.files.entries(ticketPartsPrefix(job.uid, job.fingerprint)), parts);
  const missing = Array.from({ length: parts }, (_, i) => i).find((i) => !ready.has(i));
  if (missing !== undefined) {
    const bytes = await renderPages(deps, inputs, partPages(pagesInOrder(inputs), missing));
    await deps.files.put(ticketPartKey(job.uid, job.fingerprint, missing), bytes, "application/pdf");
    await deps.jobs.send(buildJob("pdf.render", { uid: job.uid, fingerprint: job.fingerprint }));
    return;
  }
  const whole = await assembleParts(parts, async (index) => {
    const bytes = await deps.files.getBytes(ticketPartKey(job.uid, job.fingerprint, index));
    // Gone since the listing (dropped by a step that saw a change): the retry renders it again, or sees the change.
    if (!bytes) throw new Error(`part ${index} of the tickets PDF went missing while it was assembled`);
    return bytes;
  });
  await keepPdf(deps, inputs, whole);
  await dropParts(deps, job.uid, job.fingerprint);
}

/** The cron's retention: parts older than PART_TTL_S, left by a render that a change or a crash abandoned. */
export async function purgeStaleTicketParts(deps: Deps): Promise<number> {
  const stale = (await deps.files.entries(TICKET_PARTS_PREFIX)).filter((e) => deps.now() - e.uploaded > PART_TTL_S).map((e) => e.key);
  await deps.files.delete(stale);
  return stale.length;
}
