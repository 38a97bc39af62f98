import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { EventConfig } from "./event-config";

/**
 * One object per event (`event:<id>`): the authority on that event's remaining stock, holds and scan state,
 * serialising every decision about them. Its SQLite schema is created before the first call is served.
 */
export class EventObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private cachedConfig: EventConfig | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => this.migrate());
  }

  private migrate(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS config (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, body TEXT NOT NULL)`);
  }

  /** The catalogue copy this object decides with, or null before the first push. */
  config(): EventConfig | null {
    if (this.cachedConfig === undefined) {
      const row = this.sql.exec<{ body: string }>(`SELECT body FROM config WHERE id = 1`).toArray()[0];
      this.cachedConfig = row ? (JSON.parse(row.body) as EventConfig) : null;
    }
    return this.cachedConfig;
  }

  /** The catalogue version this object holds (0 before any push). */
  configVersion(): number {
    return this.config()?.version ?? 0;
  }

  /** Keeps `next` when it is newer than what the object holds; answers the version now held. */
  applyConfig(next: EventConfig): number {
    const current = this.configVersion();
    if (next.version <= current) return current;
    this.sql.exec(
      `INSERT INTO config (id, version, body) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, body = excluded.body`,
      next.version,
      JSON.stringify(next),
    );
    this.cachedConfig = next;
    return next.version;
  }

  /** The event was deleted: forget everything, so a later event can never inherit this state. */
  async retire(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.cachedConfig = undefined;
    this.migrate();
  }
}
