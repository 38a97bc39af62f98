import { useState } from "hono/jsx/dom";
import { Problem } from "../../ui/load";
import { announce } from "../../ui/status";

/**
 * A button for an action that needs no question first (resend an email, issue tickets): it says when it is busy,
 * announces what it did, and shows the service's refusal beside it.
 */
export function ActionButton({ label, busyLabel, onClick }: { label: string; busyLabel: string; onClick: () => Promise<string> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async () => {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      announce(await onClick());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={run} aria-disabled={busy ? "true" : undefined}>
        {busy ? busyLabel : label}
      </button>
      {error !== undefined && <Problem error={error} />}
    </>
  );
}
