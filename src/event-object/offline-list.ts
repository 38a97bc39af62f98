import { LIST_PAGE_BYTES, type ListCursor, type ListedTicket, type ListQuery, utf8Length, WHOLE_LIST_MAX } from "../domain/offline-list";

/**
 * The offline list as the event object keeps it (`GET /scans/tickets`; docs/scanning.md "Offline list"). The list is
 * the `tickets` table's valid rows (an order reached D1: `order_id` set). Triggers on that table (storage.ts, with
 * every table of the object) number every change of what the list shows (a ticket becoming valid, its order, type,
 * type text or name changing, a ticket no longer valid) from one counter, `list_meta.head`, and note the number
 * against the ticket id in `list_changes` (one row per id ever listed; a ticket no longer valid keeps its row, which
 * is how a delta says it was revoked). The triggers see every write, whichever ledger function makes it, and none is
 * on the scan path: scans never write `tickets`.
 *
 * Reads are indexed and bounded: a page of the whole list walks the `tickets` primary key after its cursor, a delta
 * walks `list_changes` by change number; neither loads the list. The counter alone answers "has anything changed"
 * (the ETag), without touching a row of the list.
 */

/** The change counter: the number of the latest change of the list (0 before any). */
function listHead(sql: SqlStorage): number {
  return sql.exec<{ head: number }>(`SELECT head FROM list_meta WHERE id = 1`).one().head;
}

export type ListOutcome =
  | { kind: "not_modified"; head: number }
  | {
      kind: "page";
      head: number;
      /** The walk's snapshot of the counter: its sync token. */
      snapshot: number;
      tickets: ListedTicket[];
      /** Tickets no longer valid (a delta only). */
      revoked: string[] | null;
      next: ListCursor | null;
    }
  | { kind: "too_large"; max: number }
  | { kind: "bad_since"; head: number }
  | { kind: "bad_cursor" };

type Row = { id: string; order_id: number | null; type_id: string | null; type_name: string | null; name: string | null };

const listed = (r: Row): ListedTicket => ({
  ticket_id: r.id,
  order_id: r.order_id!,
  ticket_type: r.type_name ?? "",
  name: r.name ?? "",
  ticket_type_id: r.type_id ?? "",
});

/** The bytes an entry adds to the answer (its JSON and a comma). */
const entryBytes = (entry: unknown) => utf8Length(JSON.stringify(entry)) + 1;

/** Valid tickets after `after` by ticket id, at most `limit` (the primary key's order: no sort, no scan). */
function validAfter(sql: SqlStorage, after: string, limit: number): Row[] {
  return sql.exec<Row>(`SELECT id, order_id, type_id, type_name, name FROM tickets WHERE id > ? AND order_id IS NOT NULL ORDER BY id LIMIT ?`, after, limit).toArray();
}

/** Changes numbered in (`after`, `upTo`], oldest first, with the ticket as it is now (none: no longer here). */
function changesAfter(sql: SqlStorage, after: number, upTo: number, limit: number): (Row & { seq: number })[] {
  return sql
    .exec<Row & { seq: number; ticket_id: string }>(
      `SELECT c.ticket_id AS id, c.seq, t.order_id, t.type_id, t.type_name, t.name FROM list_changes AS c LEFT JOIN tickets AS t ON t.id = c.ticket_id
       WHERE c.seq > ? AND c.seq <= ? ORDER BY c.seq LIMIT ?`,
      after,
      upTo,
      limit,
    )
    .toArray();
}

/**
 * One answer of the list. `unlessHeads`: the counter values the client's ETags name; when the counter is still one
 * of them nothing has changed and nothing else is read. A walk's first page takes the counter as its snapshot; its
 * cursor carries it on, so every page of a walk answers the same sync token.
 */
export function readList(sql: SqlStorage, query: ListQuery, unlessHeads: readonly number[]): ListOutcome {
  const head = listHead(sql);
  if (unlessHeads.includes(head)) return { kind: "not_modified", head };

  if (query.whole) {
    const rows = validAfter(sql, "", WHOLE_LIST_MAX + 1);
    const tickets = rows.map(listed);
    const bytes = tickets.reduce((n, t) => n + entryBytes(t), 0);
    if (rows.length > WHOLE_LIST_MAX || bytes > LIST_PAGE_BYTES) return { kind: "too_large", max: WHOLE_LIST_MAX };
    return { kind: "page", head, snapshot: head, tickets, revoked: null, next: null };
  }

  const { cursor, perPage, since } = query;
  if (cursor !== null && cursor.snapshot > head) return { kind: "bad_cursor" };
  if (since !== null && since > head) return { kind: "bad_since", head };
  const snapshot = cursor?.snapshot ?? head;
  const tickets: ListedTicket[] = [];
  const revoked: string[] = [];
  let bytes = 0;
  /** Counts an entry in when the page has room for it (the first always: one entry is far under the budget). */
  const fits = (entry: unknown) => {
    const size = entryBytes(entry);
    if (tickets.length + revoked.length > 0 && bytes + size > LIST_PAGE_BYTES) return false;
    bytes += size;
    return true;
  };

  if (since === null) {
    const after = cursor?.kind === "full" ? cursor.after : "";
    const rows = validAfter(sql, after, perPage + 1);
    let last: string | null = null;
    for (const row of rows.slice(0, perPage)) {
      const entry = listed(row);
      if (!fits(entry)) break;
      tickets.push(entry);
      last = row.id;
    }
    const more = tickets.length < rows.length;
    return { kind: "page", head, snapshot, tickets, revoked: null, next: more && last !== null ? { kind: "full", snapshot, after: last } : null };
  }

  const after = cursor?.kind === "delta" ? cursor.after : since;
  const rows = changesAfter(sql, after, snapshot, perPage + 1);
  let last: number | null = null;
  for (const row of rows.slice(0, perPage)) {
    if (row.order_id !== null) {
      const entry = listed(row);
      if (!fits(entry)) break;
      tickets.push(entry);
    } else {
      if (!fits({ ticket_id: row.id })) break;
      revoked.push(row.id);
    }
    last = row.seq;
  }
  const more = tickets.length + revoked.length < rows.length;
  return { kind: "page", head, snapshot, tickets, revoked, next: more && last !== null ? { kind: "delta", snapshot, since, after: last } : null };
}
