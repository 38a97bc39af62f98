import type { Child } from "hono/jsx/dom";
import { useText } from "../../i18n";
import { messagingText } from "../../messages/messaging";
import { fragmentQuery, navigate, usePath } from "../../router";
import { type Loaded, Show } from "../../ui/load";
import { Heading } from "../../ui/page";

/**
 * What the messaging screens share. Everything a user, a receiver or a mail wrote (response bodies, email bodies,
 * log lines) is put in the page as TEXT, which the JSX escapes: markup in it stays visible characters and never
 * becomes an element (decisions.md 15 "The organiser console").
 */

/** A list of label and value, as `dl.details`. */
export function Details({ rows }: { rows: readonly (readonly [string, Child])[] }) {
  return (
    <dl class="details">
      {rows.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
  );
}

/** Headers as the wire has them, one `Name: value` a line, in a <pre> (the heading above it names it). */
export function HeadersText({ headers }: { headers: Readonly<Record<string, string>> }) {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return <pre class="wire">{lines.join("\n")}</pre>;
}

/** A body as text; an empty body says so, in words. */
export function BodyText({ body }: { body: string }) {
  const t = useText(messagingText);
  if (body === "") return <p>{t.emptyBody}</p>;
  return <pre class="wire">{body}</pre>;
}

/** The API's `YYYY-MM-DD HH:MM:SS`, with its "never" (`0000-00-00 00:00:00`, or empty) in words. */
export function When({ at }: { at: string | null | undefined }) {
  const t = useText(messagingText);
  if (!at || at.startsWith("0000-00-00")) return <>{t.never}</>;
  return <time dateTime={at.replace(" ", "T")}>{at}</time>;
}

/** 0 means "not about one event/order" in the API (ticketing-api.md, logs and outbox). */
export const idOrDash = (id: number) => (id === 0 ? "–" : String(id));

/**
 * The screen's filters and page, kept in the fragment's query (router.ts), so a reload and the back button keep
 * them. Reading the path subscribes the screen to changes of the fragment.
 */
export function useFragmentQuery(): URLSearchParams {
  usePath();
  return fragmentQuery();
}

/** Goes to `path` with `query`, leaving out empty values. */
export function navigateWithQuery(path: string, query: Record<string, string | number | undefined>): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, String(value));
  const search = params.toString();
  navigate(`#${path}${search ? `?${search}` : ""}`);
}

/** The page number of the fragment's `page`, at least 1. */
export function pageParam(query: URLSearchParams): number {
  const page = Number.parseInt(query.get("page") ?? "1", 10);
  return Number.isFinite(page) && page > 0 ? page : 1;
}

/**
 * One page of a list the API answers whole (the logs' newest 1000, a webhook's newest 100 deliveries: one page
 * each, ticketing-api.md), so a long list is read in pages here.
 */
export function slicePage<T>(items: readonly T[], page: number, size: number): { items: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages);
  return { items: items.slice((current - 1) * size, current * size), page: current, pages };
}

/** A loaded record's heading (also the document's title) and the link back to its list. */
export function RecordHeading({ title, back, backLabel }: { title: string; back: string; backLabel: string }) {
  return (
    <>
      <Heading title={title}>{title}</Heading>
      <p>
        <a href={back}>{backLabel}</a>
      </p>
    </>
  );
}

/**
 * One record's screen: its own heading once loaded; until then, and when the API refuses it (404, an organiser's
 * 403), a heading naming what the address asked for, so the screen still has its one <h1> (docs/console.md).
 */
export function ShowDetail<T>({ loaded, title, children }: { loaded: Loaded<T>; title: string; children: (data: T) => Child }) {
  if (loaded.data !== undefined) return <>{children(loaded.data)}</>;
  return (
    <>
      <Heading title={title}>{title}</Heading>
      <Show loaded={loaded}>{() => null}</Show>
    </>
  );
}
