import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

export function openDb(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

/** SQLite reports a violated UNIQUE index or primary key this way; D1 passes the text through. */
export function isUniqueViolation(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${String(err.cause ?? "")}` : String(err);
  return /UNIQUE constraint failed/i.test(text);
}
