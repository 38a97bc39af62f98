import { api, ok } from "../../api";
import { useText } from "../../i18n";
import { eventsText } from "../../messages/events";
import { href, navigate } from "../../router";
import { Field, Form } from "../../ui/form";
import { Heading } from "../../ui/page";
import { fromInputDateTime } from "./shared";

/** `#/events/new`: the essentials of a new event; everything else is in its settings afterwards. */
export function NewEvent() {
  const t = useText(eventsText);
  return (
    <>
      <Heading title={t.newEventTitle}>{t.newEventTitle}</Heading>
      <p>{t.newEventIntro}</p>
      <Form
        submitLabel={t.createEvent}
        onSubmit={async (values) => {
          const created = await ok(
            api.POST("/ticketing/v1/admin/events", {
              body: {
                event_name: values.text("event_name"),
                event_date: fromInputDateTime(values.text("event_date")),
                event_date_format: values.optionalText("event_date_format"),
                timezone: values.optionalText("timezone"),
                stock: values.optionalInt("stock"),
                start_date: fromInputDateTime(values.text("start_date")),
                end_date: fromInputDateTime(values.text("end_date")),
              },
            }),
          );
          navigate(href("/events", created.id, "settings"));
          return t.eventCreated;
        }}
      >
        <Field name="event_name" label={t.eventName} hint={t.eventNameHint} required maxLength={50} />
        <Field name="event_date" type="datetime-local" label={t.eventDate} hint={t.dateHint} />
        <Field name="event_date_format" label={t.dateFormat} hint={t.dateFormatHint} value="Y-m-d H:i" />
        <Field name="timezone" label={t.timezone} hint={t.timezoneHint} />
        <Field name="stock" type="number" min={0} step={1} label={t.stock} hint={t.stockHint} value={0} />
        <Field name="start_date" type="datetime-local" label={t.startDate} hint={t.startDateHint} />
        <Field name="end_date" type="datetime-local" label={t.endDate} hint={t.endDateHint} />
      </Form>
    </>
  );
}
