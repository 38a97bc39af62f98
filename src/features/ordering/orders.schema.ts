import { z } from "zod";
import { apiUrl, selfAndCollection, type Links, type LinkBase } from "../../http/links";
import { orderbyParam, pagingQueryShape } from "../../http/paging";
import { hasControlCharacter, INVALID_NAME } from "../../lib/control-characters";
import { centsToAmount, parseCents } from "../../lib/money";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import type { EventRow, OrderRow } from "../../db/rows";
import { answers, named, OVERLOADED, type RouteDoc } from "../../http/route-docs";
import { amountView, dateTimeView, deletedView, linksView, optionalDateTimeView } from "../../http/view-types";
import { orderTicketsView } from "./order-tickets.schema";

const fieldValue = z.string().max(1000, "must be at most 1000 characters");

/**
 * `fields`: an array of one-entry objects `{"<input field id>": "<value>"}` (like `tickets`), or one plain object
 * of them; `[]` or `{}` when none (decisions.md 12). Read into a map.
 */
export const orderFieldsInput = z.union([z.array(z.record(z.string(), fieldValue)).max(200), z.record(z.string(), fieldValue)]).transform((value, ctx) => {
  const map = new Map<string, string>();
  for (const entry of Array.isArray(value) ? value : [value]) {
    for (const [id, v] of Object.entries(entry)) {
      if (map.has(id)) {
        ctx.addIssue({ code: "custom", message: `names input field ${id} twice` });
        return z.NEVER;
      }
      map.set(id, v);
    }
  }
  return map;
});

/** What a `tickets` of another shape answers: the shape the spec asks for, with an example (docs/ordering.md "Dashboard and customer orders"). */
const TICKETS_SHAPE_MESSAGE = 'must be a list of {"<ticket type id>": count} maps, such as [{"v05ef7": 2}]';

/** Ticket type ids as the catalogue makes them (decisions.md 3): `v` and 5 lowercase hex. */
const TICKET_TYPE_ID = /^v[0-9a-f]{5}$/;

const isTicketsEntry = (entry: unknown): boolean =>
  entry !== null &&
  typeof entry === "object" &&
  !Array.isArray(entry) &&
  Object.entries(entry).every(([id, count]) => TICKET_TYPE_ID.test(id) && typeof count === "number");

/**
 * `tickets`: one-entry objects mapping a ticket type id to a count; every type of the event must appear. Anything
 * else in its place (`[{"id": 3, "quantity": 2}]`, a plain map, a count as a string) is answered with the expected
 * shape as one message for the field, not zod's inner path; a right shape with a wrong count keeps the count's text.
 */
export const orderTicketsInput = z.preprocess(
  (raw, ctx) => {
    if (raw !== undefined && !(Array.isArray(raw) && raw.every(isTicketsEntry))) ctx.addIssue({ code: "custom", message: TICKETS_SHAPE_MESSAGE });
    return raw;
  },
  z
    .array(z.record(z.string(), z.number().int("counts must be whole numbers").min(0, "counts must not be negative").max(10_000)))
    .min(1, "must list the event's ticket types")
    .max(500),
);

/** `amount`: a decimal string (added in 3.0.0), read as cents. */
const amount = z.string().transform((value, ctx) => {
  const cents = parseCents(value);
  if (cents === null) {
    ctx.addIssue({ code: "custom", message: "must be a non-negative decimal amount with at most 2 decimals" });
    return z.NEVER;
  }
  return cents;
});

export const createDashboardOrderBody = z.strictObject({
  event_id: z.number().int().positive("must be an event id").max(Number.MAX_SAFE_INTEGER),
  // No cap here: the documented length messages win at every length (decisions.md 14); the body cap bounds them.
  name: z.string().optional(),
  email: z.string().optional(),
  fields: orderFieldsInput.optional(),
  amount: amount.optional(),
  tickets: orderTicketsInput,
  coupon: z.string().trim().min(1).max(100).optional(),
});
export type DashboardOrderInput = z.output<typeof createDashboardOrderBody>;

/** Everything an order shows except what a PUT may change; sent back equal it is ignored, changed it is a 400. */
export const ORDER_READ_ONLY = [
  "id",
  "event_id",
  "event_date",
  "payment_id",
  "payment_status",
  "created_at",
  "uid",
  "input_fields",
  "num_tickets",
  "total",
  "discount",
  "currency",
  "ip_address",
] as const;

export const updateOrderBody = z
  .strictObject({
    custom_status: z.string().trim().max(100, "must be at most 100 characters"),
    name: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(50, "must be at most 50 characters")
      .refine((s) => !hasControlCharacter(s), INVALID_NAME),
    email: z.string().trim().max(100, "must be at most 100 characters").pipe(z.email("must be a valid email address")),
  })
  .partial();

export const listOrdersQuery = z.object({
  ...pagingQueryShape,
  event_id: z
    .string()
    .regex(/^\s*\d{1,15}\s*(,\s*\d{1,15}\s*)*$/, "must be comma-separated event ids")
    .transform((s) => [...new Set(s.split(",").map((p) => Number(p.trim())))])
    .optional(),
  orderby: orderbyParam(["id", "event_id", "email"] as const),
});
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

/** An order as the API shows it (spec: Order). */
export const orderView = named(
  "Order",
  z.object({
    id: z.number().int(),
    event_id: z.number().int(),
    event_date: optionalDateTimeView.describe("In the event's own time zone."),
    payment_id: z.string(),
    payment_status: z.string().describe("`open`, `paid`, `dashboard`, `booked`, `canceled`, `expired`, `failed`, `refunded`, ... (decisions.md 5.3)."),
    custom_status: z.string(),
    created_at: dateTimeView,
    uid: z.string().describe("The order's key: the capability of its public addresses (tickets, invoice, status)."),
    name: z.string(),
    email: z.string(),
    input_fields: z.object({
      fields: z.array(z.object({ name: z.string(), value: z.string() })),
      tickets: z.array(z.object({ name: z.string(), price: amountView, vat: z.number(), is_counted: z.boolean(), number: z.number().int() })),
    }),
    num_tickets: z.number().int(),
    total: amountView,
    discount: amountView,
    currency: z.string(),
    ip_address: z.string(),
    _links: linksView,
  }),
);

const orderWithTickets = orderView.extend({
  _embedded: z
    .object({ tickets: z.array(orderTicketsView) })
    .optional()
    .describe("With `_embed` (or `_embed=tickets`): the order's tickets and their scans."),
});

const contactView = z.object({ custom_status: z.string(), name: z.string(), email: z.string() });

const EMBED_NOTE = "`_embed` adds the tickets and their scans under `_embedded`; `_fields` narrows the answer.";

/** The routes of `/admin/orders` (spec: Orders; decisions.md 5.2). */
export const ordersApi = {
  list: {
    operationId: "listOrders",
    summary: "List orders",
    description: `Paged; an organizer sees the orders of its events. ${EMBED_NOTE}`,
    success: answers.page(orderWithTickets),
  },
  create: {
    operationId: "createDashboardOrder",
    summary: "Place a dashboard order",
    description:
      "An order for an event with `add_dashboard_orders_needed`, final at once (`payment_status: dashboard`, or as `amount` says). `tickets` names every ticket type of the event with its count.",
    success: answers.created(orderView),
    errors: {
      "400":
        "An order rule refused it: `order_*` or `coupon_*` (for example `order_max_tickets`, `order_required_fields`, `coupon_expired`, `order_already_ordered` under unique users; decisions.md 5); `rest_invalid_param` `An order holds at most 1000 tickets` (a passe-partout's at every child event; decisions.md 15).",
      "409": "`order_stock_unavailable`, `order_event_stock_unavailable`, `order_linked_stock_unavailable`: not enough stock.",
      "503": OVERLOADED,
    },
  },
  get: { operationId: "getOrder", summary: "Get an order", description: EMBED_NOTE, success: answers.ok(orderWithTickets) },
  update: {
    operationId: "updateOrder",
    summary: "Change an order's contact and status",
    description: "Only `custom_status`, `name` and `email` change; every other field may be sent back unchanged.",
    success: answers.ok(contactView.extend({ _links: linksView }), "The changeable fields as they are now."),
    errors: { "409": "`order_already_ordered`: under unique users, another live order of the new email already holds the event; nothing changed." },
  },
  delete: {
    operationId: "deleteOrder",
    summary: "Delete an order",
    description: "The order and its tickets are gone; its stock is given back.",
    success: answers.ok(deletedView(contactView), "`deleted` and the order's contact and status as they were."),
  },
} satisfies Record<string, RouteDoc>;

export function orderLinks(c: LinkBase, o: OrderRow): Links {
  return {
    ...selfAndCollection(c, `/admin/orders/${o.id}`, "/admin/orders"),
    tickets: [{ embeddable: true, href: apiUrl(c, `/admin/tickets/${o.id}`) }],
  };
}

/**
 * An order as the API shows it (spec: Order). Its own date-times are in the service's `timezone` like every date-time
 * of the interface (decisions.md 3), so they compare with the bulk criteria; only `event_date`, the event's own date,
 * is in the event's zone (decisions.md 13).
 */
export function presentOrder(c: LinkBase, o: OrderRow, event: EventRow | undefined, timezone: string) {
  return {
    id: o.id,
    event_id: o.eventId,
    event_date: formatOptionalDateTime(event?.eventDate ?? null, event?.timezone ?? timezone),
    payment_id: o.paymentId,
    payment_status: o.paymentStatus,
    custom_status: o.customStatus,
    created_at: formatDateTime(o.createdAt, timezone),
    uid: o.uid,
    name: o.name,
    email: o.email,
    input_fields: {
      fields: o.fields.map((f) => ({ name: f.name, value: f.value })),
      tickets: o.lines.map((l) => ({
        name: l.name,
        price: centsToAmount(l.unitCents),
        vat: l.vatHundredths / 100,
        is_counted: l.isCounted,
        number: l.count,
      })),
    },
    num_tickets: o.numTickets,
    total: centsToAmount(o.totalCents),
    discount: centsToAmount(o.discountCents),
    currency: o.currency,
    ip_address: o.ipAddress,
    _links: orderLinks(c, o),
  } satisfies z.infer<typeof orderView>;
}

/** What PUT answers and DELETE shows as `previous` (spec: Orders). */
export function presentOrderContact(o: OrderRow) {
  return { custom_status: o.customStatus, name: o.name, email: o.email };
}
