import { describe, expect, it } from "vitest";
import { coalescer } from "../../src/lib/coalescer";

/** Items handed in while a run is under way wait for the next run, which takes them all (the orders' object-sync intents). */
describe("coalescer", () => {
  function recording(fail: (items: number[]) => boolean = () => false) {
    const runs: { ctx: string; items: number[] }[] = [];
    const pending: (() => void)[] = [];
    const add = coalescer<string, number>(async (ctx, items) => {
      runs.push({ ctx, items });
      await new Promise<void>((r) => pending.push(r));
      if (fail(items)) throw new Error(`run of ${items.join(",")} failed`);
    });
    const finishRun = async () => {
      for (let i = 0; i < 100 && pending.length === 0; i++) await Promise.resolve();
      pending.shift()?.();
    };
    return { runs, add, finishRun };
  }

  it("runs a lone item at once, in the context of its caller", async () => {
    const { runs, add, finishRun } = recording();
    const done = add("A", 1);
    await finishRun();
    await done;
    expect(runs).toEqual([{ ctx: "A", items: [1] }]);
  });

  it("gathers the items that arrive during a run into one next run, made by the caller that started, which waits for all of it", async () => {
    const { runs, add, finishRun } = recording();
    let aDone = false;
    const a = add("A", 1).then(() => (aDone = true));
    // B and C join the run under way: they return at once, their items taken by A's next run.
    await add("B", 2);
    await add("C", 3);
    await finishRun();
    expect(aDone).toBe(false);
    await finishRun();
    await a;
    expect(runs).toEqual([
      { ctx: "A", items: [1] },
      { ctx: "A", items: [2, 3] },
    ]);
    // Afterwards a lone item starts afresh, in its own context.
    const d = add("D", 4);
    await finishRun();
    await d;
    expect(runs.at(-1)).toEqual({ ctx: "D", items: [4] });
  });

  it("a failed run is told to the caller making the runs, which still drains what waits; the next item starts afresh", async () => {
    const { runs, add, finishRun } = recording((items) => items.includes(2));
    const a = add("A", 1);
    await add("B", 2);
    await finishRun();
    for (let i = 0; i < 100 && runs.length < 2; i++) await Promise.resolve();
    await add("C", 3); // arrives while the run of 2 is under way
    await finishRun();
    await finishRun();
    await expect(a).rejects.toThrow("run of 2 failed");
    expect(runs.map((r) => r.items)).toEqual([[1], [2], [3]]);
    const d = add("D", 4);
    await finishRun();
    await expect(d).resolves.toBeUndefined();
  });

  it("a run that never ends (its request cancelled) holds the others back only until it is stale", async () => {
    const runs: number[][] = [];
    const add = coalescer<string, number>(async (_ctx, items) => {
      runs.push(items);
      if (items.includes(1)) await new Promise(() => {}); // never settles
    }, 0);
    void add("A", 1);
    await new Promise((r) => setTimeout(r, 5));
    await add("B", 2);
    expect(runs).toEqual([[1], [2]]);
  });
});
