import { z } from "zod";
import { REGIONS } from "../../domain/regions";
import type { Link, Links } from "../../http/links";
import { apiUrl, selfAndCollection, type LinkBase } from "../../http/links";
import { orderbyParam, pagingQueryShape } from "../../http/paging";
import { formatOptionalDateTime } from "../../lib/time";
import { count, emailOrEmpty, eventIdCsv, phpDateFormat, timeZoneName, webUrlOrEmpty, wireDateTimeOrEmpty } from "../../http/field-types";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { amountView, deletedView, linksView, optionalDateTimeView } from "../../http/view-types";
import type { EventRow } from "../../db/rows";
import { inputFieldView } from "./input-fields.schema";
import { scanKeyView } from "./scan-keys.schema";
import { ticketTypeView } from "./ticket-types.schema";

const EVENT_FLAGS = [
  "emails_needed",
  "tickets_needed",
  "invoice_needed",
  "unique_users_needed",
  "user_groups_needed",
  "recaptcha_needed",
  "confirmation_emails_needed",
  "add_dashboard_orders_needed",
  "test_payments_needed",
  "seats_needed",
  "webhooks_needed",
  "reload_on_exit_needed",
  "coupons_needed",
  "waiting_list_needed",
] as const;
export type EventFlag = (typeof EVENT_FLAGS)[number];

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

const emailSettings = z.strictObject({
  sender_name: text(100),
  sender_email: emailOrEmpty,
  bcc: emailOrEmpty,
  subject: text(200),
  body: z.string().max(200_000, "must be at most 200000 characters"),
});

const confirmationEmailSettings = z.strictObject({
  bcc: emailOrEmpty,
  subject: text(200),
  body: z.string().max(200_000, "must be at most 200000 characters"),
  redirect: webUrlOrEmpty,
});

const userGroupSettings = z.strictObject({
  group_type: z.union([z.literal(0), z.literal(1), z.literal(2)], "must be 0 (none), 1 (email list) or 2 (REST check)"),
  rest_url: z.string().trim().max(2000),
  rest_header: text(1000),
});

const seatSettings = z.strictObject({
  number_of_seats: count(100_000),
  // Kept as sent, spaces included: the format carries its own separator from the type name (decisions.md 14).
  seats_format: z.string().max(100, "must be at most 100 characters"),
  seats_config: text(10_000),
  linked_event: count(Number.MAX_SAFE_INTEGER),
});

const ticketPdfSettings = z.strictObject({
  attachment_id: count(Number.MAX_SAFE_INTEGER),
  x_position: z.number().min(0).max(297, "must be within the A4 page (0-297 mm)"),
  y_position: z.number().min(0).max(297, "must be within the A4 page (0-297 mm)"),
  rotation: z.number().int().min(-360).max(360),
  scale: z.number().int().min(1, "must be 1-100 percent").max(100, "must be 1-100 percent"),
  no_border: z.boolean(),
});

const flagShape = Object.fromEntries(EVENT_FLAGS.map((f) => [f, z.boolean()])) as Record<EventFlag, z.ZodBoolean>;

const eventFields = {
  event_name: z.string().trim().min(1, "must not be empty").max(50, "must be at most 50 characters"),
  event_date: wireDateTimeOrEmpty,
  event_date_format: phpDateFormat,
  timezone: timeZoneName,
  start_date: wireDateTimeOrEmpty,
  end_date: wireDateTimeOrEmpty,
  stock: count(),
  stock_link: count(Number.MAX_SAFE_INTEGER),
  group_type: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)], "must be 0, 1, 2 or 3"),
  event_group: text(100),
  redirect: webUrlOrEmpty,
  order_submit_text: text(100),
  terms: z.string().max(20_000, "must be at most 20000 characters"),
  email: emailSettings.partial(),
  email_confirmation: confirmationEmailSettings.partial(),
  confirmation_timeout: count(525_600),
  unique_event_ids: eventIdCsv,
  user_groups: userGroupSettings.partial(),
  seats: seatSettings.partial(),
  pdf_fields: z.strictObject({ ticket: ticketPdfSettings.partial() }).partial(),
  ...flagShape,
};

export const EVENT_CREATE_READ_ONLY = ["id", "sold"] as const;
/** `region` is where the event's object was created, and an object never moves: it is set once, on create. */
export const EVENT_UPDATE_READ_ONLY = ["id", "sold", "region"] as const;

/** Where the event's object is created: a location hint, or "" to follow the event's time zone (docs/scale.md "Near the venue"). */
const region = z.union([z.enum(REGIONS), z.literal("")], { error: `must be one of ${REGIONS.join(", ")}, or "" to follow the time zone` });

export const createEventBody = z
  .strictObject({ ...eventFields, region })
  .partial()
  .required({ event_name: true });
export const updateEventBody = z.strictObject(eventFields).partial();
export type EventInput = z.output<typeof updateEventBody>;
export type NewEventInput = z.output<typeof createEventBody>;

export const listEventsQuery = z.object({
  ...pagingQueryShape,
  orderby: orderbyParam(["id", "event_date", "start_date", "end_date"] as const),
});
export type ListEventsQuery = z.output<typeof listEventsQuery>;

export const deleteEventQuery = z.object({
  force: z
    .enum(["true", "false", "1", "0"])
    .optional()
    .transform((v) => v === "true" || v === "1"),
});

function embeddable(c: LinkBase, path: string): Link[] {
  return [{ embeddable: true, href: apiUrl(c, path) }];
}

function eventLinks(c: LinkBase, id: number): Links {
  return {
    ...selfAndCollection(c, `/admin/events/${id}`, "/admin/events"),
    ticket_types: embeddable(c, `/admin/events/${id}/ticket-types`),
    input_fields: embeddable(c, `/admin/events/${id}/input-fields`),
    scan_keys: embeddable(c, `/admin/events/${id}/scan-keys`),
    sales_totals: embeddable(c, `/admin/events/${id}/sales`),
    scan_totals: embeddable(c, `/admin/events/${id}/scans`),
  };
}

const flagsOf = (e: EventRow): Record<EventFlag, boolean> => ({
  emails_needed: e.emailsNeeded,
  tickets_needed: e.ticketsNeeded,
  invoice_needed: e.invoiceNeeded,
  unique_users_needed: e.uniqueUsersNeeded,
  user_groups_needed: e.userGroupsNeeded,
  recaptcha_needed: e.recaptchaNeeded,
  confirmation_emails_needed: e.confirmationEmailsNeeded,
  add_dashboard_orders_needed: e.addDashboardOrdersNeeded,
  test_payments_needed: e.testPaymentsNeeded,
  seats_needed: e.seatsNeeded,
  webhooks_needed: e.webhooksNeeded,
  reload_on_exit_needed: e.reloadOnExitNeeded,
  coupons_needed: e.couponsNeeded,
  waiting_list_needed: e.waitingListNeeded,
});

const int = z.number().int();
const eventDate = optionalDateTimeView.describe('`YYYY-MM-DD HH:MM:SS` in the event\'s own `timezone`, or `""` when not set');

/** An event as the API shows it (spec: Event). */
const eventView = named(
  "Event",
  z.object({
    id: int,
    event_name: z.string(),
    event_date: eventDate,
    event_date_format: z.string(),
    timezone: z.string(),
    region: z
      .string()
      .describe(
        'The Durable Object location hint the event\'s object was created with (`wnam`, `enam`, `sam`, `weur`, `eeur`, `apac`, `oc`, `afr`, `me`), from `region` on create or else the time zone; `""` when neither named a place. Set once: an object never moves.',
      ),
    start_date: eventDate,
    end_date: eventDate,
    stock: int,
    sold: int,
    stock_link: int,
    group_type: int,
    event_group: z.string(),
    redirect: z.string(),
    order_submit_text: z.string(),
    terms: z.string(),
    email: z.object({ sender_name: z.string(), sender_email: z.string(), bcc: z.string(), subject: z.string(), body: z.string() }),
    email_confirmation: z.object({ bcc: z.string(), subject: z.string(), body: z.string(), redirect: z.string() }),
    confirmation_timeout: int,
    unique_event_ids: z.string(),
    user_groups: z.object({ group_type: int, rest_url: z.string(), rest_header: z.string() }),
    seats: z.object({ number_of_seats: int, seats_format: z.string(), seats_config: z.string(), linked_event: int }),
    pdf_fields: z.object({
      ticket: z.object({ attachment_id: int, x_position: z.number(), y_position: z.number(), rotation: int, scale: int, no_border: z.boolean() }),
    }),
    ...(Object.fromEntries(EVENT_FLAGS.map((f) => [f, z.boolean()])) as Record<EventFlag, z.ZodBoolean>),
    _links: linksView,
  }),
);

const totals = z.object({ total_orders: int, total_amount: amountView, total_tickets: int });

/** What `_embed` adds to an event: its ticket types, input fields, scan keys and report totals. */
const eventWithEmbeds = eventView.extend({
  _embedded: z
    .object({
      ticket_types: z.array(ticketTypeView),
      input_fields: z.array(inputFieldView),
      scan_keys: z.array(scanKeyView),
      sales_totals: z.array(totals.extend({ final: totals.describe("Of final orders only (paid, dashboard, free; confirmed).") })),
      scan_totals: z.array(z.object({ tickets: int, scanned_tickets: int, unscanned_tickets: int, total_scans: int, scans_by_level: z.record(z.string(), int) })),
    })
    .partial()
    .optional()
    .describe("With `_embed` (all, or the relations named): the embeddable links, inlined."),
});

const EMBED_NOTE = "`_embed` inlines ticket types, input fields, scan keys, sales and scan totals under `_embedded`; `_fields` narrows the answer.";

/** The routes of `/admin/events` (decisions.md 4), for the OpenAPI document. */
export const eventsApi = {
  list: {
    operationId: "listEvents",
    summary: "List events",
    description: `The events the user may see (an organizer: its authorised events), paged. ${EMBED_NOTE}`,
    success: answers.page(eventWithEmbeds),
  },
  create: {
    operationId: "createEvent",
    summary: "Create an event",
    description: "Only `event_name` is required; every other field takes its default. `id` and `sold` are read-only.",
    success: answers.created(eventView),
  },
  get: { operationId: "getEvent", summary: "Get an event", description: EMBED_NOTE, success: answers.ok(eventWithEmbeds) },
  update: {
    operationId: "updateEvent",
    summary: "Change an event",
    description: "Changes the fields sent. Read-only fields (`id`, `sold`) may be sent back unchanged; changed they are a `400`.",
    success: answers.ok(eventView),
  },
  delete: {
    operationId: "deleteEvent",
    summary: "Delete an event",
    description: "Deletes the event with its ticket types, input fields and scan keys; with `force=true` also its orders.",
    success: answers.ok(deletedView(eventView.omit({ _links: true })), "`deleted` and the event as it was, without `_links`."),
    errors: {
      "409":
        "`rest_conflict`: the event has orders (`?force=true` deletes them too), or other events use it (a stock link, or a seat plan or unique-user list whose flag is on).",
    },
  },
} satisfies Record<string, RouteDoc>;

/** An event as the API shows it; its dates in its own time zone. */
export function presentEvent(c: LinkBase, e: EventRow) {
  const tz = e.timezone;
  return {
    id: e.id,
    event_name: e.eventName,
    event_date: formatOptionalDateTime(e.eventDate, tz),
    event_date_format: e.eventDateFormat,
    timezone: tz,
    region: e.region,
    start_date: formatOptionalDateTime(e.startDate, tz),
    end_date: formatOptionalDateTime(e.endDate, tz),
    stock: e.stock,
    sold: e.sold,
    stock_link: e.stockLink,
    group_type: e.groupType,
    event_group: e.eventGroup,
    redirect: e.redirect,
    order_submit_text: e.orderSubmitText,
    terms: e.terms,
    email: e.email,
    email_confirmation: e.emailConfirmation,
    confirmation_timeout: e.confirmationTimeout,
    unique_event_ids: e.uniqueEventIds.join(","),
    user_groups: e.userGroups,
    seats: e.seats,
    pdf_fields: { ticket: e.ticketPdf },
    ...flagsOf(e),
    _links: eventLinks(c, e.id),
  } satisfies z.infer<typeof eventView>;
}
