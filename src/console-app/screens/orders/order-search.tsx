import { useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { ordersText } from "../../messages/orders";
import { href, navigate } from "../../router";
import { Field, Form, type FormValues } from "../../ui/form";
import { Heading } from "../../ui/page";
import { EventChoice } from "./event-choice";
import { OrderTable } from "./order-table";

/** `#/orders?search=&event_id=&page=`: the filters live in the fragment, so a reload or a shared link keeps them. */
export function ordersAddress(filters: { search?: string; eventId?: string; page?: number }): string {
  const query = new URLSearchParams();
  if (filters.search) query.set("search", filters.search);
  if (filters.eventId) query.set("event_id", filters.eventId);
  if (filters.page && filters.page > 1) query.set("page", String(filters.page));
  const text = query.toString();
  return `${href("/orders")}${text ? `?${text}` : ""}`;
}

/** Searching orders (GET /admin/orders: `search` matches the email, `event_id` narrows to an event). */
export function OrderSearch({ query }: { query: string }) {
  const t = useText(ordersText);
  const common = useText(commonText);
  const params = new URLSearchParams(query);
  const search = params.get("search") ?? "";
  const eventId = params.get("event_id") ?? "";
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const submit = async (values: FormValues) => {
    navigate(ordersAddress({ search: values.optionalText("search"), eventId: values.optionalText("event_id") }));
  };
  return (
    <>
      <Heading title={t.ordersTitle}>{t.ordersTitle}</Heading>
      <p class="actions">
        <a href={href("/orders", "new")}>{t.newOrder}</a>
      </p>
      <Form onSubmit={submit} submitLabel={common.search} label={t.searchOrders}>
        <Field name="search" label={t.searchEmail} hint={t.searchEmailHint} type="search" value={search} maxLength={200} />
        <EventChoice name="event_id" label={t.event} value={eventId} anyLabel={t.allEvents} />
      </Form>
      <OrderTable query={{ search, eventId, page }} caption={t.ordersTitle} onPage={(p) => navigate(ordersAddress({ search, eventId, page: p }))} />
    </>
  );
}
