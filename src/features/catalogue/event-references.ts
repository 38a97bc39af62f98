import { inIds } from "../../db/client";
import { events } from "../../db/schema";
import { invalidParams } from "../../domain/errors";
import type { Deps } from "../../platform/deps";

/**
 * Event ids sent in a body must name events that exist (decisions.md 12): a `400` naming `field`, checked before
 * whether the caller may use them, as every other reference is.
 */
export async function assertEventsExist({ db }: Deps, field: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set((await db.select({ id: events.id }).from(events).where(inIds(events.id, ids))).map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw invalidParams({ [field]: `names events that do not exist: ${missing.join(", ")}` });
}
