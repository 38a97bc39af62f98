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
