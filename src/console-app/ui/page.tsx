import { useEffect, useRef, useState } from "hono/jsx/dom";
import type { Child } from "hono/jsx/dom";
import { format, useText } from "../i18n";
import { commonText } from "../messages/common";
import { Problem } from "./load";
import { announce } from "./status";

/**
 * A screen's heading: the document's title follows it, and it takes the focus when the screen opens, so a screen
 * reader announces where a link led and the keyboard starts from the top of the new screen.
 */
export function Heading({ children, title }: { children: Child; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const t = useText(commonText);
  useEffect(() => {
    document.title = `${title} · ${t.console}`;
    ref.current?.focus({ preventScroll: false });
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** Paging of a collection (the API's `page` and X-WP-TotalPages). */
export function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (page: number) => void }) {
  const t = useText(commonText);
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={format(t.pageOf, { page, pages })}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t.previousPage}
      </button>
      <span>{format(t.pageOf, { page, pages })}</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t.nextPage}
      </button>
    </nav>
  );
}

/**
 * A button for an action (resend an email, download a file, delete a row): it asks first when there is a
 * `question` (the browser's own dialog, which the keyboard and screen readers handle), reads `busyLabel` while the
 * action runs and ignores clicks meanwhile, announces the text the action returns, and shows the service's refusal
 * beside it.
 */
export function ActionButton({
  label,
  busyLabel,
  question,
  onClick,
  class: className,
}: {
  label: string;
  busyLabel?: string;
  question?: string;
  onClick: () => Promise<unknown>;
  class?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async () => {
    if (busy || (question !== undefined && !confirm(question))) return;
    setBusy(true);
    setError(undefined);
    try {
      const done = await onClick();
      if (typeof done === "string") announce(done);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class={className} onClick={run} aria-disabled={busy ? "true" : undefined}>
        {busy && busyLabel ? busyLabel : label}
      </button>
      {error !== undefined && <Problem error={error} />}
    </>
  );
}

/** A destructive action that asks first: an ActionButton in the danger style. */
export function ConfirmButton({ label, question, onConfirm, class: className }: { label: string; question: string; onConfirm: () => Promise<unknown>; class?: string }) {
  return <ActionButton label={label} question={question} onClick={onConfirm} class={className ?? "danger"} />;
}
