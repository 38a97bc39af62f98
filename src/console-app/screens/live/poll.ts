import { useEffect, useState } from "hono/jsx/dom";

interface Polled<T> {
  data: T | undefined;
  /** The last refusal or failure; cleared by the next answer. What was shown before stays. */
  error: unknown;
  /** When the shown data arrived. */
  at: Date | undefined;
}

/**
 * Loads `load` now and again every `ms` while the tab is visible (document.visibilityState): a hidden tab asks
 * nothing, and one shown again asks at once. Stops when the component unmounts or `deps` change; one request at a
 * time, the next timed from the end of the last.
 */
export function usePoll<T>(load: () => Promise<T>, ms: number, deps: readonly unknown[]): Polled<T> {
  const [state, setState] = useState<Polled<T>>({ data: undefined, error: undefined, at: undefined });
  // The caller names what the load depends on.
  useEffect(() => {
    let stopped = false;
    let busy = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      clearTimeout(timer);
      timer = undefined;
      if (stopped || busy || document.visibilityState !== "visible") return;
      busy = true;
      try {
        const data = await load();
        if (!stopped) setState({ data, error: undefined, at: new Date() });
      } catch (error) {
        if (!stopped) setState((s) => ({ ...s, error }));
      } finally {
        busy = false;
      }
      if (!stopped) timer = setTimeout(tick, ms);
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") void tick();
      else {
        clearTimeout(timer);
        timer = undefined;
      }
    };
    document.addEventListener("visibilitychange", onVisibility);
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, deps);
  return state;
}
