import { answers, type RouteDoc } from "../../http/route-docs";

/** The box office (decisions.md 15): pages anyone may open, no key. */
export const shopApi = {
  page: {
    operationId: "getShopPage",
    summary: "An event's shop page",
    description:
      "The event's shop page (HTML, in the language of `?lang=` or `Accept-Language`): what the order form shows, as a form that orders without a key, and when the event keeps a waiting list and a type is sold out, the form that joins it. `?offer=<token>` (a waiting-list offer's personal link) shows the offer and lets its type be ordered; a token no longer valid is a notice on the ordinary page. `?joined=1`: the confirmation after joining. Framed only by the service and `CORS_ORIGINS`.",
    success: answers.html("The shop page."),
    errors: { "404": "`rest_event_invalid_id`: no event with this id (an HTML page)." },
  },
  orderPage: {
    operationId: "getShopOrderPage",
    summary: "An order's page",
    description:
      "The order's page (HTML, in the language of `?lang=` or `Accept-Language`), where orders placed through the shop return from the payment provider: waiting for payment (with the checkout link and deadline), paid, waiting for confirmation, confirmed, expired, cancelled or refunded, each date of a group, and the links to download, personalise and the invoice as they apply. No key: the uid is the capability. While something is pending `<main data-refresh>` names the seconds after which the page's script looks again.",
    success: answers.html("The order page."),
    errors: { "404": "`rest_order_invalid_id`: no order with this uid (an HTML page that says nothing of other orders)." },
  },
  order: {
    operationId: "orderFromShopPage",
    summary: "Order from an event's shop page",
    description:
      "The shop page's form (`application/x-www-form-urlencoded`: `form_token`, `name`, `email`, `ticket_<type_id>`, `field_<field_id>`, `event_ids`, `coupon`, `terms_accepted=on`, `g-recaptcha-response`, `offer`: the token of a waiting-list offer's personal link, which lets the offered type be ordered with the email that joined), ordered by the rules, errors and limits of `POST /events/{id}/orders` with the ordering key; `form_token` is the order's `Idempotency-Key` (a replayed token answers the same `303` to the same order). `303` to the provider's checkout when payment is due, else the event's `redirect`, else the order's page; with `Accept: application/json`, `200` `{\"location\"}` instead. A refusal is the page again (`422`, HTML) with each error beside its field and the values entered.",
    success: answers.redirect(
      303,
      "Ordered: to the provider's checkout, the event's `redirect`, or the order's page (`200` `{\"location\"}` with `Accept: application/json`).",
    ),
    errors: {
      "404": "`rest_event_invalid_id`: no event with this id (an HTML page).",
      "422":
        "The order was refused (an order rule, the open orders or address limits, a missing or malformed `form_token`, a token reused with other values, an `offer` expired, used, unknown or sent with another email): the shop page again (HTML) with the errors and the values entered.",
      "503": "Overloaded, or the payment provider could not be reached: the shop page again (HTML) with the error, and `Retry-After` when overloaded.",
    },
  },
  joinWaitingList: {
    operationId: "joinWaitingListFromShopPage",
    summary: "Join an event's waiting list from its shop page",
    description:
      "The shop page's waiting-list form (`application/x-www-form-urlencoded`: `form_token`, `waiting_name`, `waiting_email`, `waiting_type`, `waiting_count`), joined by the rules, errors and limits of `POST /events/{id}/waiting-list` with the ordering key, in the page's language (the offer's email is written in it). `form_token` is the `Idempotency-Key`. `303` to the shop page with `?joined=1`, a confirmation that names nothing of the entry. A refusal is the page again (`422`, HTML) with each error beside its field and the values entered.",
    success: answers.redirect(303, "Joined: to the shop page's confirmation."),
    errors: {
      "404": "`rest_event_invalid_id`: no event with this id (an HTML page).",
      "422":
        "Refused by a rule of `POST /events/{id}/waiting-list` (the name and email checks of orders, the type or count, no waiting list, units still on sale, already in line, the sale ended), the address limit, or a missing or malformed `form_token`: the shop page again (HTML) with the errors, in the page's language, and the values entered.",
      "503": "Overloaded: the shop page again (HTML) with the error and `Retry-After`.",
    },
  },
} satisfies Record<string, RouteDoc>;
