import type { Deps } from "./deps";
import { buildJob } from "./messages";

/**
 * Where an order's PDF is cached: under its uid alone, so a cached download is one R2 read with no D1 query
 * (decisions.md 13). Purges find the uids of an event's orders in D1.
 */
export function ticketPdfKey(uid: string): string {
  return `tickets/${uid}.pdf`;
}

/**
 * Where the parts of a large download are kept while the queue renders them (decisions.md 15), under the fingerprint
 * of what they show: a change to the order, its tickets, events, types, fields or templates makes a new fingerprint,
 * so a part rendered before the change (and the purge that follows it) is never stitched into a PDF after it.
 */
export const TICKET_PARTS_PREFIX = "ticket-parts/";

export function ticketPartsPrefix(uid: string, fingerprint: string): string {
  return `${TICKET_PARTS_PREFIX}${uid}/${fingerprint}/`;
}

/** Part `index` (0-based) of the download, under its fingerprint. */
export function ticketPartKey(uid: string, fingerprint: string, index: number): string {
  return `${ticketPartsPrefix(uid, fingerprint)}${index}.pdf`;
}

/** Anything these orders' PDFs show changed: a queued job deletes the cached copies (the next download renders again). */
export async function purgeOrderPdfs(deps: Deps, uids: readonly string[]): Promise<void> {
  for (let i = 0; i < uids.length; i += 1000) await deps.jobs.send(buildJob("pdf.purge", { uids: uids.slice(i, i + 1000) }));
}

/** Something every PDF of these events shows changed (name, date, types, layout, template, fields). */
export async function purgeEventPdfs(deps: Deps, eventIds: readonly number[]): Promise<void> {
  for (let i = 0; i < eventIds.length; i += 100) await deps.jobs.send(buildJob("pdf.purge", { eventIds: eventIds.slice(i, i + 100) }));
}
