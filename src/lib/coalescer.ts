/**
 * Gathers small writes that arrive together into one run: an item handed in while a run is under way waits for the
 * next run, which takes every item waiting by then. Under load many calls cost one round trip; alone, an item runs
 * at once.
 *
 * The caller that finds no run under way makes the runs, with its own context (`ctx`: its request's bindings), and
 * waits until nothing is left, so the request doing the work outlives it; it is told of a failed run. A caller whose
 * item joins a run under way returns at once and hears nothing more: workerd refuses to settle a promise of one
 * request from another. So an item may be lost (a failed run, an isolate that dies): use this only for writes that
 * something reading the durable state re-drives (the object-sync intents: the reconciler).
 */
export function coalescer<Ctx, Item>(run: (ctx: Ctx, items: Item[]) => Promise<void>, staleAfterMs = 10_000): (ctx: Ctx, item: Item) => Promise<void> {
  let waiting: Item[] = [];
  // The drain under way and when it started: a drain whose request was cancelled mid-run never ends, so one older
  // than staleAfterMs no longer holds the others back (two drains take disjoint items, so overlap is harmless).
  let current: { startedAt: number } | null = null;

  async function drain(ctx: Ctx): Promise<void> {
    const mine = { startedAt: Date.now() };
    current = mine;
    let failure: unknown = null;
    try {
      while (waiting.length > 0) {
        const taken = waiting;
        waiting = [];
        await run(ctx, taken).catch((err: unknown) => {
          failure ??= err ?? new Error("a coalesced run failed");
        });
      }
    } finally {
      if (current === mine) current = null;
    }
    if (failure !== null) throw failure;
  }

  return async (ctx, item) => {
    waiting.push(item);
    if (current === null || Date.now() - current.startedAt > staleAfterMs) await drain(ctx);
  };
}
