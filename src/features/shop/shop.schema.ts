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
} satisfies Record<string, RouteDoc>;
