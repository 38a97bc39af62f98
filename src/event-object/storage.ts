/**
 * The event object's SQLite schema, in one place, as numbered migrations: the way the D1 schema is kept in
 * `migrations/` (numbered, named, applied in order, each once). The object applies them as it starts, inside
 * `blockConcurrencyWhile` (event.do.ts), before it answers anything.
 *
 * What ran is recorded in a table of the object's own storage, `_migrations` (number, name, when), as wrangler's
 * `d1_migrations` does for D1: any query shows which migrations an object has, and `deleteAll()` (an event retired)
 * forgets it with the tables, so the next start builds them again from migration 1. A table rather than
 * `PRAGMA user_version`: it names what ran, and it needs nothing of the SQL API beyond plain statements.
 *
 * A change of the schema is a new migration at the end of `MIGRATIONS`, never an edit of one that objects already
 * ran. The code that reads and writes the tables lives in the ledgers (stock-ledger.ts, scan-ledger.ts,
 * scan-outbox.ts, offline-list.ts, waiting-list.ts).
 */

interface Migration {
  number: number;
  name: string;
  statements: readonly string[];
}

/**
 * The offline list's trigger body (offline-list.ts): the next change number, noted against the ticket id. Delete then
 * insert, never a conflict clause: a trigger runs its statements under the conflict policy of the statement that
 * fired it (an upsert's is ABORT), whatever they say themselves.
 */
const bump = (id: string) => `
  UPDATE list_meta SET head = head + 1 WHERE id = 1;
  DELETE FROM list_changes WHERE ticket_id = ${id};
  INSERT INTO list_changes (ticket_id, seq) SELECT ${id}, head FROM list_meta WHERE id = 1;`;

/**
 * Migration 1 is the schema the objects had when it was numbered, every column included, in the order an object
 * made then had it. Every statement is written to find its table, index, trigger or row already there: an object
 * made before the numbering runs it too (after `addLaterColumns`), and keeps every row.
 */
const EVENT_OBJECT_SCHEMA: readonly string[] = [
  // The catalogue copy the object decides with (event-config.ts), one row.
  `CREATE TABLE IF NOT EXISTS config (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, body TEXT NOT NULL)`,

  // Stock (stock-ledger.ts): who holds or took which units, running totals, valid tickets, seats.
  // `learn_at`: when a final order's hold is next looked up in D1 (null for every other reservation).
  `CREATE TABLE IF NOT EXISTS reservations (
    uid TEXT PRIMARY KEY, type_units TEXT NOT NULL, event_units INTEGER NOT NULL,
    state TEXT NOT NULL, deadline INTEGER, learn_at INTEGER)`,
  `CREATE INDEX IF NOT EXISTS reservations_deadline ON reservations (deadline) WHERE deadline IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS totals (key TEXT PRIMARY KEY, units INTEGER NOT NULL)`,
  // `type_id` came after the first objects: theirs is '' until the tickets are synced again.
  `CREATE TABLE IF NOT EXISTS tickets (
    id TEXT PRIMARY KEY, uid TEXT NOT NULL, type_name TEXT NOT NULL,
    order_id INTEGER, name TEXT, email TEXT, type_id TEXT NOT NULL DEFAULT '')`,
  `CREATE INDEX IF NOT EXISTS tickets_uid ON tickets (uid)`,
  `CREATE INDEX IF NOT EXISTS reservations_learn_at ON reservations (learn_at) WHERE learn_at IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS seats (seat INTEGER PRIMARY KEY, uid TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS seats_uid ON seats (uid)`,

  // Scans (scan-ledger.ts), kept for good; `synced`: D1 holds the scan; `sent_at`, `sends`: the outbox's sends
  // (scan-outbox.ts).
  `CREATE TABLE IF NOT EXISTS scans (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, ticket_id TEXT NOT NULL, type_id TEXT NOT NULL, level INTEGER NOT NULL, at INTEGER NOT NULL,
    location TEXT NOT NULL, reloaded INTEGER NOT NULL DEFAULT 0, result TEXT NOT NULL, synced INTEGER NOT NULL DEFAULT 0,
    sent_at INTEGER, sends INTEGER NOT NULL DEFAULT 0)`,
  `CREATE INDEX IF NOT EXISTS scans_ticket ON scans (ticket_id, seq)`,
  `CREATE INDEX IF NOT EXISTS scans_unsynced ON scans (seq) WHERE synced = 0`,

  // The offline list's numbered changes (offline-list.ts; docs/scanning.md "Offline list").
  `CREATE TABLE IF NOT EXISTS list_changes (ticket_id TEXT PRIMARY KEY, seq INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS list_changes_seq ON list_changes (seq)`,
  `CREATE TABLE IF NOT EXISTS list_meta (id INTEGER PRIMARY KEY CHECK (id = 1), head INTEGER NOT NULL)`,
  // An object that held tickets before the list was numbered (no counter yet): its valid tickets are the first
  // changes. A new object has no tickets: its counter starts at 0.
  `INSERT INTO list_changes (ticket_id, seq)
    SELECT id, row_number() OVER (ORDER BY id) FROM tickets WHERE order_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM list_meta)`,
  `INSERT INTO list_meta (id, head) SELECT 1, (SELECT count(*) FROM list_changes) WHERE NOT EXISTS (SELECT 1 FROM list_meta)`,
  // A row inserted valid, or over a listed id (INSERT OR REPLACE deletes the old row without firing the delete
  // trigger): a change. A hold's ticket (no order yet) is no change until it becomes valid.
  `CREATE TRIGGER IF NOT EXISTS tickets_listed_insert_v1 AFTER INSERT ON tickets
    WHEN NEW.order_id IS NOT NULL OR EXISTS (SELECT 1 FROM list_changes WHERE ticket_id = NEW.id)
    BEGIN ${bump("NEW.id")} END`,
  // v1 of the update trigger did not number a change of the type id alone; objects made with it lose it here.
  `DROP TRIGGER IF EXISTS tickets_listed_update_v1`,
  // Becoming valid, stopping being valid, or a valid ticket's order, type, type text or name changing. The type id
  // alone changes when an object made before tickets carried it (`type_id` '') learns them again from D1.
  `CREATE TRIGGER IF NOT EXISTS tickets_listed_update_v2 AFTER UPDATE ON tickets
    WHEN (OLD.order_id IS NOT NULL OR NEW.order_id IS NOT NULL)
      AND (OLD.order_id IS NOT NEW.order_id OR OLD.type_id IS NOT NEW.type_id OR OLD.type_name IS NOT NEW.type_name OR OLD.name IS NOT NEW.name
        OR OLD.id IS NOT NEW.id)
    BEGIN ${bump("NEW.id")} END`,
  `CREATE TRIGGER IF NOT EXISTS tickets_listed_delete_v1 AFTER DELETE ON tickets
    WHEN OLD.order_id IS NOT NULL
    BEGIN ${bump("OLD.id")} END`,
];

/**
 * The waiting list (waiting-list.ts): one row per entry D1 sent, in the order they joined (D1's id). `synced` 0: D1
 * has not yet acknowledged the row's state; `sent_at`, `sends`: the outbox's sends, as for scans.
 */
const WAITING_LIST: readonly string[] = [
  `CREATE TABLE waiting (
    entry_id INTEGER PRIMARY KEY, type_id TEXT NOT NULL, units INTEGER NOT NULL, state TEXT NOT NULL,
    deadline INTEGER, order_uid TEXT, synced INTEGER NOT NULL DEFAULT 1, sent_at INTEGER, sends INTEGER NOT NULL DEFAULT 0)`,
  `CREATE INDEX waiting_line ON waiting (type_id, entry_id) WHERE state = 'waiting'`,
  `CREATE INDEX waiting_offers ON waiting (deadline) WHERE state = 'offered'`,
  `CREATE INDEX waiting_unsynced ON waiting (entry_id) WHERE synced = 0`,
];

/** Every migration, in order; numbers run 1, 2, 3 ... without gaps. */
const MIGRATIONS: readonly Migration[] = [
  { number: 1, name: "event_object", statements: EVENT_OBJECT_SCHEMA },
  { number: 2, name: "waiting_list", statements: WAITING_LIST },
];

/**
 * Columns the code before the numbering added in place (it checked `PRAGMA table_info` at every start): an object
 * made before one of them came may lack it. `CREATE TABLE IF NOT EXISTS` leaves an existing table as it is, so these
 * are added once, before migration 1, to an object that has no `_migrations` yet.
 */
const LATER_COLUMNS = [
  { table: "tickets", column: "type_id", definition: "TEXT NOT NULL DEFAULT ''" },
  { table: "reservations", column: "learn_at", definition: "INTEGER" },
  { table: "scans", column: "sent_at", definition: "INTEGER" },
  { table: "scans", column: "sends", definition: "INTEGER NOT NULL DEFAULT 0" },
] as const;

function addLaterColumns(sql: SqlStorage): void {
  for (const { table, column, definition } of LATER_COLUMNS) {
    const columns = sql
      .exec<{ name: string }>(`PRAGMA table_info(${table})`)
      .toArray()
      .map((c) => c.name);
    // No table at all: migration 1 makes it whole.
    if (columns.length > 0 && !columns.includes(column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
  }
}

function hasTable(sql: SqlStorage, name: string): boolean {
  return sql.exec<{ n: number }>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?`, name).one().n > 0;
}

/**
 * Brings the object's storage to the last migration, in one transaction (a start that dies half-way leaves the
 * storage as it was), and answers the numbers it applied. An object already there reads one row and changes nothing.
 */
export function migrateStorage(storage: DurableObjectStorage, now: number = Date.now()): number[] {
  const sql = storage.sql;
  return storage.transactionSync(() => {
    if (!hasTable(sql, "_migrations")) {
      sql.exec(`CREATE TABLE _migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
      addLaterColumns(sql);
    }
    const last = sql.exec<{ n: number | null }>(`SELECT max(number) AS n FROM _migrations`).one().n ?? 0;
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.number <= last) continue;
      for (const statement of migration.statements) sql.exec(statement);
      sql.exec(`INSERT INTO _migrations (number, name, applied_at) VALUES (?, ?, ?)`, migration.number, migration.name, now);
      applied.push(migration.number);
    }
    return applied;
  });
}
