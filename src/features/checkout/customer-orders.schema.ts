import { z } from "zod";
import { orderFieldsInput, orderTicketsInput, orderView } from "../ordering/orders.schema";
import { answers, named, OVERLOADED, type RouteDoc } from "../../http/route-docs";
import { amountView, optionalDateTimeView } from "../../http/view-types";
import { INPUT_FIELD_TYPES } from "../../db/schema";

/** `POST /events/<event_id>/orders` (decisions.md 5.1). */
export const createCustomerOrderBody = z.strictObject({
  // No cap here: the documented length messages win at every length (decisions.md 14); the body cap bounds them.
  name: z.string().optional(),
  email: z.string().optional(),
  fields: orderFieldsInput.optional(),
  tickets: orderTicketsInput,
  event_ids: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).min(1, "must name at least one date").max(100).optional(),
  coupon: z.string().trim().max(100).optional(),
  terms_accepted: z.boolean().optional(),
  recaptcha_token: z.string().max(4000).optional(),
});
export type CustomerOrderInput = z.output<typeof createCustomerOrderBody>;

const int = z.number().int();
const inEventZone = optionalDateTimeView.describe("In the event's own time zone.");

/** What a shop front needs to render an event's order form (decisions.md 5.1). */
const orderFormView = named(
  "OrderForm",
  z.object({
    event_id: int,
    event_name: z.string(),
    event_date: inEventZone,
    start_date: inEventZone,
    end_date: inEventZone,
    timezone: z.string(),
    open: z.boolean(),
    reason: z.enum(["not_started", "ended", "sold_out"]).nullable().describe("Why the form is closed; null when open."),
    currency: z.string(),
    order_submit_text: z.string(),
    terms: z.string().describe("When not empty, an order must carry `terms_accepted: true`."),
    coupon: z.boolean().describe("The event takes coupons."),
    recaptcha: z.boolean().describe("An order must carry `recaptcha_token`."),
    waiting_list: z
      .boolean()
      .describe('The event keeps a waiting list: a sold-out type can be joined (`POST /events/{id}/waiting-list`; decisions.md 15 "Selling like the peers").'),
    ticket_types: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        price: amountView,
        vat: z.number(),
        volume_price: z.array(z.record(z.string(), amountView)),
        minimum_to_order: int,
        maximum_to_order: int,
        remaining: int.nullable().optional().describe("With `show_remaining`: what can still be bought; null: no limit."),
      }),
    ),
    input_fields: z.array(
      z.object({ id: z.string(), name: z.string(), type: z.enum(INPUT_FIELD_TYPES), value: z.string(), min: z.string(), max: z.string(), is_required: z.boolean() }),
    ),
    group: z
      .object({
        group_type: int,
        event_group: z.string(),
        dates: z.array(z.object({ event_id: int, event_name: z.string(), event_date: inEventZone, open: z.boolean() })),
      })
      .nullable()
      .describe("For an event of a group of dates: the dates a customer may choose (`event_ids`)."),
  }),
);

export type OrderFormView = z.infer<typeof orderFormView>;

/** A customer order's answer: the order, its group, and what comes next. */
const customerOrderView = named(
  "CustomerOrder",
  orderView.extend({
    group_orders: z.array(int).describe("The ids of the orders placed together (one per chosen date)."),
    payment: z
      .object({ provider: z.string(), checkout_url: z.string().describe("Where the customer pays."), expires_at: z.string() })
      .nullable()
      .describe("When the order needs payment; null for a free order."),
    confirmation: z
      .object({ status: z.literal("awaiting"), expires_at: z.string().describe('When the booking lapses unconfirmed; "" never.') })
      .nullable()
      .describe("An RSVP booking waiting for its customer to confirm by email; null otherwise."),
  }),
);

const orderStatusView = named(
  "OrderStatus",
  z.object({
    payment_status: z.string(),
    tickets_ready: z.boolean().describe("The order is final, its tickets issued and personalised: they can be downloaded."),
    download_url: z.string().describe('The tickets\' PDF once ready; "" before.'),
  }),
);

export type OrderStatusView = z.infer<typeof orderStatusView>;

/** The shop front's routes (decisions.md 5.1, 5.7, 12, 13, 14): the API key or the publishable ordering key; status and confirmation take none. */
export const checkoutApi = {
  orderForm: {
    operationId: "getOrderForm",
    summary: "Get an event's order form",
    description:
      "What a shop front needs to render the form: the event, whether it is open (and why not), its ticket types and input fields, and for grouped events the dates.",
    success: answers.ok(orderFormView, "The order form."),
    errors: { "503": OVERLOADED },
  },
  order: {
    operationId: "createCustomerOrder",
    summary: "Place a customer order",
    description:
      "`tickets` names every ticket type of the event with its count. A paid order waits for payment at `payment.checkout_url`; a free one is final at once, or awaits its customer's email confirmation. Send an `Idempotency-Key` so that a retry never orders twice.",
    success: answers.created(customerOrderView, "Created: the order, its group and what comes next; `Location` is its status."),
    errors: {
      "400":
        "An order rule refused it: `order_*`, `coupon_*` or `order_captcha_failed` (decisions.md 5; `order_already_ordered` under unique users); `rest_invalid_param` `An order holds at most 1000 tickets` (a passe-partout's at every child event, the dates of a group together; decisions.md 15).",
      "409": "`order_stock_unavailable`, `order_event_stock_unavailable`, `order_linked_stock_unavailable`: not enough stock.",
      "429":
        "`order_too_many_open` (`You already have orders waiting for payment`): with the ordering key, this email or this address already holds 2 orders awaiting payment on the event (decisions.md 15).",
    },
  },
  status: {
    operationId: "getOrderStatus",
    summary: "Get an order's status",
    description: "For the shop's thank-you page, which may poll it (CORS as the shop front). No key: the order's id and uid together are the capability.",
    success: answers.ok(orderStatusView, "The order's status."),
  },
  confirm: {
    operationId: "confirmBooking",
    summary: "Confirm an RSVP booking",
    description: "The link of the email that asks a customer to confirm. No key: the emailed token is the capability.",
    success: answers.redirect(
      302,
      "Confirmed: to the event's confirmation `redirect`, else the shop's order page for an order placed through the shop, else the order's status.",
    ),
  },
} satisfies Record<string, RouteDoc>;
