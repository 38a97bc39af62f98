import { apiUrl, type LinkBase } from "../../http/links";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import { ticketTypeLabel } from "../../domain/seat-plan";
import type { EventRow, OrderRow, TicketRow } from "../../db/rows";

export interface ScanView {
  level: number;
  date: string;
  location: string;
}

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
  };
}
