import { api, okPage } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { eventsText } from "../../messages/events";
import { fragmentQuery, href, navigate } from "../../router";
import { Show, useLoad } from "../../ui/load";
import { Heading, Pager } from "../../ui/page";
import { Table } from "../../ui/table";

const PER_PAGE = 20;

/** `#/events?search=..&page=..`: the events the user may manage (the API decides which), searched by name. */
export function EventList() {
  const t = useText(eventsText);
  const c = useText(commonText);
  const query = fragmentQuery();
  const search = query.get("search") ?? "";
  const page = Math.max(1, Number.parseInt(query.get("page") ?? "1", 10) || 1);
  const loaded = useLoad(
    () =>
      okPage(
        api.GET("/ticketing/v1/admin/events", {
          params: { query: { page: String(page), per_page: String(PER_PAGE), search: search || undefined, orderby: "id", order: "desc" } },
        }),
      ),
    [search, page],
  );
  // The filters live in the fragment, so a reload or the back button keeps them (router.ts).
  const go = (next: { search: string; page: number }) => {
    const q = new URLSearchParams();
    if (next.search) q.set("search", next.search);
    if (next.page > 1) q.set("page", String(next.page));
    const rest = q.toString();
    navigate(`${href("/events")}${rest ? `?${rest}` : ""}`);
  };
  return (
    <>
      <Heading title={t.eventsTitle}>{t.eventsTitle}</Heading>
      <p class="actions">
        <a class="button-link" href={href("/events", "new")}>
          {t.newEvent}
        </a>
      </p>
      <form
        class="search"
        aria-label={t.searchEvents}
        onSubmit={(e: Event) => {
          e.preventDefault();
          const value = new FormData(e.currentTarget as HTMLFormElement).get("search");
          go({ search: typeof value === "string" ? value.trim() : "", page: 1 });
        }}
      >
        <label for="events-search">{t.searchEvents}</label>
        <input id="events-search" name="search" type="search" value={search} />
        <button type="submit">{c.search}</button>
      </form>
      <Show loaded={loaded}>
        {(found) =>
          found.items.length === 0 ? (
            <p>{search ? format(t.noneFound, { search }) : t.noEvents}</p>
          ) : (
            <>
              <Table
                caption={format(t.eventsCaption, { total: found.total })}
                rows={found.items}
                columns={[
                  { label: t.name, rowHeader: true, cell: (event) => <a href={href("/events", event.id)}>{event.event_name}</a> },
                  { label: t.date, cell: (event) => (event.event_date ? event.event_date.slice(0, 16) : "–") },
                  { label: t.soldStock, numeric: true, cell: (event) => `${event.sold} / ${event.stock > 0 ? event.stock : t.unlimited}` },
                  {
                    label: t.group,
                    cell: (event) => (event.group_type > 0 ? `${event.event_group} (${t[`groupShort${event.group_type as 1 | 2 | 3}`]})` : "–"),
                  },
                ]}
              />
              <Pager page={page} pages={found.pages} onPage={(next) => go({ search, page: next })} />
            </>
          )
        }
      </Show>
    </>
  );
}
