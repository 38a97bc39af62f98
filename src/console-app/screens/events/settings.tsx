import { useId, useState } from "hono/jsx/dom";
import { api, ok, type Schemas } from "../../api";
import type { paths } from "../../openapi";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { eventsText } from "../../messages/events";
import { href, navigate } from "../../router";
import { Check, Field, Form, type FormValues, Select } from "../../ui/form";
import { useLoad } from "../../ui/load";
import { ConfirmButton } from "../../ui/page";
import { announce } from "../../ui/status";
import type { SectionProps } from "../event-page";
import { besideNestedFields, fromInputDateTime, templateOptions, ticketTemplates, toInputDateTime } from "./shared";

type EventRecord = Schemas["Event"];
type EventChange = NonNullable<paths["/ticketing/v1/admin/events/{id}"]["put"]["requestBody"]>["content"]["application/json"];

const FLAGS = [
  "emails_needed",
  "tickets_needed",
  "invoice_needed",
  "confirmation_emails_needed",
  "add_dashboard_orders_needed",
  "coupons_needed",
  "unique_users_needed",
  "user_groups_needed",
  "recaptcha_needed",
  "test_payments_needed",
  "seats_needed",
  "webhooks_needed",
  "reload_on_exit_needed",
  "waiting_list_needed",
] as const satisfies readonly (keyof EventRecord)[];

/** The event as the form would send it: every setting the organiser changes (decisions.md 4). */
function fromForm(v: FormValues, event: EventRecord) {
  const int = (name: string) => v.optionalInt(name) ?? 0;
  const num = (name: string) => v.optionalNumber(name) ?? 0;
  return {
    event_name: v.text("event_name"),
    event_date: fromInputDateTime(v.text("event_date"), event.event_date),
    event_date_format: v.text("event_date_format"),
    timezone: v.text("timezone"),
    start_date: fromInputDateTime(v.text("start_date"), event.start_date),
    end_date: fromInputDateTime(v.text("end_date"), event.end_date),
    stock: int("stock"),
    stock_link: int("stock_link"),
    group_type: int("group_type"),
    event_group: v.text("event_group"),
    redirect: v.text("redirect"),
    order_submit_text: v.text("order_submit_text"),
    terms: v.text("terms"),
    confirmation_timeout: int("confirmation_timeout"),
    unique_event_ids: v.text("unique_event_ids"),
    ...Object.fromEntries(FLAGS.map((flag) => [flag, v.bool(flag)])),
    email: {
      sender_name: v.text("email.sender_name"),
      sender_email: v.text("email.sender_email"),
      bcc: v.text("email.bcc"),
      subject: v.text("email.subject"),
      body: v.text("email.body"),
    },
    email_confirmation: {
      bcc: v.text("email_confirmation.bcc"),
      subject: v.text("email_confirmation.subject"),
      body: v.text("email_confirmation.body"),
      redirect: v.text("email_confirmation.redirect"),
    },
    user_groups: {
      group_type: int("user_groups.group_type"),
      rest_url: v.text("user_groups.rest_url"),
      rest_header: v.text("user_groups.rest_header"),
    },
    seats: {
      number_of_seats: int("seats.number_of_seats"),
      seats_format: v.text("seats.seats_format"),
      seats_config: v.text("seats.seats_config"),
      linked_event: int("seats.linked_event"),
    },
    pdf_fields: {
      ticket: {
        attachment_id: int("pdf_fields.ticket.attachment_id"),
        x_position: num("pdf_fields.ticket.x_position"),
        y_position: num("pdf_fields.ticket.y_position"),
        rotation: int("pdf_fields.ticket.rotation"),
        scale: int("pdf_fields.ticket.scale"),
        no_border: v.bool("pdf_fields.ticket.no_border"),
      },
    },
  };
}

/**
 * Only what differs from the event as loaded: a PUT changes the fields it names (spec "only the fields to
 * change"), so a setting somebody else changed meanwhile is not written back, and a nested setting is sent with
 * only its changed parts.
 */
function changedSettings(next: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    const was = current[key];
    if (value !== null && typeof value === "object" && was !== null && typeof was === "object") {
      const inner = changedSettings(value as Record<string, unknown>, was as Record<string, unknown>);
      if (Object.keys(inner).length > 0) out[key] = inner;
    } else if (value !== was) out[key] = value;
  }
  return out;
}

/** The `settings` section of an event's page: all its settings in one form, and deleting the event. */
export function EventSettings({ event, reload }: SectionProps) {
  const t = useText(eventsText);
  const c = useText(commonText);
  const templates = useLoad(ticketTemplates, []);
  const pdf = event.pdf_fields.ticket;
  const [force, setForce] = useState(false);
  const forceId = `event-delete-force-${useId().replace(/[^\w-]/g, "")}`;
  return (
    <>
      <Form
        label={t.settingsForm}
        submitLabel={t.saveSettings}
        onSubmit={async (values, form) => {
          const body = changedSettings(fromForm(values, event), event as unknown as Record<string, unknown>);
          if (Object.keys(body).length === 0) return t.nothingChanged;
          try {
            await ok(api.PUT("/ticketing/v1/admin/events/{id}", { params: { path: { id: String(event.id) } }, body: body as EventChange }));
          } catch (error) {
            throw besideNestedFields(error, form);
          }
          reload();
          return c.saved;
        }}
      >
        <fieldset>
          <legend>{t.basicsLegend}</legend>
          <Field name="event_name" label={t.eventName} hint={t.eventNameHint} required maxLength={50} value={event.event_name} />
          <Field name="event_date" type="datetime-local" label={t.eventDate} hint={t.dateHint} value={toInputDateTime(event.event_date)} />
          <Field name="event_date_format" label={t.dateFormat} hint={t.dateFormatHint} required value={event.event_date_format} />
          <Field name="timezone" label={t.timezone} hint={t.timezoneHint} required value={event.timezone} />
        </fieldset>
        <fieldset>
          <legend>{t.saleLegend}</legend>
          <Field name="start_date" type="datetime-local" label={t.startDate} hint={t.startDateHint} value={toInputDateTime(event.start_date)} />
          <Field name="end_date" type="datetime-local" label={t.endDate} hint={t.endDateHint} value={toInputDateTime(event.end_date)} />
          <Field name="stock" type="number" min={0} step={1} label={t.stock} hint={t.stockHint} value={event.stock} />
          <Field name="stock_link" type="number" min={0} step={1} label={t.stockLink} hint={t.stockLinkHint} value={event.stock_link} />
        </fieldset>
        <fieldset>
          <legend>{t.groupLegend}</legend>
          <Select
            name="group_type"
            label={t.groupType}
            hint={t.groupTypeHint}
            value={event.group_type}
            options={([0, 1, 2, 3] as const).map((g) => ({ value: g, label: t[`groupType${g}`] }))}
          />
          <Field name="event_group" label={t.eventGroup} hint={t.eventGroupHint} maxLength={100} value={event.event_group} />
        </fieldset>
        <fieldset>
          <legend>{t.orderingLegend}</legend>
          <Field name="order_submit_text" label={t.orderSubmitText} hint={t.orderSubmitTextHint} maxLength={100} value={event.order_submit_text} />
          <Field name="redirect" type="url" label={t.redirect} hint={t.redirectHint} value={event.redirect} />
          <Field name="terms" rows={3} label={t.terms} hint={t.termsHint} maxLength={20000} value={event.terms} />
        </fieldset>
        <fieldset>
          <legend>{t.flagsLegend}</legend>
          {FLAGS.map((flag) => (
            <Check name={flag} label={t[flag]} checked={event[flag]} hint={flag === "waiting_list_needed" ? t.waitingListHint : undefined} />
          ))}
        </fieldset>
        <fieldset>
          <legend>{t.emailLegend}</legend>
          <Field name="email.sender_name" label={t.senderName} hint={t.senderHint} maxLength={100} value={event.email.sender_name} />
          <Field name="email.sender_email" type="email" label={t.senderEmail} hint={t.senderHint} value={event.email.sender_email} />
          <Field name="email.subject" label={t.emailSubject} maxLength={200} value={event.email.subject} />
          <Field name="email.bcc" type="email" label={t.emailBcc} value={event.email.bcc} />
          <Field name="email.body" rows={8} label={t.emailBody} hint={t.bodyHint} value={event.email.body} />
        </fieldset>
        <fieldset>
          <legend>{t.confirmationLegend}</legend>
          <p class="hint">{t.confirmationIntro}</p>
          <Field
            name="confirmation_timeout"
            type="number"
            min={0}
            step={1}
            label={t.confirmationTimeout}
            hint={t.confirmationTimeoutHint}
            value={event.confirmation_timeout}
          />
          <Field name="email_confirmation.subject" label={t.confirmationSubject} maxLength={200} value={event.email_confirmation.subject} />
          <Field name="email_confirmation.bcc" type="email" label={t.confirmationBcc} value={event.email_confirmation.bcc} />
          <Field name="email_confirmation.body" rows={6} label={t.confirmationBody} hint={t.confirmationBodyHint} value={event.email_confirmation.body} />
          <Field name="email_confirmation.redirect" type="url" label={t.confirmationRedirect} value={event.email_confirmation.redirect} />
        </fieldset>
        <fieldset>
          <legend>{t.whoLegend}</legend>
          <Field name="unique_event_ids" label={t.uniqueEventIds} hint={t.uniqueEventIdsHint} value={event.unique_event_ids} />
          <Select
            name="user_groups.group_type"
            label={t.userGroupType}
            hint={t.userGroupTypeHint}
            value={event.user_groups.group_type}
            options={([0, 1, 2] as const).map((g) => ({ value: g, label: t[`userGroup${g}`] }))}
          />
          <Field name="user_groups.rest_url" type="url" label={t.restUrl} value={event.user_groups.rest_url} />
          <Field name="user_groups.rest_header" label={t.restHeader} hint={t.restHeaderHint} maxLength={1000} value={event.user_groups.rest_header} />
        </fieldset>
        <fieldset>
          <legend>{t.seatsLegend}</legend>
          <p class="hint">{t.seatsIntro}</p>
          <Field name="seats.number_of_seats" type="number" min={0} step={1} label={t.numberOfSeats} value={event.seats.number_of_seats} />
          <Field name="seats.seats_format" label={t.seatsFormat} hint={t.seatsFormatHint} maxLength={100} value={event.seats.seats_format} />
          <Field name="seats.seats_config" rows={3} label={t.seatsConfig} hint={t.seatsConfigHint} value={event.seats.seats_config} />
          <Field name="seats.linked_event" type="number" min={0} step={1} label={t.linkedEvent} hint={t.linkedEventHint} value={event.seats.linked_event} />
        </fieldset>
        <fieldset>
          <legend>{t.pdfLegend}</legend>
          <Select
            name="pdf_fields.ticket.attachment_id"
            label={t.template}
            hint={templates.error ? t.templatesUnavailable : undefined}
            value={pdf.attachment_id}
            options={templateOptions(templates.data, pdf.attachment_id, t.noTemplate, (id) => format(t.templateNumber, { id }))}
          />
          <Field name="pdf_fields.ticket.x_position" type="number" min={0} max={297} step="any" label={t.xPosition} value={pdf.x_position} />
          <Field name="pdf_fields.ticket.y_position" type="number" min={0} max={297} step="any" label={t.yPosition} value={pdf.y_position} />
          <Field name="pdf_fields.ticket.rotation" type="number" min={-360} max={360} step={1} label={t.rotation} value={pdf.rotation} />
          <Field name="pdf_fields.ticket.scale" type="number" min={1} max={100} step={1} label={t.scale} value={pdf.scale} />
          <Check name="pdf_fields.ticket.no_border" label={t.noBorder} checked={pdf.no_border} />
        </fieldset>
      </Form>
      <h2>{t.deleteLegend}</h2>
      <p>{t.deleteIntro}</p>
      <div class="field check">
        <input type="checkbox" id={forceId} checked={force} onChange={(e: Event) => setForce((e.currentTarget as HTMLInputElement).checked)} />
        <label for={forceId}>{t.deleteForce}</label>
      </div>
      <ConfirmButton
        label={t.deleteEvent}
        question={format(c.confirmDelete, { name: event.event_name })}
        onConfirm={async () => {
          // Without force the service refuses an event that has orders (decisions.md 4), shown beside the button.
          const query = force ? { force: "true" as const } : undefined;
          await ok(api.DELETE("/ticketing/v1/admin/events/{id}", { params: { path: { id: String(event.id) }, query } }));
          announce(c.deleted);
          navigate(href("/events"));
        }}
      />
    </>
  );
}
