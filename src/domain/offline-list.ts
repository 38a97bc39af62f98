import { base64url, fromBase64url as bytesOfBase64url } from "../lib/base64url";

/**
 * The offline valid-ticket list (`GET /scans/tickets`, docs/scanning.md "Offline list"): what the Worker and the
 * event object share about walking it in pages and asking for what changed.
 *
 * The object numbers every change of the list (a ticket becoming valid, changing its order, type, type text or name,
 * or stopping being valid) with a change sequence that only grows. A walk reads the sequence's head at its first page
 * (its `snapshot`) and carries it in its cursor; that number is the walk's sync token. Whatever changes after the
 * first page has a higher number, so the next `since=<token>` brings it, even when the walk had already passed (or
 * had not yet reached) the ticket concerned.
 */

/** The most tickets one page may carry (`per_page`); also the default page size. */
export const LIST_MAX_PER_PAGE = 1000;

/**
 * A request without paging parameters gets the whole list in one answer, as the list always answered
 * (decisions.md 13), when the event has at most this many valid tickets (about 650 KB at 130 bytes a ticket).
 */
export const WHOLE_LIST_MAX = 5000;

/**
 * The ticket entries of one answer stay under this many bytes of JSON: a page of long names and seat texts ends
 * early (its `next` goes on), so that no answer reaches 1 MB.
 */
export const LIST_PAGE_BYTES = 900_000;

/**
 * One valid ticket as a door phone keeps it: what a door checks, never the email (decisions.md 14). `ticket_type` is
 * the text the ticket shows (with its seat); `ticket_type_id` is what a scan key's filter admits (docs/scanning.md
 * "Offline list").
 */
export interface ListedTicket {
  ticket_id: string;
  order_id: number;
  ticket_type: string;
  name: string;
  ticket_type_id: string;
}

/**
 * Where a walk stands. `full`: the valid tickets by ticket id, after `after`. `delta`: the changes numbered above
 * `since` up to the walk's `snapshot`, by change number, after `after`.
 */
export type ListCursor = { kind: "full"; snapshot: number; after: string } | { kind: "delta"; snapshot: number; since: number; after: number };

/** What one request asks of the object: the whole list (no paging parameters), or one page of a walk. */
export type ListQuery = { whole: true } | { whole: false; perPage: number; since: number | null; cursor: ListCursor | null };

const CURSOR_VERSION = 1;
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

const isSeq = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0 && n <= MAX_SEQ;

function toBase64url(text: string): string {
  return base64url(new TextEncoder().encode(text));
}

function fromBase64url(text: string): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytesOfBase64url(text));
  } catch {
    return null;
  }
}

/** The cursor as the `next` link carries it: opaque to clients (base64url of a small JSON array). */
export function encodeCursor(cursor: ListCursor): string {
  const parts = cursor.kind === "full" ? [CURSOR_VERSION, "f", cursor.snapshot, cursor.after] : [CURSOR_VERSION, "d", cursor.snapshot, cursor.since, cursor.after];
  return toBase64url(JSON.stringify(parts));
}

/** The cursor a `next` link carried, or null when the text is not one this service made (or is inconsistent). */
export function decodeCursor(text: string): ListCursor | null {
  const json = fromBase64url(text);
  if (json === null) return null;
  let parts: unknown;
  try {
    parts = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(parts) || parts[0] !== CURSOR_VERSION) return null;
  const [, kind, snapshot, a, b] = parts as unknown[];
  if (!isSeq(snapshot)) return null;
  if (kind === "f" && parts.length === 4 && typeof a === "string" && a.length <= 200) return { kind: "full", snapshot, after: a };
  if (kind === "d" && parts.length === 5 && isSeq(a) && isSeq(b) && a <= b && b <= snapshot) return { kind: "delta", snapshot, since: a, after: b };
  return null;
}

/** A sync token as answers give it (`sync_token`) and `since` takes it back: the change number, in decimal. */
export function formatSyncToken(seq: number): string {
  return String(seq);
}

/** The change number a `since` names, or null when it is not a sync token. */
export function parseSyncToken(text: string): number | null {
  if (!/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

/** The UTF-8 size of a string, as it goes on the wire. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
