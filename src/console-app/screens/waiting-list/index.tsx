import { api, ApiFailure, ok, okPage, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { waitingListText } from "../../messages/waiting-list";
import { href, navigate, usePath } from "../../router";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Pager } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import type { SectionProps } from "../event-page";

type Entry = Schemas["WaitingListEntry"];
type Words = (typeof waitingListText)["en"];

const PER_PAGE = 20;

const stateText = (t: Words, state: Entry["state"]) => t[state];

/** An empty date of the API (`""`: no offer yet) as a dash, so an empty cell still reads as "none". */
const dateOrDash = (at: string) => (at === "" ? "–" : at);

/**
 * The event page's `waiting-list` section (decisions.md 15 "Selling like the peers"; docs/console.md "Waiting
 * list"): the entries in the order they joined, 20 a page (`?page=` kept in the address), each deletable. The flag
 * off says so: entries that joined before it was switched off are still listed, and may still be deleted.
 */
export function WaitingList({ event }: SectionProps) {
  const t = useText(waitingListText);
  const c = useText(commonText);
  const path = usePath();
  const page = Math.max(1, Number(new URLSearchParams(path.split("?")[1] ?? "").get("page")) || 1);
  const eventId = String(event.id);
  const loaded = useLoad(
    () =>
      okPage(api.GET("/ticketing/v1/admin/events/{id}/waiting-list", { params: { path: { id: eventId }, query: { page: String(page), per_page: String(PER_PAGE) } } })),
    [eventId, page],
  );
  const section = href("/events", event.id, "waiting-list");
  return (
    <>
      <h2>{loaded.data ? format(t.titleCount, { count: loaded.data.total }) : t.title}</h2>
      <p>{t.intro}</p>
      {!event.waiting_list_needed && (
        <p class="notice">
          {t.flagOff} <a href={href("/events", event.id, "settings")}>{t.settingsLink}</a>
        </p>
      )}
      <Show loaded={loaded}>
        {(entries) =>
          // Total, not this page's rows: after the last row of a later page is deleted, the pager leads back.
          entries.total === 0 ? (
            <p>{t.none}</p>
          ) : (
            <>
              <Table
                caption={format(t.caption, { count: entries.total })}
                rows={entries.items}
                columns={[
                  { label: t.name, rowHeader: true, cell: (e) => e.name },
                  { label: t.email, wrap: true, cell: (e) => e.email },
                  { label: t.ticketType, cell: (e) => (e.ticket_type === "" ? t.deletedType : e.ticket_type) },
                  { label: t.count, numeric: true, cell: (e) => e.count },
                  { label: t.state, cell: (e) => stateText(t, e.state) },
                  { label: t.joined, cell: (e) => e.created_at },
                  { label: t.offerEnds, cell: (e) => dateOrDash(e.offer_expires_at) },
                  { label: t.order, cell: (e) => (e.order_id === null ? "–" : <a href={href("/orders", e.order_id)}>{format(t.orderLink, { id: e.order_id })}</a>) },
                  {
                    label: c.actions,
                    cell: (e) => (
                      <ConfirmButton
                        label={format(t.deleteEntry, { name: e.name })}
                        question={format(c.confirmDelete, { name: `${e.name} (${e.email})` })}
                        onConfirm={async () => {
                          try {
                            await ok(api.DELETE("/ticketing/v1/admin/events/{id}/waiting-list/{entryId}", { params: { path: { id: eventId, entryId: String(e.id) } } }));
                          } catch (failure) {
                            // Deleted meanwhile (another tab, the API): say so rather than "This page does not exist."
                            if (failure instanceof ApiFailure && failure.status === 404) throw new Error(t.entryGone);
                            throw failure;
                          }
                          announce(c.deleted);
                          loaded.reload();
                        }}
                      />
                    ),
                  },
                ]}
              />
              <Pager page={page} pages={entries.pages} onPage={(p) => navigate(`${section}?page=${p}`)} />
            </>
          )
        }
      </Show>
    </>
  );
}
