import type { z } from "zod";
import { encodeCursor, formatSyncToken, LIST_MAX_PER_PAGE, type ListQuery } from "../../domain/offline-list";
import { ApiError, invalidParams } from "../../domain/errors";
import type { OfflineListAnswer } from "../../event-object/event.do";
import type { Deps } from "../../platform/deps";
import type { offlineListView, ValidTicketsQuery } from "./scans.schema";
import { ask, type ScanKeyUse } from "./ticket-scans.service";

/**
 * `GET /scans/tickets`, the offline list (decisions.md 13, 14; docs/scanning.md "Offline list"): read from the
 * event's object in one call, which also checks the scan key. The ETag names the event, the object's change counter
 * and the request (its address), so the object can tell "unchanged" from its counter alone: a `304` reads no ticket.
 */

/** Bumped when the answer's shape changes, so that no ETag of an older shape matches (v2: `ticket_type_id`). */
const FORMAT = "list-v2";

export type OfflineListResult = { kind: "not_modified"; etag: string } | { kind: "page"; etag: string; body: z.output<typeof offlineListView>; next: string | null };

/** FNV-1a, 32 bits, in hex: a short, stable tag of a request (not a secret, only a name). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The request's part of the ETag: its address with the query sorted (links in the body are absolute). */
function requestTag(url: URL): string {
  const params = [...url.searchParams.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return fnv1a(`${FORMAT}|${url.origin}${url.pathname}?${new URLSearchParams(params).toString()}`);
}

const etagOf = (eventId: number, head: number, tag: string) => `W/"${eventId}-${head}-${tag}"`;

/** The list versions the client's `If-None-Match` names for this event and this request (weak comparison). */
function versionsNamed(ifNoneMatch: string | undefined, eventId: number, tag: string): number[] {
  if (!ifNoneMatch) return [];
  const heads: number[] = [];
  for (const part of ifNoneMatch.split(",")) {
    const m = /^(?:W\/)?"(\d{1,15})-(\d{1,15})-([0-9a-f]{8})"$/.exec(part.trim());
    if (m && Number(m[1]) === eventId && m[3] === tag) heads.push(Number(m[2]));
  }
  return heads;
}

export async function offlineListFor(deps: Deps, use: ScanKeyUse, q: ValidTicketsQuery, url: string, ifNoneMatch: string | undefined): Promise<OfflineListResult> {
  const whole = q.per_page === undefined && q.cursor === undefined && q.since === undefined;
  const query: ListQuery = whole ? { whole: true } : { whole: false, perPage: q.per_page ?? LIST_MAX_PER_PAGE, since: q.since ?? null, cursor: q.cursor ?? null };
  const address = new URL(url);
  const tag = requestTag(address);
  const unless = versionsNamed(ifNoneMatch, use.eventId, tag);
  const { list } = await ask(deps, use, (stub, v) => stub.offlineList(use.key, v, query, unless) as Promise<OfflineListAnswer>);
  switch (list.kind) {
    case "not_modified":
      return { kind: "not_modified", etag: etagOf(use.eventId, list.head, tag) };
    case "too_large":
      throw new ApiError(
        400,
        "scan_list_too_large",
        `The list holds more than ${list.max} tickets, more than one answer carries: ask for it in pages with per_page (at most ${LIST_MAX_PER_PAGE}) and follow each page's next link.`,
      );
    case "bad_since":
      throw invalidParams({ since: "must be a sync_token from an earlier answer of this list (it is ahead of the list)" });
    case "bad_cursor":
      throw invalidParams({ cursor: "is not a cursor of this list (take it from a next link)" });
    case "page": {
      let next: string | null = null;
      if (list.next !== null) {
        const target = new URL(address);
        target.searchParams.set("cursor", encodeCursor(list.next));
        next = target.toString();
      }
      const body = {
        event_id: use.eventId,
        tickets: list.tickets,
        ...(list.revoked === null ? {} : { revoked: list.revoked.map((ticket_id) => ({ ticket_id })) }),
        sync_token: formatSyncToken(list.snapshot),
        _links: { self: [{ href: url }], ...(next === null ? {} : { next: [{ href: next }] }) },
      } satisfies z.output<typeof offlineListView>;
      return { kind: "page", etag: etagOf(use.eventId, list.head, tag), body, next };
    }
  }
}
