import { answers, type RouteDoc } from "../../http/route-docs";

/** The box office (decisions.md 15): pages anyone may open, no key. */
export const shopApi = {
  page: {
    operationId: "getShopPage",
    summary: "An event's shop page",
    description:
      "The event's shop page (HTML, in the language of `?lang=` or `Accept-Language`): what the order form shows, as a form that orders without a key. Framed only by the service and `CORS_ORIGINS`.",
    success: answers.html("The shop page."),
    errors: { "404": "`rest_event_invalid_id`: no event with this id (an HTML page)." },
  },
  order: {
    operationId: "orderFromShopPage",
    summary: "Order from an event's shop page",
    description:
      "The shop page's form (`application/x-www-form-urlencoded`: `form_token`, `name`, `email`, `ticket_<type_id>`, `field_<field_id>`, `event_ids`, `coupon`, `terms_accepted=on`, `g-recaptcha-response`), ordered by the rules, errors and limits of `POST /events/{id}/orders` with the ordering key; `form_token` is the order's `Idempotency-Key` (a replayed token answers the same `303` to the same order). `303` to the provider's checkout when payment is due, else the event's `redirect`, else the order's page; with `Accept: application/json`, `200` `{\"location\"}` instead. A refusal is the page again (`422`, HTML) with each error beside its field and the values entered.",
    success: answers.redirect(
      303,
      "Ordered: to the provider's checkout, the event's `redirect`, or the order's page (`200` `{\"location\"}` with `Accept: application/json`).",
    ),
    errors: {
      "404": "`rest_event_invalid_id`: no event with this id (an HTML page).",
      "422":
        "The order was refused (an order rule, the open orders or address limits, a missing or malformed `form_token`, a token reused with other values): the shop page again (HTML) with the errors and the values entered.",
      "503": "Overloaded, or the payment provider could not be reached: the shop page again (HTML) with the error, and `Retry-After` when overloaded.",
    },
  },
} satisfies Record<string, RouteDoc>;
