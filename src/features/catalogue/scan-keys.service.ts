import { and, asc, eq, sql } from "drizzle-orm";
import { isUniqueViolation } from "../../db/client";
import { scanKeys, ticketTypes } from "../../db/schema";
import { conflict, invalidId, invalidParams } from "../../domain/errors";
import { randomString } from "../../lib/random";
import type { ScanKeyCreateInput, ScanKeyUpdateInput } from "./scan-keys.schema";
import { parseNameList, ticketTypeListProblem } from "../../domain/catalogue-names";
import { insertWithFreshId } from "../../db/fresh-ids";
import type { Deps } from "../../platform/deps";
import { bumpConfigVersion, forgetScanKey, pushEventConfig } from "./event-config.service";
import type { ScanKeyRow } from "../../db/rows";

const DEFAULT_SCAN_DATE_FORMAT = "Y-m-d H:i:s";

export function listScanKeys({ db }: Deps, eventId: number): Promise<ScanKeyRow[]> {
  return db.select().from(scanKeys).where(eq(scanKeys.eventId, eventId)).orderBy(asc(scanKeys.position));
}

export async function getScanKey({ db }: Deps, eventId: number, key: string): Promise<ScanKeyRow> {
  const row = await db
    .select()
    .from(scanKeys)
    .where(and(eq(scanKeys.eventId, eventId), eq(scanKeys.key, key)))
    .get();
  if (!row) throw invalidId("scan_key");
  return row;
}

async function checkTickets(deps: Deps, eventId: number, tickets: string[]): Promise<void> {
  if (tickets.length === 0) return;
  const types = await deps.db.select({ name: ticketTypes.name }).from(ticketTypes).where(eq(ticketTypes.eventId, eventId));
  const problem = ticketTypeListProblem(
    tickets,
    types.map((t) => t.name),
  );
  if (problem) throw invalidParams({ tickets: problem });
}

/** Which unique rule a failed write broke: the key (service-wide) or the location (per event). */
async function clash(deps: Deps, eventId: number, key: string | null, location: string): Promise<Error | null> {
  if (key !== null && (await deps.db.select({ key: scanKeys.key }).from(scanKeys).where(eq(scanKeys.key, key)).get())) {
    return conflict("That scan key is already in use.");
  }
  const sameLocation = await deps.db
    .select({ key: scanKeys.key })
    .from(scanKeys)
    .where(and(eq(scanKeys.eventId, eventId), eq(scanKeys.location, location)))
    .get();
  return sameLocation ? conflict(`This event already has a scan key for location "${location}".`) : null;
}

export async function createScanKey(deps: Deps, eventId: number, input: ScanKeyCreateInput): Promise<ScanKeyRow> {
  const tickets = parseNameList(input.tickets ?? "");
  await checkTickets(deps, eventId, tickets);
  const created = await insertWithFreshId(
    () => input.key ?? randomString(16),
    async (key) => {
      const [rows] = await deps.db.batch([
        deps.db
          .insert(scanKeys)
          .values({
            key,
            eventId,
            position: sql`(SELECT coalesce(max(position), 0) + 1 FROM scan_keys WHERE event_id = ${eventId})`,
            level: input.level ?? 0,
            tickets,
            dateFormat: input.date_format ?? DEFAULT_SCAN_DATE_FORMAT,
            location: input.location,
          })
          .returning(),
        bumpConfigVersion(deps, eventId),
      ]);
      return rows[0]!;
    },
    () => clash(deps, eventId, input.key ?? null, input.location),
  );
  forgetScanKey(created.key);
  await pushEventConfig(deps, eventId);
  return created;
}

export async function updateScanKey(deps: Deps, current: ScanKeyRow, input: ScanKeyUpdateInput): Promise<ScanKeyRow> {
  const tickets = input.tickets === undefined ? current.tickets : parseNameList(input.tickets);
  if (input.tickets !== undefined) await checkTickets(deps, current.eventId, tickets);
  const location = input.location ?? current.location;
  try {
    const [rows] = await deps.db.batch([
      deps.db
        .update(scanKeys)
        .set({ level: input.level ?? current.level, tickets, dateFormat: input.date_format ?? current.dateFormat, location })
        .where(eq(scanKeys.key, current.key))
        .returning(),
      bumpConfigVersion(deps, current.eventId),
    ]);
    if (!rows[0]) throw invalidId("scan_key");
    forgetScanKey(current.key);
    await pushEventConfig(deps, current.eventId);
    return rows[0];
  } catch (err) {
    if (isUniqueViolation(err)) throw (await clash(deps, current.eventId, null, location)) ?? err;
    throw err;
  }
}

export async function deleteScanKey(deps: Deps, current: ScanKeyRow): Promise<void> {
  await deps.db.batch([deps.db.delete(scanKeys).where(eq(scanKeys.key, current.key)), bumpConfigVersion(deps, current.eventId)]);
  forgetScanKey(current.key);
  await pushEventConfig(deps, current.eventId);
}
