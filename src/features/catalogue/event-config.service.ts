import { and, asc, eq, lt, sql } from "drizzle-orm";
import { events, scanKeys, ticketTypes } from "../../db/schema";
import type { EventConfig } from "../../event-object/event-config";
import { log } from "../../lib/log";
import type { Deps } from "../../platform/deps";
import { parseSeatRanges, seatCount } from "../../domain/seat-plan";

/**
 * The object's copy of an event's catalogue, read from D1 (the source of truth), and the region its object is
 * created in. Null when the event is gone.
 */
export async function loadEventConfig({ db, config: settings }: Deps, eventId: number): Promise<{ config: EventConfig; region: string } | null> {
  const [eventRows, typeRows, keyRows] = await db.batch([
    db.select().from(events).where(eq(events.id, eventId)),
    db.select().from(ticketTypes).where(eq(ticketTypes.eventId, eventId)).orderBy(asc(ticketTypes.position)),
    db.select().from(scanKeys).where(eq(scanKeys.eventId, eventId)).orderBy(asc(scanKeys.position)),
  ]);
  const event = eventRows[0];
  if (!event) return null;
  const seatRanges = parseSeatRanges(event.seats.seats_config);
  const config: EventConfig = {
    eventId,
    version: event.configVersion,
    eventName: event.eventName,
    timezone: event.timezone,
    stock: event.stock,
    stockLink: event.stockLink,
    reloadOnExit: event.reloadOnExitNeeded,
    seatRanges,
    seatCount: seatCount(seatRanges, event.seats.number_of_seats),
    ticketTypes: typeRows.map((t) => ({ id: t.id, name: t.name, stockControl: t.stockControl, stock: t.stock, isCounted: t.isCounted })),
    waitingListHours: event.waitingListNeeded ? settings.waitingListHours : 0,
    scanKeys: keyRows.map((k) => ({ key: k.key, level: k.level, tickets: k.tickets, dateFormat: k.dateFormat, location: k.location })),
  };
  return { config, region: event.region };
}

/** SQL that bumps an event's config version, for the batch that changes what its object copies. */
export function bumpConfigVersion({ db, now }: Deps, eventId: number) {
  return db
    .update(events)
    .set({ configVersion: sql`${events.configVersion} + 1`, modifiedAt: now() })
    .where(eq(events.id, eventId));
}

/**
 * Sends the event's current catalogue to its object. A failure is logged, not raised: D1 already holds the change,
 * and the sweep (`repairEventConfigs`) re-pushes every event whose object is behind.
 */
export async function pushEventConfig(deps: Deps, eventId: number): Promise<boolean> {
  try {
    const loaded = await loadEventConfig(deps, eventId);
    if (!loaded) return false;
    // The push after an event's creation (or the sweep's re-push when that failed) is what creates its object:
    // the hint places it, and later requests without one reach it wherever it is.
    const held = await deps.eventObjects.get(eventId, loaded.region).applyConfig(loaded.config);
    await deps.db
      .update(events)
      .set({ pushedVersion: held })
      .where(and(eq(events.id, eventId), lt(events.pushedVersion, held)));
    return true;
  } catch (err) {
    log("warn", "event config push failed", { event_id: eventId, error: String(err) });
    return false;
  }
}

/** Re-pushes events whose object has not confirmed their newest catalogue. Returns how many were repaired. */
export async function repairEventConfigs(deps: Deps, limit = 200): Promise<number> {
  const behind = await deps.db.select({ id: events.id }).from(events).where(lt(events.pushedVersion, events.configVersion)).limit(limit);
  let repaired = 0;
  for (const { id } of behind) if (await pushEventConfig(deps, id)) repaired += 1;
  return repaired;
}

/** The event was deleted: its object forgets everything it held. */
export async function retireEventObject(deps: Deps, eventId: number): Promise<void> {
  try {
    await deps.eventObjects.get(eventId).retire();
  } catch (err) {
    log("warn", "event object retire failed", { event_id: eventId, error: String(err) });
  }
}

export interface ScanKeyTarget {
  eventId: number;
  configVersion: number;
  /** For answers made before the event object is asked (a forged signed code). */
  eventName: string;
  level: number;
}

const SCAN_KEY_TTL_MS = 60_000;
const SCAN_KEY_CACHE_LIMIT = 10_000;
const scanKeyCache = new Map<string, { target: ScanKeyTarget; expires: number }>();

/**
 * Which event a scan key belongs to, with the catalogue version its object should hold. Answered from a
 * per-isolate cache for up to 60 s; a miss costs one D1 read. Null for an unknown key (not cached, so a key
 * created a moment ago works at once).
 */
export async function findScanKeyTarget({ db }: Deps, key: string, nowMs = Date.now()): Promise<ScanKeyTarget | null> {
  const hit = scanKeyCache.get(key);
  if (hit && hit.expires > nowMs) return hit.target;
  const row = await db
    .select({ eventId: scanKeys.eventId, configVersion: events.configVersion, eventName: events.eventName, level: scanKeys.level })
    .from(scanKeys)
    .innerJoin(events, eq(events.id, scanKeys.eventId))
    .where(eq(scanKeys.key, key))
    .get();
  if (!row) {
    scanKeyCache.delete(key);
    return null;
  }
  if (scanKeyCache.size >= SCAN_KEY_CACHE_LIMIT) scanKeyCache.delete(scanKeyCache.keys().next().value!);
  scanKeyCache.set(key, { target: row, expires: nowMs + SCAN_KEY_TTL_MS });
  return row;
}

/** This isolate learns of a changed or deleted key at once; other isolates within the cache's 60 s. */
export function forgetScanKey(key: string): void {
  scanKeyCache.delete(key);
}
