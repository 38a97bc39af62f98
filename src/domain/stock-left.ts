/**
 * What is left of an event's stock, as its object counts it (event-object/stock-ledger.ts `remaining`): the event's
 * own units and each type's; null where there is no limit.
 */
export type Remaining = { event: number | null; types: Record<string, number | null> };

/**
 * What can still be bought of a type: the lower of its own and (for counted types) the event's; null: no limit. The
 * order form shows it, the waiting list offers it (decisions.md 15 "Selling like the peers").
 */
export function remainingOfType(remaining: Remaining, typeId: string, counted: boolean): number | null {
  const limits = [remaining.types[typeId] ?? null, counted ? remaining.event : null].filter((n): n is number => n !== null);
  return limits.length === 0 ? null : Math.max(0, Math.min(...limits));
}
