import { useText } from "../../i18n";
import { ordersText } from "../../messages/orders";
import { fragmentQuery, href, type Route } from "../../router";
import type { SectionProps } from "../event-page";
import { useState } from "hono/jsx/dom";
import { NewOrder } from "./new-order";
import { OrderDetail } from "./order-detail";
import { OrderSearch, ordersAddress } from "./order-search";
import { OrderTable } from "./order-table";

export { Exports } from "./exports";

// Orders (search, detail, dashboard orders, refunds, resend, delete, tickets), and the event page's orders and
// exports (decisions.md 15 "The organiser console"; docs/console.md). `/orders/new` comes before
// `/orders/:id`, which would otherwise take it.
export const ordersRoutes: Route[] = [
  { pattern: "/orders", screen: () => <OrderSearch query={fragmentQuery().toString()} /> },
  { pattern: "/orders/new", screen: () => <NewOrder query={fragmentQuery().toString()} /> },
  { pattern: "/orders/:id", screen: ({ id = "" }) => <OrderDetail id={id} /> },
];

/** The event page's orders: the same table as the search, narrowed to the event, and a dashboard order for it. */
export function EventOrders({ event }: SectionProps) {
  const t = useText(ordersText);
  const [page, setPage] = useState(1);
  return (
    <>
      <h2>{t.ordersTitle}</h2>
      <p class="actions">
        <a href={`${href("/orders", "new")}?event_id=${event.id}`}>{t.newOrderForEvent}</a>
        <a href={ordersAddress({ eventId: String(event.id) })}>{t.searchThese}</a>
      </p>
      <OrderTable query={{ eventId: String(event.id), page }} caption={t.ordersTitle} onPage={setPage} />
    </>
  );
}
