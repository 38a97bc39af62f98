import { api, ok, okPage, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { messagingText } from "../../messages/messaging";
import { href, navigate } from "../../router";
import { Field, Form, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Heading, Pager } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { BodyText, Details, idOrDash, navigateWithQuery, pageParam, ShowDetail, slicePage, useFragmentQuery, When, RecordHeading } from "./shared";

type LogEntry = Schemas["LogEntry"];

const PER_PAGE = 50;

/**
 * `#/logs`: the newest 1000 entries the user may see (an organiser: those of its events; the API decides,
 * ticketing-api.md "Error logs"). The API answers them on one page without filters, so the type and event filters
 * and the paging narrow that page here; the filters live in the fragment's query.
 */
export function LogList() {
  const t = useText(messagingText);
  const c = useText(commonText);
  const query = useFragmentQuery();
  const type = query.get("type") ?? "";
  const eventId = query.get("event_id") ?? "";
  const page = pageParam(query);
  const loaded = useLoad(() => okPage(api.GET("/ticketing/v1/admin/logs")), []);
  return (
    <>
      <Heading title={c.logs}>{c.logs}</Heading>
      <Show loaded={loaded}>
        {(all) => {
          const types = [...new Set(all.items.map((e) => e.log_type))].sort();
          const matching = all.items.filter((e) => (type === "" || e.log_type === type) && (eventId === "" || String(e.event_id) === eventId));
          const shown = slicePage(matching, page, PER_PAGE);
          const go = (next: number) => navigateWithQuery("/logs", { type, event_id: eventId, page: next > 1 ? next : undefined });
          return (
            <>
              <Form
                label={t.filters}
                class="filters"
                submitLabel={t.filter}
                onSubmit={async (values) => {
                  navigateWithQuery("/logs", { type: values.optionalText("type"), event_id: values.optionalText("event_id") });
                }}
              >
                <Select name="type" label={t.logType} value={type} options={[{ value: "", label: t.allTypes }, ...types.map((name) => ({ value: name, label: name }))]} />
                <Field name="event_id" type="number" label={t.eventId} value={eventId} min={0} hint={t.eventZeroHint} />
              </Form>
              <p>{format(t.logCounts, { shown: matching.length, total: all.total })}</p>
              {matching.length === 0 ? <p>{t.noLogs}</p> : <LogTable entries={shown.items} />}
              <Pager page={shown.page} pages={shown.pages} onPage={go} />
            </>
          );
        }}
      </Show>
    </>
  );
}

function LogTable({ entries }: { entries: LogEntry[] }) {
  const t = useText(messagingText);
  const c = useText(commonText);
  return (
    <Table
      caption={c.logs}
      rows={entries}
      columns={[
        {
          label: t.id,
          cell: (entry) => (
            <a href={href("/logs", entry.id)} aria-label={format(t.logLink, { id: entry.id })}>
              {entry.id}
            </a>
          ),
        },
        { label: t.created, cell: (entry) => <When at={entry.created_at} /> },
        { label: t.logType, cell: (entry) => entry.log_type },
        { label: t.eventId, cell: (entry) => idOrDash(entry.event_id) },
        { label: t.orderId, cell: (entry) => idOrDash(entry.order_id) },
        { label: t.description, wrap: true, cell: (entry) => entry.description },
      ]}
    />
  );
}

/** `#/logs/<id>`: one entry as text, and its deletion. */
export function LogPage({ id }: { id: string }) {
  const t = useText(messagingText);
  const c = useText(commonText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/logs/{id}", { params: { path: { id } } })), [id]);
  return (
    <ShowDetail loaded={loaded} title={format(t.logTitle, { id })}>
      {(entry) => (
        <>
          <RecordHeading title={format(t.logTitle, { id: entry.id })} back={href("/logs")} backLabel={t.backToLogs} />
          <Details
            rows={[
              [t.logType, entry.log_type],
              [t.created, <When at={entry.created_at} />],
              [t.eventId, entry.event_id === 0 ? "–" : <a href={href("/events", entry.event_id)}>{entry.event_id}</a>],
              [t.orderId, entry.order_id === 0 ? "–" : <a href={href("/orders", entry.order_id)}>{entry.order_id}</a>],
            ]}
          />
          <h2>{t.description}</h2>
          <BodyText body={entry.description} />
          <div class="actions">
            <ConfirmButton
              label={t.deleteLog}
              question={format(c.confirmDelete, { name: format(t.logTitle, { id: entry.id }) })}
              onConfirm={async () => {
                await ok(api.DELETE("/ticketing/v1/admin/logs/{id}", { params: { path: { id } } }));
                announce(c.deleted);
                navigate(href("/logs"));
              }}
            />
          </div>
        </>
      )}
    </ShowDetail>
  );
}
