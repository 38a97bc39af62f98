import { apiUrl, type LinkBase } from "../../http/links";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import { ticketTypeLabel } from "../../domain/seat-plan";
import type { EventRow, OrderRow, TicketRow } from "../../db/rows";
import { z } from "zod";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { dateTimeView, deletedView, linksView, optionalDateTimeView } from "../../http/view-types";

export interface ScanView {
  level: number;
  date: string;
  location: string;
}

/** An order's tickets as the API shows them (spec: Order tickets). */
export const orderTicketsView = named(
  "OrderTickets",
  z.object({
    order_id: z.number().int(),
    name: z.string(),
    email: z.string(),
    created_at: dateTimeView,
    tickets: z.array(
      z.object({
        ticket_id: z.string(),
        event_id: z.number().int(),
        event_name: z.string(),
        event_date: optionalDateTimeView.describe("In the event's own time zone."),
        ticket_type: z.string().describe("The type's name, with the seat where seats are handed out."),
        scans: z.array(z.object({ level: z.number().int(), date: dateTimeView, location: z.string() })),
      }),
    ),
    _links: linksView.describe("`self`, and `download`: the public address of the tickets' PDF."),
  }),
);

/** The routes of `/admin/tickets/<order_id>` (spec: Tickets of an order). */
export const orderTicketsApi = {
  get: {
    operationId: "getOrderTickets",
    summary: "Get an order's tickets",
    description: "Each ticket with its event, type and scans.",
    success: answers.ok(orderTicketsView),
  },
  issue: {
    operationId: "reissueOrderTickets",
    summary: "Issue an order's tickets again",
    description: "New ticket ids for a final order whose tickets were deleted; scanners know them at once.",
    success: answers.created(orderTicketsView, "Created: the order's new tickets; `Location` is this route."),
    errors: {
      "400": "`rest_invalid_param` `An order holds at most 1000 tickets`: a passe-partout's group grew since the order (decisions.md 15).",
      "409": "`order_not_final`, `order_tickets_exist` (delete them first), `order_ticket_type_gone` or `order_event_not_found`.",
    },
  },
  delete: {
    operationId: "deleteOrderTickets",
    summary: "Delete an order's tickets",
    description: "The tickets are gone and no longer scan anywhere; `sold` is unchanged.",
    success: answers.ok(deletedView()),
  },
} satisfies Record<string, RouteDoc>;

/**
 * An order's tickets (spec: Order tickets): each with its event's name and date, its type, and its scans; the
 * public download address under `_links.download`.
 */
export function presentOrderTickets(
  c: LinkBase,
  order: OrderRow,
  rows: readonly TicketRow[],
  eventsById: ReadonlyMap<number, EventRow>,
  scansByTicket: ReadonlyMap<string, ScanView[]>,
  timezone: string,
) {
  return {
    order_id: order.id,
    name: order.name,
    email: order.email,
    created_at: formatDateTime(order.createdAt, timezone),
    tickets: rows.map((t) => {
      const event = eventsById.get(t.eventId);
      return {
        ticket_id: t.id,
        event_id: t.eventId,
        event_name: event?.eventName ?? "",
        event_date: formatOptionalDateTime(event?.eventDate ?? null, event?.timezone ?? timezone),
        ticket_type: ticketTypeLabel(t),
        scans: scansByTicket.get(t.id) ?? [],
      };
    }),
    _links: {
      self: [{ href: apiUrl(c, `/admin/tickets/${order.id}`) }],
      download: [{ href: apiUrl(c, `/tickets/${order.uid}`) }],
    },
  } satisfies z.infer<typeof orderTicketsView>;
}
