import { api, ok, okPage, type Schemas } from "../../api";
import { format, formatMoney, useLang, useText } from "../../i18n";
import { ordersText } from "../../messages/orders";
import { href } from "../../router";
import { Show, useLoad } from "../../ui/load";
import { Pager } from "../../ui/page";
import { Table } from "../../ui/table";

export type Order = Schemas["Order"];

const PER_PAGE = 20;

/** What the orders list asks the API (GET /admin/orders): the API's own filters, nothing the console adds. */
export interface OrderQuery {
  search?: string;
  eventId?: string;
  page: number;
}

/** One page of orders, newest first, with the names of their events (one extra call for the page's events). */
async function loadOrders(query: OrderQuery) {
  const page = await okPage(
    api.GET("/ticketing/v1/admin/orders", {
      params: {
        query: {
          search: query.search || undefined,
          event_id: query.eventId || undefined,
          page: String(query.page),
          per_page: String(PER_PAGE),
          orderby: "id",
          order: "desc",
        },
      },
    }),
  );
  const ids = [...new Set(page.items.map((o) => o.event_id))];
  const events =
    ids.length === 0
      ? []
      : await ok(api.GET("/ticketing/v1/admin/events", { params: { query: { include: ids.join(","), per_page: "100", _fields: "id,event_name" } } })).catch(() => []);
  const eventNames = new Map(events.map((e) => [e.id, e.event_name]));
  return { ...page, eventNames };
}

/** The service's status word in the console's language; a status the console does not know stays as the service wrote it. */
export function useStatusLabel(): (status: string) => string {
  const t = useText(ordersText);
  return (status) => {
    const key = `status_${status.replace(/\W+/g, "_")}` as keyof typeof t;
    return key in t ? t[key] : status;
  };
}

export const amountOf = (amount: number) => Math.round(amount * 100);

/** The orders of a query as a table, with paging; each order links to its page. */
export function OrderTable({ query, caption, onPage }: { query: OrderQuery; caption: string; onPage: (page: number) => void }) {
  const t = useText(ordersText);
  const lang = useLang();
  const statusLabel = useStatusLabel();
  const loaded = useLoad(() => loadOrders(query), [query.search, query.eventId, query.page]);
  return (
    <Show loaded={loaded}>
      {(found) =>
        found.items.length === 0 ? (
          <p>{t.noOrders}</p>
        ) : (
          <>
            <p>{format(t.found, { total: found.total })}</p>
            <Table
              caption={caption}
              rows={found.items}
              columns={[
                { label: t.order, cell: (o) => <a href={href("/orders", o.id)}>{`#${o.id}`}</a> },
                { label: t.name, cell: (o) => o.name },
                { label: t.email, cell: (o) => o.email },
                { label: t.event, cell: (o) => found.eventNames.get(o.event_id) ?? `#${o.event_id}` },
                {
                  label: t.status,
                  cell: (o) => (
                    <>
                      {statusLabel(o.payment_status)}
                      {o.custom_status && ` · ${o.custom_status}`}
                    </>
                  ),
                },
                { label: t.total, numeric: true, cell: (o) => formatMoney(amountOf(o.total), o.currency, lang) },
                { label: t.created, cell: (o) => o.created_at },
              ]}
            />
            <Pager page={query.page} pages={found.pages} onPage={onPage} />
          </>
        )
      }
    </Show>
  );
}
