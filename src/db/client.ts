import { Column, getTableColumns, is, SQL, sql, type AnyColumn } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

const opened = new WeakMap<D1Database, Db>();

/**
 * The drizzle client of a D1 binding, made once per binding: making one walks the whole schema (drizzle's relational
 * config), which cost every request about 4 % of its CPU (a CPU profile of dashboard orders). A binding serves any
 * request of its isolate, and the client keeps no state of a request.
 */
export function openDb(d1: D1Database): Db {
  let db = opened.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    opened.set(d1, db);
  }
  return db;
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.message} ${String(err.cause ?? "")}` : String(err);
}

/**
 * D1 turned the query away because the database is busy: `D1 DB is overloaded. Requests queued for too long.` or
 * `... Too many requests queued.` (Cloudflare's D1 error list). The text may sit in the cause drizzle wraps it in.
 */
export function isD1Overloaded(err: unknown): boolean {
  return /D1 DB is overloaded/i.test(errorText(err));
}

/** SQLite reports a violated UNIQUE index or primary key this way; D1 passes the text through. */
export function isUniqueViolation(err: unknown): boolean {
  return /UNIQUE constraint failed/i.test(errorText(err));
}

/** A trigger of ours refused the write with `RAISE(ABORT, 'CHECK constraint failed: <name>')`. */
export function isCheckViolation(err: unknown, name: string): boolean {
  return errorText(err).includes(`CHECK constraint failed: ${name}`);
}

/**
 * `column IN (ids)` with the ids as one JSON parameter: D1 allows 100 bound parameters per statement, so lists of
 * ids (include, exclude, authorised events, order uids) never go in one parameter each.
 */
export function inIds(column: AnyColumn | SQL, ids: readonly (number | string)[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/** Rows of events within the user's scope: no condition for "all". */
export function inScope(column: AnyColumn, scope: "all" | readonly number[]): SQL | undefined {
  return scope === "all" ? undefined : inIds(column, scope);
}

/**
 * `INSERT INTO <table> SELECT <values> FROM <source> WHERE <where>`: values may be SQL over the source's columns
 * (e.g. `value ->> 0` of a json_each). Columns not given take their declared default (an autoincrement key is left
 * to the database), in the table's own order, as drizzle's insert-select requires.
 */
export function insertFrom<T extends SQLiteTable>(db: Db, table: T, values: Partial<Record<keyof T["$inferInsert"], unknown>>, source: SQL, where?: SQL) {
  const selected: Record<string, SQL.Aliased> = {}; // values may be SQL themselves (e.g. a subquery for an id)
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const given = (values as Record<string, unknown>)[key];
    const fallback = column.hasDefault && column.default !== undefined ? column.default : null;
    const chosen = given !== undefined ? given : fallback;
    const value = chosen === null ? null : is(chosen, SQL) || is(chosen, Column) ? chosen : column.mapToDriverValue(chosen);
    selected[key] = sql`${value}`.as(column.name);
  }
  // The select's shape is the table's by construction; drizzle cannot see that through the loop.
  return db.insert(table).select(db.select(selected).from(source).where(where) as never);
}

/**
 * One row written only while `onlyIf` holds, as one statement for a batch (the row rides on the batch's own
 * decision, e.g. an order still existing or a finalise token being ours).
 */
export function insertIf<T extends SQLiteTable>(db: Db, table: T, values: Partial<T["$inferInsert"]>, onlyIf: SQL) {
  return insertFrom(db, table, values, sql`(SELECT 1)`, onlyIf);
}
