import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/**
 * One object per event (`event:<id>`): the authority on that event's remaining stock, holds and scan state,
 * serialising every decision about them. Its SQLite schema is created before the first call is served.
 */
export class EventObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => this.migrate());
  }

  private migrate(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
  }

  /** The catalogue version this object last accepted (0 before any push). */
  configVersion(): number {
    const row = this.sql.exec<{ value: number }>(`SELECT value FROM meta WHERE key = 'config_version'`).toArray()[0];
    return row?.value ?? 0;
  }
}
