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
  orderPage: {
    operationId: "getShopOrderPage",
    summary: "An order's page",
    description:
      "The order's page (HTML, in the language of `?lang=` or `Accept-Language`), where orders placed through the shop return from the payment provider: waiting for payment (with the checkout link and deadline), paid, waiting for confirmation, confirmed, expired, cancelled or refunded, each date of a group, and the links to download, personalise and the invoice as they apply. No key: the uid is the capability. While something is pending `<main data-refresh>` names the seconds after which the page's script looks again.",
    success: answers.html("The order page."),
    errors: { "404": "`rest_order_invalid_id`: no order with this uid (an HTML page that says nothing of other orders)." },
  },
} satisfies Record<string, RouteDoc>;
