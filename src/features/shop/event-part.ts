import type { EventRow } from "../../db/rows";
import type { Deps } from "../../platform/deps";
import { shopEvent } from "../checkout/customer-orders.service";
import { type OrderFormParts, orderFormParts } from "../checkout/order-form.service";
import { passePartoutChildren } from "../ordering/stock.service";

/** What a shop page shows of its event that only the organiser changes: the row, the form's parts, a passe-partout's events. */
export interface ShopEventPart {
  event: EventRow;
  parts: OrderFormParts;
  children: EventRow[];
}

/**
 * decisions.md 15 "Weight and speed": the event's part of a shop page is kept at the edge for at most 10 s, while
 * what remains is asked of the event's object on every view. Kept per isolate, which is where a sale's page views
 * land; a view reads D1 at most once per event every 10 s. Ordering never uses it: the form's post reads the event
 * afresh (shop.routes.tsx), so the rules always see what the organiser last saved.
 */
const KEEP_MS = 10_000;
/** Enough for every event on sale at once; the oldest entry goes first beyond it. */
const MAX_EVENTS = 500;

const kept = new Map<string, { until: number; part: Promise<ShopEventPart> }>();

export async function readShopEventPart(deps: Deps, pathId: string): Promise<ShopEventPart> {
  const event = await shopEvent(deps, pathId);
  const [parts, children] = await Promise.all([orderFormParts(deps, event), event.groupType === 3 ? passePartoutChildren(deps, event) : []]);
  return { event, parts, children };
}

export function keptShopEventPart(deps: Deps, pathId: string): Promise<ShopEventPart> {
  const now = Date.now();
  const hit = kept.get(pathId);
  if (hit && hit.until > now) return hit.part;
  const part = readShopEventPart(deps, pathId);
  kept.delete(pathId);
  kept.set(pathId, { until: now + KEEP_MS, part });
  if (kept.size > MAX_EVENTS) kept.delete(kept.keys().next().value!);
  // An unknown event, or a failed read, is not kept: the next view asks again.
  part.catch(() => {
    if (kept.get(pathId)?.part === part) kept.delete(pathId);
  });
  return part;
}
