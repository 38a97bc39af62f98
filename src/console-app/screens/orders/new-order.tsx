import { useState } from "hono/jsx/dom";
import { ApiFailure, api, ok, type Schemas } from "../../api";
import { format, useLang, useText } from "../../i18n";
import { ordersText } from "../../messages/orders";
import { href, navigate } from "../../router";
import { Field, Form, type FormValues, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { Heading } from "../../ui/page";
import { EventChoice } from "./event-choice";

type InputField = Schemas["InputField"];

const newOrderAddress = (eventId: string) => `${href("/orders", "new")}?event_id=${encodeURIComponent(eventId)}`;

/**
 * `#/orders/new?event_id=`: a dashboard order (decisions.md 5.2). First the event, then its form: a count for
 * every ticket type (the API wants every type, 0 for those not ordered), the orderer, the event's order-level
 * input fields, and optionally the amount charged and a coupon. Whether the event takes dashboard orders is the
 * API's to say: its refusal is shown like any other.
 */
export function NewOrder({ query }: { query: string }) {
  const t = useText(ordersText);
  const eventId = new URLSearchParams(query).get("event_id") ?? "";
  return (
    <>
      <Heading title={t.newOrderTitle}>{t.newOrderTitle}</Heading>
      <p>{t.newOrderIntro}</p>
      <Form onSubmit={async (values) => navigate(newOrderAddress(values.text("event_id")))} submitLabel={t.chooseEvent} label={t.chooseEvent}>
        <EventChoice name="event_id" label={t.event} value={eventId} hint={t.dashboardOrdersHint} />
      </Form>
      {/^\d+$/.test(eventId) && <OrderForm eventId={eventId} />}
    </>
  );
}

function OrderForm({ eventId }: { eventId: string }) {
  const t = useText(ordersText);
  const lang = useLang();
  // One key per intended order (decisions.md 13 "Idempotency-Key"): a second submit of the same form replays the
  // first answer instead of ordering twice. A refusal ordered nothing, so the corrected form gets a fresh key.
  const [key, setKey] = useState(() => crypto.randomUUID());
  const loaded = useLoad(async () => {
    const path = { params: { path: { id: eventId } } };
    const [event, types, fields] = await Promise.all([
      ok(api.GET("/ticketing/v1/admin/events/{id}", path)),
      ok(api.GET("/ticketing/v1/admin/events/{id}/ticket-types", path)),
      ok(api.GET("/ticketing/v1/admin/events/{id}/input-fields", path)),
    ]);
    // Personalised fields are asked per ticket after ordering, never in the order (spec: Input field).
    return { event, types, fields: fields.filter((f) => !f.is_personalised) };
  }, [eventId]);

  return (
    <Show loaded={loaded}>
      {({ event, types, fields }) => {
        const submit = async (values: FormValues) => {
          const body = {
            event_id: event.id,
            name: values.text("name"),
            email: values.text("email"),
            tickets: types.map((type) => ({ [type.id]: values.optionalInt(`ticket_${type.id}`) ?? 0 })),
            fields: Object.fromEntries(fields.map((f) => [f.id, values.text(`field_${f.id}`)]).filter(([, v]) => v !== "")),
            amount: values.optionalText("amount")?.replace(",", "."),
            coupon: values.optionalText("coupon"),
          };
          try {
            const order = await ok(api.POST("/ticketing/v1/admin/orders", { params: { header: { "Idempotency-Key": key } }, body }));
            navigate(href("/orders", order.id));
            return format(t.orderCreated, { id: order.id });
          } catch (failure) {
            if (failure instanceof ApiFailure) setKey(crypto.randomUUID());
            throw failure;
          }
        };
        return (
          <section aria-labelledby="new-order-form">
            <h2 id="new-order-form">{format(t.orderFor, { name: event.event_name })}</h2>
            {!event.add_dashboard_orders_needed && <p class="notice">{t.dashboardOrdersOff}</p>}
            <Form onSubmit={submit} submitLabel={t.placeOrder} label={format(t.orderFor, { name: event.event_name })}>
              <fieldset>
                <legend>{t.ticketsLegend}</legend>
                {types.length === 0 && <p>{t.noTicketTypes}</p>}
                {types.map((type) => (
                  <Field
                    name={`ticket_${type.id}`}
                    label={type.name}
                    hint={format(t.unitPrice, { price: priceText(type.price, lang) })}
                    type="number"
                    min={0}
                    max={10000}
                    value={0}
                    required
                  />
                ))}
              </fieldset>
              <fieldset>
                <legend>{t.ordererLegend}</legend>
                <Field name="name" label={t.name} required maxLength={50} autocomplete="off" />
                <Field name="email" label={t.email} type="email" required maxLength={100} autocomplete="off" />
              </fieldset>
              {fields.length > 0 && (
                <fieldset>
                  <legend>{t.fieldsLegend}</legend>
                  {fields.map((f) => (
                    <InputFieldControl field={f} />
                  ))}
                </fieldset>
              )}
              <fieldset>
                <legend>{t.optionalLegend}</legend>
                <Field name="amount" label={t.amountCharged} hint={t.amountChargedHint} pattern="\d+([.,]\d{1,2})?" />
                <Field name="coupon" label={t.coupon} maxLength={100} />
              </fieldset>
            </Form>
          </section>
        );
      }}
    </Show>
  );
}

/** A ticket type's price as a plain amount: a ticket type carries no currency (the service's `CURRENCY` applies). */
const priceText = (price: number, lang: string) => new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(price);

/** An input field of the event as the shop asks it: a choice for `select`, the browser's control for the others. */
function InputFieldControl({ field }: { field: InputField }) {
  const t = useText(ordersText);
  const name = `field_${field.id}`;
  if (field.type === "select") {
    const choices = field.value
      .split(",")
      .map((c) => c.trim())
      .filter(Boolean);
    const options = [{ value: "", label: t.noChoice }, ...choices.map((c) => ({ value: c, label: c }))];
    return <Select name={name} label={field.name} options={options} value="" required={field.is_required} />;
  }
  const type = field.type === "password" ? "password" : field.type === "date" ? "date" : field.type === "time" ? "time" : "text";
  const textual = type === "text" || type === "password";
  return (
    <Field
      name={name}
      label={field.name}
      type={type}
      required={field.is_required}
      value={type === "text" ? field.value : undefined}
      minLength={textual && field.min ? Number(field.min) : undefined}
      maxLength={textual ? Math.min(50, field.max ? Number(field.max) : 50) : undefined}
      autocomplete="off"
    />
  );
}
