import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

export function openDb(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.message} ${String(err.cause ?? "")}` : String(err);
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
 * ids (include, exclude, authorised events) never go in one parameter each.
 */
export function inIds(column: AnyColumn | SQL, ids: readonly number[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/** Rows of events within the user's scope: no condition for "all". */
export function inScope(column: AnyColumn, scope: "all" | readonly number[]): SQL | undefined {
  return scope === "all" ? undefined : inIds(column, scope);
}
