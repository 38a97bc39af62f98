import { api, ok } from "../../api";
import { format, formatMoney, useLang, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { ordersText } from "../../messages/orders";
import { href, navigate } from "../../router";
import { Field, Form, type FormValues } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Heading } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { ActionButton } from "../../ui/page";
import { OrderLog } from "./order-log";
import { amountOf, type Order, useStatusLabel } from "./order-table";
import { OrderTickets } from "./order-tickets";

/** `#/orders/<id>`: one order, its tickets, what can be done with it, and its log. */
export function OrderDetail({ id }: { id: string }) {
  const t = useText(ordersText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/orders/{id}", { params: { path: { id } } })), [id]);
  return (
    <>
      <Heading title={format(t.orderTitle, { id })}>{format(t.orderTitle, { id })}</Heading>
      <p class="no-print">
        <a href={href("/orders")}>{t.allOrders}</a>
      </p>
      <Show loaded={loaded}>
        {(order) => (
          <>
            <OrderFacts order={order} />
            <OrderTickets orderId={order.id} />
            <OrderActions order={order} reload={loaded.reload} />
            <OrderLog orderId={order.id} />
          </>
        )}
      </Show>
    </>
  );
}

function OrderFacts({ order }: { order: Order }) {
  const t = useText(ordersText);
  const lang = useLang();
  const statusLabel = useStatusLabel();
  const money = (amount: number) => formatMoney(amountOf(amount), order.currency, lang);
  const event = useLoad(
    () => ok(api.GET("/ticketing/v1/admin/events/{id}", { params: { path: { id: String(order.event_id) }, query: { _fields: "id,event_name" } } })),
    [order.event_id],
  );
  return (
    <section aria-labelledby="order-facts">
      <h2 id="order-facts">{t.details}</h2>
      <dl class="details">
        <dt>{t.name}</dt>
        <dd>{order.name}</dd>
        <dt>{t.email}</dt>
        <dd>{order.email}</dd>
        <dt>{t.event}</dt>
        <dd>
          <a href={href("/events", order.event_id, "orders")}>{event.data?.event_name ?? `#${order.event_id}`}</a>
          {order.event_date && ` (${order.event_date})`}
        </dd>
        <dt>{t.status}</dt>
        <dd>{statusLabel(order.payment_status)}</dd>
        <dt>{t.customStatus}</dt>
        <dd>{order.custom_status || "—"}</dd>
        <dt>{t.paymentId}</dt>
        <dd>{order.payment_id || "—"}</dd>
        <dt>{t.created}</dt>
        <dd>{order.created_at}</dd>
        <dt>{t.numTickets}</dt>
        <dd>{order.num_tickets}</dd>
        <dt>{t.total}</dt>
        <dd>{money(order.total)}</dd>
        <dt>{t.discount}</dt>
        <dd>{money(order.discount)}</dd>
      </dl>
      <Table
        caption={t.linesCaption}
        rows={order.input_fields.tickets.filter((line) => line.number > 0)}
        columns={[
          { label: t.ticketType, cell: (line) => line.name },
          { label: t.count, numeric: true, cell: (line) => line.number },
          { label: t.price, numeric: true, cell: (line) => money(line.price) },
          { label: t.vat, numeric: true, cell: (line) => `${line.vat}%` },
        ]}
      />
      {order.input_fields.fields.length > 0 && (
        <>
          <h3>{t.fieldsLegend}</h3>
          <dl class="details">
            {order.input_fields.fields.map((f) => (
              <>
                <dt>{f.name}</dt>
                <dd>{f.value || "—"}</dd>
              </>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}

function OrderActions({ order, reload }: { order: Order; reload: () => void }) {
  const t = useText(ordersText);
  const common = useText(commonText);
  const lang = useLang();
  const path = { params: { path: { id: String(order.id) } } };

  const saveContact = async (values: FormValues) => {
    await ok(
      api.PUT("/ticketing/v1/admin/orders/{id}", {
        ...path,
        body: { name: values.text("name"), email: values.text("email"), custom_status: values.text("custom_status") },
      }),
    );
    reload();
    return common.saved;
  };

  const refund = async (values: FormValues) => {
    const amount = values.optionalText("amount")?.replace(",", ".");
    const asked = amount === undefined ? order.total : Number(amount);
    const shown = Number.isFinite(asked) ? formatMoney(amountOf(asked), order.currency, lang) : String(amount);
    if (!confirm(format(t.confirmRefund, { amount: shown, id: order.id }))) return undefined;
    const answer = await ok(api.POST("/ticketing/v1/admin/orders/{id}/refund", { ...path, body: amount === undefined ? {} : { amount } }));
    reload();
    return format(t.refundQueued, { amount: formatMoney(amountOf(answer.amount), order.currency, lang) });
  };

  const resend = async () => {
    const answer = await ok(api.POST("/ticketing/v1/admin/bulk/order-emails/send", { body: { order_ids: [order.id] } }));
    const refused = answer.errors[0];
    if (refused) throw new Error(refused.error);
    return t.emailQueued;
  };

  const remove = async () => {
    await ok(api.DELETE("/ticketing/v1/admin/orders/{id}", path));
    announce(common.deleted);
    navigate(href("/orders"));
  };

  return (
    <section aria-labelledby="order-actions" class="no-print">
      <h2 id="order-actions">{common.actions}</h2>
      <h3>{t.contactTitle}</h3>
      <Form onSubmit={saveContact} submitLabel={t.saveContact} label={t.contactTitle}>
        <Field name="name" label={t.name} value={order.name} required maxLength={50} autocomplete="off" />
        <Field name="email" label={t.email} type="email" value={order.email} required maxLength={100} autocomplete="off" />
        <Field name="custom_status" label={t.customStatus} hint={t.customStatusHint} value={order.custom_status} maxLength={100} />
      </Form>

      {order.payment_status === "paid" && (
        <>
          <h3>{t.refundTitle}</h3>
          <Form onSubmit={refund} submitLabel={t.refund} label={t.refundTitle}>
            <Field name="amount" label={t.refundAmount} hint={t.refundAmountHint} pattern="\d+([.,]\d{1,2})?" />
          </Form>
        </>
      )}

      <h3>{t.emailTitle}</h3>
      <p>{t.emailIntro}</p>
      <p class="actions">
        <ActionButton label={t.resendEmail} busyLabel={common.working} onClick={resend} />
      </p>

      <h3>{t.deleteOrderTitle}</h3>
      <p>{order.payment_status === "paid" ? t.deletePaidWarning : t.deleteIntro}</p>
      <p class="actions">
        <ConfirmButton
          label={t.deleteOrder}
          question={format(order.payment_status === "paid" ? t.confirmDeletePaid : common.confirmDelete, { name: format(t.orderTitle, { id: order.id }) })}
          onConfirm={remove}
        />
      </p>
    </section>
  );
}
