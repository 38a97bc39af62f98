import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { EventObject } from "../../src/event-object/event.do";
import { migrateStorage } from "../../src/event-object/storage";
import { eventObject } from "../../src/platform/event-object.client";

/**
 * The event object's schema as numbered migrations (storage.ts): a new object, an object made by the code before
 * the numbering (tables made at every start, columns added in place), and a second run all end in one schema.
 */

/** An event id no other test uses: each test works on an object of its own. */
const freshObject = () => eventObject(env, 1_500_000_000 + Math.floor(Math.random() * 500_000_000));

type Sql = SqlStorage;

/** The object's schema: every table's columns (name, type, not null, default, key), its indexes and triggers. */
function schemaOf(sql: Sql) {
  const objects = sql
    .exec<{ type: string; name: string; tbl_name: string; sql: string | null }>(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE substr(name, 1, 7) <> 'sqlite_' AND substr(name, 1, 4) <> '_cf_' ORDER BY type, name`,
    )
    .toArray();
  const tables = objects.filter((o) => o.type === "table").map((o) => o.name);
  return {
    tables: Object.fromEntries(
      tables.map((t) => [
        t,
        sql
          .exec(`PRAGMA table_info(${t})`)
          .toArray()
          .map(({ cid, name, type, notnull, dflt_value, pk }) => ({ cid, name, type, notnull, dflt_value, pk })),
      ]),
    ),
    indexes: objects.filter((o) => o.type === "index").map(({ name, tbl_name, sql }) => ({ name, tbl_name, sql })),
    triggers: objects.filter((o) => o.type === "trigger").map(({ name, sql }) => ({ name, sql })),
  };
}

/** Every row of every table of the object (the bookkeeping included), in storage order. */
function rowsOf(sql: Sql): Record<string, unknown[]> {
  const tables = sql
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' AND substr(name, 1, 4) <> '_cf_' ORDER BY name`)
    .toArray()
    .map((r) => r.name);
  return Object.fromEntries(tables.map((t) => [t, sql.exec(`SELECT * FROM ${t} ORDER BY rowid`).toArray()]));
}

/** Empties the object's storage, as a new object's is before its first start. */
async function emptied(state: DurableObjectState): Promise<Sql> {
  await state.storage.deleteAll();
  return state.storage.sql;
}

/**
 * The storage of an object made by the first code that kept one: its tables as created then (no `tickets.type_id`,
 * `reservations.learn_at`, `scans.sent_at`/`sends`, no offline list), no `_migrations`, and rows in each.
 */
function buildFirstShape(sql: Sql): void {
  sql.exec(`CREATE TABLE config (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, body TEXT NOT NULL)`);
  sql.exec(`CREATE TABLE reservations (
    uid TEXT PRIMARY KEY, type_units TEXT NOT NULL, event_units INTEGER NOT NULL,
    state TEXT NOT NULL, deadline INTEGER)`);
  sql.exec(`CREATE INDEX reservations_deadline ON reservations (deadline) WHERE deadline IS NOT NULL`);
  sql.exec(`CREATE TABLE totals (key TEXT PRIMARY KEY, units INTEGER NOT NULL)`);
  sql.exec(`CREATE TABLE tickets (
    id TEXT PRIMARY KEY, uid TEXT NOT NULL, type_name TEXT NOT NULL,
    order_id INTEGER, name TEXT, email TEXT)`);
  sql.exec(`CREATE INDEX tickets_uid ON tickets (uid)`);
  sql.exec(`CREATE TABLE seats (seat INTEGER PRIMARY KEY, uid TEXT NOT NULL)`);
  sql.exec(`CREATE INDEX seats_uid ON seats (uid)`);
  sql.exec(`CREATE TABLE scans (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, ticket_id TEXT NOT NULL, type_id TEXT NOT NULL, level INTEGER NOT NULL, at INTEGER NOT NULL,
    location TEXT NOT NULL, reloaded INTEGER NOT NULL DEFAULT 0, result TEXT NOT NULL, synced INTEGER NOT NULL DEFAULT 0)`);
  sql.exec(`CREATE INDEX scans_ticket ON scans (ticket_id, seq)`);
  sql.exec(`CREATE INDEX scans_unsynced ON scans (seq) WHERE synced = 0`);

  sql.exec(`INSERT INTO config (id, version, body) VALUES (1, 3, '{"version":3}')`);
  sql.exec(`INSERT INTO reservations VALUES ('uid-taken', '{"t1":2}', 2, 'taken', NULL), ('uid-held', '{"t1":1}', 1, 'held', 1700000000000)`);
  sql.exec(`INSERT INTO totals VALUES ('event', 3), ('type:t1', 3)`);
  sql.exec(`INSERT INTO tickets VALUES ('TICKETB', 'uid-taken', 'Regular', 7, 'Ann', 'ann@example.com'),
    ('TICKETA', 'uid-taken', 'Regular', 7, 'Ann', 'ann@example.com'), ('TICKETC', 'uid-held', 'Regular', NULL, NULL, NULL)`);
  sql.exec(`INSERT INTO seats VALUES (0, 'uid-taken'), (1, 'uid-taken')`);
  sql.exec(`INSERT INTO scans (ticket_id, type_id, level, at, location, result, synced) VALUES
    ('TICKETA', 't1', 1, 1700000001000, 'Door', '{"status":true}', 1), ('TICKETB', 't1', 1, 1700000002000, 'Door', '{"status":true}', 0)`);
}

describe("the event object's storage (numbered migrations)", () => {
  it("a new object has every table of every migration and a _migrations row for each", async () => {
    const recorded = await runInDurableObject(freshObject(), (_i: EventObject, state) =>
      state.storage.sql.exec<{ number: number; name: string }>(`SELECT number, name FROM _migrations ORDER BY number`).toArray(),
    );
    expect(recorded).toEqual([
      { number: 1, name: "event_object" },
      { number: 2, name: "waiting_list" },
    ]);
  });

  it("an object made before the numbering is brought to the new schema once, every row kept", async () => {
    const { fresh, migrated, applied, rows } = await runInDurableObject(freshObject(), async (_i: EventObject, state) => {
      const fresh = schemaOf(state.storage.sql);
      const sql = await emptied(state);
      buildFirstShape(sql);
      const applied = migrateStorage(state.storage, 1_700_000_009_000);
      return { fresh, migrated: schemaOf(sql), applied, rows: rowsOf(sql) };
    });
    expect(applied).toEqual([1, 2]);
    // The same columns, in the same order, the same indexes and triggers as an object made new.
    expect(migrated).toStrictEqual(fresh);
    expect(rows).toStrictEqual({
      _migrations: [
        { number: 1, name: "event_object", applied_at: 1_700_000_009_000 },
        { number: 2, name: "waiting_list", applied_at: 1_700_000_009_000 },
      ],
      config: [{ id: 1, version: 3, body: '{"version":3}' }],
      reservations: [
        { uid: "uid-taken", type_units: '{"t1":2}', event_units: 2, state: "taken", deadline: null, learn_at: null },
        { uid: "uid-held", type_units: '{"t1":1}', event_units: 1, state: "held", deadline: 1_700_000_000_000, learn_at: null },
      ],
      totals: [
        { key: "event", units: 3 },
        { key: "type:t1", units: 3 },
      ],
      // The type id was not kept then: '' until the tickets are synced again.
      tickets: [
        { id: "TICKETB", uid: "uid-taken", type_name: "Regular", order_id: 7, name: "Ann", email: "ann@example.com", type_id: "" },
        { id: "TICKETA", uid: "uid-taken", type_name: "Regular", order_id: 7, name: "Ann", email: "ann@example.com", type_id: "" },
        { id: "TICKETC", uid: "uid-held", type_name: "Regular", order_id: null, name: null, email: null, type_id: "" },
      ],
      seats: [
        { seat: 0, uid: "uid-taken" },
        { seat: 1, uid: "uid-taken" },
      ],
      // Scans from before the outbox: the synced one stays synced, the other is due to be sent.
      scans: [
        {
          seq: 1,
          ticket_id: "TICKETA",
          type_id: "t1",
          level: 1,
          at: 1_700_000_001_000,
          location: "Door",
          reloaded: 0,
          result: '{"status":true}',
          synced: 1,
          sent_at: null,
          sends: 0,
        },
        {
          seq: 2,
          ticket_id: "TICKETB",
          type_id: "t1",
          level: 1,
          at: 1_700_000_002_000,
          location: "Door",
          reloaded: 0,
          result: '{"status":true}',
          synced: 0,
          sent_at: null,
          sends: 0,
        },
      ],
      // The valid tickets (with an order) are the list's first changes, by ticket id; the held one is not listed.
      list_changes: [
        { ticket_id: "TICKETA", seq: 1 },
        { ticket_id: "TICKETB", seq: 2 },
      ],
      list_meta: [{ id: 1, head: 2 }],
      // Migration 2: an empty waiting list.
      waiting: [],
    });
  });

  it("an object made by the code just before the numbering keeps its list's counter and changes (no second numbering)", async () => {
    const { before, after, applied, schemaBefore, schemaAfter } = await runInDurableObject(freshObject(), (_i: EventObject, state) => {
      const sql = state.storage.sql;
      // That code made exactly migration 1's schema, without the bookkeeping (and without the later waiting list).
      sql.exec(`DROP TABLE _migrations`);
      sql.exec(`DROP TABLE waiting`);
      sql.exec(`INSERT INTO tickets (id, uid, type_name, order_id, name, email, type_id) VALUES ('TICKETX', 'uid-x', 'Regular', 9, 'Xia', 'x@example.com', 't1')`);
      sql.exec(`UPDATE tickets SET name = 'Xia Renamed' WHERE id = 'TICKETX'`);
      const schemaBefore = schemaOf(sql);
      const before = rowsOf(sql);
      const applied = migrateStorage(state.storage, 1_700_000_009_000);
      const after = rowsOf(sql);
      delete after._migrations;
      delete after.waiting;
      return { before, after, applied, schemaBefore, schemaAfter: schemaOf(sql) };
    });
    expect(applied).toEqual([1, 2]);
    expect(before.list_meta).toEqual([{ id: 1, head: 2 }]);
    expect(after).toStrictEqual(before);
    const { _migrations, waiting, ...beforeMigration2 } = schemaAfter.tables;
    expect(_migrations).toBeDefined();
    expect(waiting).toBeDefined();
    const indexesBeforeMigration2 = schemaAfter.indexes.filter((i) => i.tbl_name !== "waiting");
    expect({ ...schemaAfter, tables: beforeMigration2, indexes: indexesBeforeMigration2 }).toStrictEqual(schemaBefore);
  });

  it("running the migrations again changes nothing: no statement, no row", async () => {
    const { before, after, schemaBefore, schemaAfter, applied } = await runInDurableObject(freshObject(), async (_i: EventObject, state) => {
      const sql = await emptied(state);
      buildFirstShape(sql);
      migrateStorage(state.storage);
      const schemaBefore = schemaOf(sql);
      const before = rowsOf(sql);
      const applied = [migrateStorage(state.storage), migrateStorage(state.storage)];
      return { before, after: rowsOf(sql), schemaBefore, schemaAfter: schemaOf(sql), applied };
    });
    expect(applied).toEqual([[], []]);
    expect(after).toStrictEqual(before);
    expect(schemaAfter).toStrictEqual(schemaBefore);
  });
});
