import { api, ok, okPage } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { messagingText } from "../../messages/messaging";
import { href } from "../../router";
import { Field, Form } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { Heading, Pager } from "../../ui/page";
import { Table } from "../../ui/table";
import { BodyText, Details, idOrDash, navigateWithQuery, pageParam, ShowDetail, useFragmentQuery, When, RecordHeading } from "./shared";

const PER_PAGE = 25;

/** `#/outbox`: every email the service sent or will send, with the API's filters (ticketing-api.md, the outbox). */
export function Outbox() {
  const t = useText(messagingText);
  const c = useText(commonText);
  const query = useFragmentQuery();
  const search = query.get("search") ?? "";
  const eventId = query.get("event_id") ?? "";
  const orderId = query.get("order_id") ?? "";
  const page = pageParam(query);
  const loaded = useLoad(
    () =>
      okPage(
        api.GET("/ticketing/v1/admin/emails", {
          params: {
            query: { search: search || undefined, event_id: eventId || undefined, order_id: orderId || undefined, page: String(page), per_page: String(PER_PAGE) },
          },
        }),
      ),
    [search, eventId, orderId, page],
  );
  const go = (next: number) => navigateWithQuery("/outbox", { search, event_id: eventId, order_id: orderId, page: next > 1 ? next : undefined });
  return (
    <>
      <Heading title={c.outbox}>{c.outbox}</Heading>
      <Form
        label={t.filters}
        class="filters"
        submitLabel={c.search}
        onSubmit={async (values) => {
          navigateWithQuery("/outbox", { search: values.optionalText("search"), event_id: values.optionalText("event_id"), order_id: values.optionalText("order_id") });
        }}
      >
        <Field name="search" type="search" label={t.recipient} hint={t.recipientHint} value={search} />
        <Field name="event_id" type="number" label={t.eventId} value={eventId} min={1} />
        <Field name="order_id" type="number" label={t.orderId} value={orderId} min={1} />
      </Form>
      <Show loaded={loaded}>
        {(emails) =>
          emails.items.length === 0 ? (
            <p>{t.noEmails}</p>
          ) : (
            <>
              <Table
                caption={format(t.emailsFound, { total: emails.total })}
                rows={emails.items}
                columns={[
                  {
                    label: t.id,
                    cell: (email) => (
                      <a href={href("/outbox", email.id)} aria-label={format(t.emailLink, { id: email.id })}>
                        {email.id}
                      </a>
                    ),
                  },
                  { label: t.to, wrap: true, cell: (email) => email.to },
                  { label: t.subject, cell: (email) => email.subject },
                  { label: t.status, cell: (email) => t[`email_${email.status}`] },
                  { label: t.eventId, cell: (email) => idOrDash(email.event_id) },
                  { label: t.orderId, cell: (email) => idOrDash(email.order_id) },
                  { label: t.created, cell: (email) => <When at={email.created_at} /> },
                ]}
              />
              <Pager page={page} pages={emails.pages} onPage={go} />
            </>
          )
        }
      </Show>
    </>
  );
}

/** `#/outbox/<id>`: one email, its headers and its body as the HTML source, never rendered. */
export function EmailPage({ id }: { id: string }) {
  const t = useText(messagingText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/emails/{id}", { params: { path: { id } } })), [id]);
  return (
    <ShowDetail loaded={loaded} title={format(t.emailTitle, { id })}>
      {(email) => (
        <>
          <RecordHeading title={format(t.emailTitle, { id: email.id })} back={href("/outbox")} backLabel={t.backToOutbox} />
          <Details
            rows={[
              [t.subject, email.subject],
              [t.to, email.to],
              [t.bcc, email.bcc || "–"],
              [t.from, email.from_name ? `${email.from_name} <${email.from_email}>` : email.from_email],
              [t.status, t[`email_${email.status}`]],
              [t.attempts, email.attempts],
              ...(email.last_error ? [[t.lastError, email.last_error] as const] : []),
              [t.eventId, email.event_id === 0 ? "–" : <a href={href("/events", email.event_id)}>{email.event_id}</a>],
              [t.orderId, email.order_id === 0 ? "–" : <a href={href("/orders", email.order_id)}>{email.order_id}</a>],
              [t.created, <When at={email.created_at} />],
              [t.sent, <When at={email.sent_at} />],
            ]}
          />
          <h2>{t.body}</h2>
          <p class="hint">{t.bodyAsSource}</p>
          <BodyText body={email.body} />
        </>
      )}
    </ShowDetail>
  );
}
