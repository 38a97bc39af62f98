import { useState } from "hono/jsx/dom";
import { ApiFailure, api, ok } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { filesText } from "../../messages/files";
import { href } from "../../router";
import { Field, Form } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Heading } from "../../ui/page";
import { Table } from "../../ui/table";
import type { SectionProps } from "../event-page";
import { multipart } from "./multipart";

const LISTS = "/ticketing/v1/admin/emaillists";
const PAGE = 100;

/** `#/email-lists`: every list of the user's events with its size; each links to its event's list section. */
export function EmailLists() {
  const t = useText(filesText);
  const c = useText(commonText);
  const loaded = useLoad(async () => {
    const lists = await ok(api.GET(LISTS));
    if (lists.length === 0) return { lists, names: new Map<number, string>() };
    // The lists name their events by id; the events' names come in one call (at most a page of them).
    const include = lists
      .slice(0, PAGE)
      .map((l) => l.event_id)
      .join(",");
    const events = await ok(api.GET("/ticketing/v1/admin/events", { params: { query: { include, per_page: String(PAGE), _fields: "id,event_name" } } }));
    return { lists, names: new Map(events.map((e) => [e.id, e.event_name])) };
  }, []);
  return (
    <>
      <Heading title={c.emailLists}>{c.emailLists}</Heading>
      <p>{t.listsIntro}</p>
      <p>{t.listsHowTo}</p>
      <Show loaded={loaded}>
        {({ lists, names }) =>
          lists.length === 0 ? (
            <p>{t.noLists}</p>
          ) : (
            <Table
              caption={t.listsCaption}
              rows={lists}
              columns={[
                {
                  label: t.event,
                  cell: (list) => <a href={href("/events", list.event_id, "list")}>{names.get(list.event_id) ?? format(t.eventNumber, { id: list.event_id })}</a>,
                },
                { label: t.addresses, numeric: true, cell: (list) => list.total },
              ]}
            />
          )
        }
      </Show>
    </>
  );
}

/** A refusal's lines: the API names the line of the first bad row (`line 3: ...`, docs/files-and-lists.md). */
function refusedLines(failure: ApiFailure): { line: string; text: string }[] {
  const detail = failure.params.file ?? "";
  return detail
    .split("\n")
    .map((part) => /^line (\d+): (.*)$/s.exec(part.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ line: m[1]!, text: m[2]! }));
}

/**
 * The event page's "Email list" section: the list's size, an upload of a CSV that merges into it, and delete. A
 * refused file's lines are listed one by one under the form; the field says to look there.
 */
export function EmailList({ event }: SectionProps) {
  const t = useText(filesText);
  const [lines, setLines] = useState<{ line: string; text: string }[]>([]);
  const loaded = useLoad(async () => {
    try {
      return await ok(api.GET(`${LISTS}/{id}`, { params: { path: { id: String(event.id) } } }));
    } catch (failure) {
      // An event without a list answers 404 (docs/files-and-lists.md): that is an empty list here, not a problem.
      if (failure instanceof ApiFailure && failure.status === 404) return null;
      throw failure;
    }
  }, [event.id]);
  return (
    <>
      <Show loaded={loaded}>
        {(list) =>
          list === null ? (
            <p>{t.noList}</p>
          ) : (
            <>
              <dl class="details">
                <dt>{t.listSize}</dt>
                <dd>{list.total}</dd>
              </dl>
              <div class="actions">
                <ConfirmButton
                  label={t.deleteList}
                  question={format(t.confirmDeleteList, { count: list.total })}
                  onConfirm={async () => {
                    await ok(api.DELETE(`${LISTS}/{id}`, { params: { path: { id: String(event.id) } } }));
                    loaded.reload();
                  }}
                />
              </div>
            </>
          )
        }
      </Show>
      <h2>{t.uploadList}</h2>
      <Form
        label={t.uploadList}
        submitLabel={t.upload}
        onSubmit={async (values, form) => {
          setLines([]);
          const body = { file: values.file("file") };
          try {
            const list = await ok(api.POST(`${LISTS}/{id}`, { params: { path: { id: String(event.id) } }, body, bodySerializer: multipart(body) }));
            form.reset();
            loaded.reload();
            return format(t.listUploaded, { count: list.total });
          } catch (failure) {
            const refused = failure instanceof ApiFailure ? refusedLines(failure) : [];
            if (refused.length === 0) throw failure;
            setLines(refused);
            throw new ApiFailure(failure instanceof ApiFailure ? failure.status : 400, {
              code: failure instanceof ApiFailure ? failure.code : "",
              message: t.fileRefused,
              data: { status: 400, params: { file: t.fileRefused } },
            });
          }
        }}
      >
        <Field name="file" type="file" label={t.csvFile} hint={t.csvHint} accept=".csv,text/csv" required />
      </Form>
      {lines.length > 0 && (
        <section class="refused-lines" aria-labelledby={`refused-${event.id}`}>
          <h3 id={`refused-${event.id}`}>{t.refusedLines}</h3>
          <ul>
            {lines.map((l) => (
              <li>{format(t.lineError, { line: l.line, text: l.text })}</li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
