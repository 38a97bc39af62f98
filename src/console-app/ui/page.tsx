import { useEffect, useRef, useState } from "hono/jsx/dom";
import type { Child } from "hono/jsx/dom";
import { format, useText } from "../i18n";
import { commonText } from "../messages/common";
import { Problem } from "./load";

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
 * A button that asks first (the browser's own dialog, which the keyboard and screen readers handle), then acts; a
 * refusal of the service is shown beside it.
 */
export function ConfirmButton({ label, question, onConfirm, class: className }: { label: string; question: string; onConfirm: () => Promise<unknown>; class?: string }) {
  const [error, setError] = useState<unknown>(undefined);
  return (
    <>
      <button
        type="button"
        class={className ?? "danger"}
        onClick={async () => {
          if (!confirm(question)) return;
          setError(undefined);
          try {
            await onConfirm();
          } catch (failure) {
            setError(failure);
          }
        }}
      >
        {label}
      </button>
      {error !== undefined && <Problem error={error} />}
    </>
  );
}
