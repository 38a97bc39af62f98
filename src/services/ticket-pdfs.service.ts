import { asc, eq, inArray } from "drizzle-orm";
import { inIds } from "../db/client";
import { isFinalOrder } from "../db/order-status";
import { events, inputFields, pdfTemplates, tickets, ticketTypes } from "../db/schema";
import { ApiError } from "../http/errors";
import { linkBaseOf, withoutLinks } from "../http/links";
import { formatPhpDate } from "../lib/php-date";
import { formatDateTime, wallClockAt } from "../lib/time";
import { mergePdfs } from "../pdf/merge";
import { renderTickets, type TicketView } from "../pdf/render-tickets";
import type { EventRow } from "../schemas/events.schema";
import { presentOrder, type OrderRow } from "../schemas/orders.schema";
import type { Deps } from "./deps";
import { LAYOUT_ORDER_NAMES } from "./catalogue-names";
import { allPersonalised } from "./personalisation.service";
import { ticketFonts } from "./ticket-fonts";
import { fireTopicLater } from "./webhook-deliveries.service";
import { API_BASE } from "../http/context";

/** Where an order's PDF is cached: under its event, so an event's PDFs can be purged together. */
export function ticketPdfKey(order: { eventId: number; uid: string }): string {
  return `tickets/${order.eventId}/${order.uid}.pdf`;
}

/** The event date in the event's own date format and zone ("" when unset). */
function eventDateText(event: EventRow): string {
  return event.eventDate === null ? "" : formatPhpDate(wallClockAt(event.eventDate * 1000, event.timezone), event.eventDateFormat);
}

/**
 * The PDF of an order's tickets, rendered: grouped by template (the type's, else the event's, else none), each group
 * rendered and the parts merged in ticket order of the groups. The info lines: event name, ticket type, event
 * date, then the type's `layout` fields (order fields, personalised fields, Order-id, Name, Email) or by default
 * the order id, name and email.
 */
async function render(deps: Deps, order: OrderRow): Promise<Uint8Array> {
  const { db } = deps;
  const rows = await db.select().from(tickets).where(eq(tickets.orderId, order.id)).orderBy(asc(tickets.createdAt), asc(tickets.id));
  const eventIds = [...new Set([order.eventId, ...rows.map((t) => t.eventId)])];
  const [eventRows, types, fields] = await db.batch([
    db.select().from(events).where(inIds(events.id, eventIds)),
    db.select().from(ticketTypes).where(eq(ticketTypes.eventId, order.eventId)),
    db.select({ id: inputFields.id, name: inputFields.name }).from(inputFields).where(eq(inputFields.eventId, order.eventId)),
  ]);
  const eventsById = new Map(eventRows.map((e) => [e.id, e]));
  const own = eventsById.get(order.eventId)!;
  const typeById = new Map(types.map((t) => [t.id, t]));
  const fieldIdByName = new Map(fields.map((f) => [f.name, f.id]));
  const orderValue = (name: string, personalisation: Record<string, string>): string => {
    if (name === "Order-id") return String(order.id);
    if (name === "Name") return order.name;
    if (name === "Email") return order.email;
    const id = fieldIdByName.get(name);
    const personal = id ? personalisation[id] : undefined;
    return personal ?? order.fields.find((f) => f.name === name)?.value ?? "";
  };
  const defaultLayout = LAYOUT_ORDER_NAMES; // order id, name, email

  const groups = new Map<number, TicketView[]>();
  for (const t of rows) {
    const type = typeById.get(t.ticketTypeId);
    const event = eventsById.get(t.eventId) ?? own;
    const layout = type && type.layout.length > 0 ? type.layout : defaultLayout;
    const lines = [event.eventName, t.ticketTypeName, eventDateText(event), ...layout.map((name) => orderValue(name, t.personalisation))];
    const template = type?.attachmentId || (own.ticketsNeeded ? own.ticketPdf.attachment_id : 0);
    const group = groups.get(template) ?? [];
    group.push({ qrPayload: t.id, lines });
    groups.set(template, group);
  }
  const templateIds = [...groups.keys()].filter((id) => id !== 0);
  const templateRows = templateIds.length > 0 ? await db.select().from(pdfTemplates).where(inArray(pdfTemplates.id, templateIds)) : [];
  const placement = {
    xMm: own.ticketPdf.x_position,
    yMm: own.ticketPdf.y_position,
    rotation: own.ticketPdf.rotation,
    scalePercent: own.ticketPdf.scale,
    border: !own.ticketPdf.no_border,
  };
  const fonts = ticketFonts(deps.files);
  const parts: Uint8Array[] = [];
  for (const [templateId, views] of groups) {
    const row = templateRows.find((r) => r.id === templateId);
    const bytes = row ? await deps.files.getBytes(row.fileKey) : null;
    parts.push(await renderTickets(bytes, views, placement, fonts));
  }
  return mergePdfs(parts);
}

export interface TicketPdf {
  body: ReadableStream | Uint8Array;
  order: OrderRow;
  cached: boolean;
}

/**
 * `GET /tickets/<uid>` (decisions.md 7 and 13): the order's tickets as one PDF. `404` without tickets, `409
 * tickets_not_personalised` until every ticket that needs it is personalised. A rendered PDF is kept in R2 (only then,
 * so its presence means the download is allowed) and served from there; `tickets.downloaded` fires after the answer.
 */
export async function ticketPdf(deps: Deps, order: OrderRow): Promise<TicketPdf> {
  const key = ticketPdfKey(order);
  const hit = await deps.files.get(key);
  let result: TicketPdf;
  if (hit) {
    result = { body: hit.body, order, cached: true };
  } else {
    const count = await deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id)).limit(1).get();
    if (!isFinalOrder(order) || !count) throw new ApiError(404, "tickets_not_found", "This order has no tickets (yet).");
    if (!(await allPersonalised(deps, order))) {
      throw new ApiError(409, "tickets_not_personalised", "Every ticket must be personalised before the tickets can be downloaded.");
    }
    const bytes = await render(deps, order);
    await deps.files.put(key, bytes, "application/pdf");
    result = { body: bytes, order, cached: false };
  }
  // Everything for `tickets.downloaded` is read after the answer: a cached download costs the order lookup and one
  // R2 read on its way out.
  deps.defer(
    (async () => {
      const event = await deps.db.select().from(events).where(eq(events.id, order.eventId)).get();
      const qrcodes = (await deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id))).map((t) => t.id);
      const payload = { ...withoutLinks(presentOrder(linkBaseOf(deps.origin), order, event)), downloaded_at: formatDateTime(deps.now(), event?.timezone ?? deps.config.timezone), qrcodes };
      fireTopicLater(deps, "tickets.downloaded", { eventId: order.eventId, payload, source: `${deps.origin}${API_BASE}` });
    })(),
  );
  return result;
}

/** Anything an order's PDF shows changed: the cached copy goes (the next download renders again). */
export function purgeOrderPdf(deps: Deps, order: { eventId: number; uid: string }): void {
  deps.defer(deps.files.delete(ticketPdfKey(order)));
}

/** Something every PDF of an event shows changed (its name, date, types, layout, template): they all go. */
export function purgeEventPdfs(deps: Deps, eventId: number): void {
  deps.defer(deps.files.list(`tickets/${eventId}/`).then((keys) => deps.files.delete(keys)));
}
