import { useCallback, useEffect, useState } from "hono/jsx/dom";
import type { Child } from "hono/jsx/dom";
import { ApiFailure } from "../api";
import { format, useLang, useText } from "../i18n";
import { commonText } from "../messages/common";
import { refusalText } from "./refusal";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (after a change), keeping what is shown until the new answer is there. */
  reload: () => void;
}

/** Data a screen reads from the API, loaded when `deps` change. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [round, setRound] = useState(0);
  // The caller names what the load depends on.
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** Shows the loaded data through `children`, or what keeps it from being shown (loading, not found, forbidden). */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => Child }) {
  const t = useText(commonText);
  if (loaded.data !== undefined) return <>{children(loaded.data)}</>;
  if (loaded.error !== undefined) return <Problem error={loaded.error} />;
  return (
    <p class="loading" aria-busy="true">
      {t.loading}
    </p>
  );
}

/** What went wrong, in the console's language. */
export function Problem({ error }: { error: unknown }) {
  const lang = useLang();
  const t = useText(commonText);
  let text: string;
  if (error instanceof ApiFailure) {
    text = error.status === 404 ? t.notFound : error.status === 403 ? t.forbidden : format(t.failed, { message: refusalText(lang, error, t.fieldInvalid) });
  } else text = format(t.failed, { message: error instanceof Error ? error.message : String(error) });
  return (
    <p class="problem" role="alert">
      {text}
    </p>
  );
}
