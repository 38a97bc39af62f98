import { useState } from "hono/jsx/dom";
import { api, ok, okPage } from "../../api";
import { format, useText } from "../../i18n";
import { messagingText } from "../../messages/messaging";
import { href, navigate } from "../../router";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Pager } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { BodyText, Details, HeadersText, ShowDetail, slicePage, When, RecordHeading } from "./shared";

const PER_PAGE = 20;

/** A webhook's delivery log (its newest 100, ticketing-api.md "Webhooks"), newest first, a page at a time. */
export function Deliveries({ webhookId }: { webhookId: string }) {
  const t = useText(messagingText);
  const [page, setPage] = useState(1);
  const loaded = useLoad(() => okPage(api.GET("/ticketing/v1/admin/webhooks/{id}/deliveries", { params: { path: { id: webhookId } } })), [webhookId]);
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">{t.deliveries}</h2>
      <div class="actions">
        <button type="button" onClick={loaded.reload}>
          {t.refresh}
        </button>
      </div>
      <Show loaded={loaded}>
        {(all) => {
          if (all.items.length === 0) return <p>{t.noDeliveries}</p>;
          const shown = slicePage(all.items, page, PER_PAGE);
          return (
            <>
              <Table
                caption={t.deliveries}
                rows={shown.items}
                columns={[
                  { label: t.deliveryId, cell: (d) => <a href={href("/webhooks", webhookId, "deliveries", d.delivery_id)}>{d.delivery_id}</a> },
                  { label: t.topic, cell: (d) => d.topic },
                  { label: t.status, cell: (d) => t[`delivery_${d.status}`] },
                  { label: t.attempts, numeric: true, cell: (d) => d.attempts },
                  { label: t.created, cell: (d) => <When at={d.created} /> },
                  { label: t.responseCode, cell: (d) => (d.response ? d.response.code : "–") },
                ]}
              />
              <Pager page={shown.page} pages={shown.pages} onPage={setPage} />
              <p>{format(t.newestDeliveries, { total: all.total })}</p>
            </>
          );
        }}
      </Show>
    </section>
  );
}

/** `#/webhooks/<id>/deliveries/<deliveryId>`: one delivery, what was sent and what came back, as text. */
export function DeliveryPage({ id, deliveryId }: { id: string; deliveryId: string }) {
  const t = useText(messagingText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/webhooks/{id}/deliveries/{deliveryId}", { params: { path: { id, deliveryId } } })), [id, deliveryId]);
  return (
    <ShowDetail loaded={loaded} title={format(t.deliveryTitle, { id: deliveryId })}>
      {(d) => (
        <>
          <RecordHeading title={format(t.deliveryTitle, { id: d.delivery_id })} back={href("/webhooks", id)} backLabel={t.backToWebhook} />
          <Details
            rows={[
              [t.topic, d.topic],
              [t.status, t[`delivery_${d.status}`]],
              [t.attempts, d.attempts],
              [t.created, <When at={d.created} />],
              [t.finished, <When at={d.finished} />],
              [t.duration, d.duration === "" ? "–" : d.duration],
              ...(d.error ? [[t.error, d.error] as const] : []),
            ]}
          />
          <div class="actions">
            <ConfirmButton
              class="secondary"
              label={t.redeliver}
              question={t.confirmRedeliver}
              onConfirm={async () => {
                const again = await ok(api.POST("/ticketing/v1/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver", { params: { path: { id, deliveryId } } }));
                announce(t.redelivered);
                navigate(href("/webhooks", id, "deliveries", again.delivery_id));
              }}
            />
          </div>
          <h2>{t.request}</h2>
          {d.request ? (
            <>
              <p>
                {d.request.method} {d.request.url}
              </p>
              <h3>{t.requestHeaders}</h3>
              <HeadersText headers={d.request.headers} />
            </>
          ) : (
            <p>{t.notSentYet}</p>
          )}
          <h3>{t.requestBody}</h3>
          <BodyText body={d.body} />
          <h2>{t.response}</h2>
          {d.response ? (
            <>
              <p>
                {d.response.code} {d.response.message}
              </p>
              <h3>{t.responseHeaders}</h3>
              <HeadersText headers={d.response.headers} />
              <h3>{t.responseBody}</h3>
              <BodyText body={d.response.body} />
            </>
          ) : (
            <p>{t.noResponseYet}</p>
          )}
        </>
      )}
    </ShowDetail>
  );
}
