import { OVERLOADED } from "./route-docs";

/**
 * Answers the OpenAPI document names beside success and the error envelope: where a rule of decisions.md 14
 * answers with a status a client must be ready for, or a success a client may misread (a report lagging a scan).
 * Keyed by `<method> <OpenAPI path>`; the test checks every key is a route, so a renamed route cannot leave a stale
 * entry behind.
 */
const SCAN_LAG = "Scans reach this answer through the queue, about two seconds after the scan answered (the scan's own answer and GET /scans/{id} show it at once).";

export const NOTED_RESPONSES: Record<string, Record<string, string>> = {
  "get /ticketing/v1/health": {
    "200": '`{"status": "ok"}`: the configuration is complete.',
    "503":
      '`{"status": "misconfigured", "settings": [names]}`: settings that are missing or invalid, by name (never by value); a missing PAYMENT_PROVIDER is one, and so is a deployment (anything but local development) without PUBLIC_URL.',
  },
  "post /ticketing/v1/events/{id}/orders": {
    "404": "`rest_event_invalid_id`: the event does not exist.",
    "429":
      "Only with the publishable ordering key (never with the API key), with `Retry-After`: `rest_too_many_requests`, 30 orders a minute per client address; `order_too_many_open` (`You already have orders waiting for payment`), this email or this address already holds 2 orders awaiting payment on the event (decisions.md 15), `Retry-After` saying when one reaches its payment deadline.",
    "503": `\`rest_payment_unavailable\`: the order needs payment and no payment provider is configured; nothing was written. Or ${OVERLOADED}`,
  },
  "post /ticketing/v1/admin/events": {
    "403":
      "`rest_forbidden`: an organizer named an event it may not manage, in a reference (`stock_link`, `seats.linked_event`, `unique_event_ids`) or through `event_group` (a group holding such an event).",
  },
  "put /ticketing/v1/admin/events/{id}": {
    "403": "`rest_forbidden`: the event is not the organizer's, or the change adds a reference to (or joins a group holding) an event it may not manage.",
  },
  "get /ticketing/v1/orders/confirm/{token}": {
    "404":
      "`rest_order_invalid_id`: no order awaits confirmation with this token. The token comes only in the email that asks for confirmation; an order's uid never confirms.",
  },
  "get /ticketing/v1/admin/users/{id}/application-passwords": {
    "403": "`rest_forbidden`: an organizer asked about another user's passwords (it may list its own).",
  },
  "delete /ticketing/v1/admin/users/{id}/application-passwords/{uuid}": {
    "403": "`rest_forbidden`: an organizer asked to revoke another user's password (it may revoke its own).",
    "404": "`rest_application_password_not_found`: the user has no password with this uuid.",
  },
  "get /ticketing/v1/admin/events/{id}/scans": { "200": `The scan report. ${SCAN_LAG}` },
  "get /ticketing/v1/admin/events/{id}/scans/group": { "200": `The scan report of the event's group. ${SCAN_LAG}` },
  "get /ticketing/v1/admin/tickets/{id}": { "200": `The order's tickets with their scans. ${SCAN_LAG}` },
  "post /ticketing/v1/admin/pdf-templates": {
    "400": "`rest_invalid_param`: not a one-page PDF, or `The PDF is too large when unpacked` (over 64 MiB of streams or 100,000 objects); nothing is stored.",
  },
};
