import { asc, eq, sql } from "drizzle-orm";
import { isFinalOrder } from "../../db/order-status";
import { events, inputFields, orders, pdfTemplates, tickets, ticketTypes } from "../../db/schema";
import { type ApiError, fail } from "../../domain/errors";
import { sha256Hex } from "../../lib/crypto";
import { formatPhpDate } from "../../lib/php-date";
import { qrPayload, signerFor } from "../../lib/ticket-codes";
import { wallClockAt } from "../../lib/time";
import { mergePdfs } from "../../pdf/merge";
import { renderTickets, type TicketView } from "../../pdf/render-tickets";
import { PART_SIZE } from "../../pdf/ticket-parts";
import type { Deps } from "../../platform/deps";
import { LAYOUT_ORDER_NAMES } from "../../domain/catalogue-names";
import { allPersonalised } from "./personalisation.service";
import { ticketTypeLabel } from "../../domain/seat-plan";
import { ticketFonts } from "./ticket-fonts";
import { ticketPdfKey } from "../../platform/pdf-cache";
import type { EventRow, OrderRow, PdfTemplateRow, TicketRow, TicketTypeRow } from "../../db/rows";

/**
 * Rendering an order's ticket PDF, whole or a run of its pages at a time (decisions.md 7, 13 and 15): what it shows
 * is read in one batch, its pages put in order, and any run of them rendered. The download (ticket-pdfs.service.ts)
 * renders a small order at once; the queue renders a large one in parts (ticket-pdf-parts.service.ts).
 */

/** The event date in the event's own date format and zone ("" when unset). */
export function eventDateText(event: EventRow): string {
  return event.eventDate === null ? "" : formatPhpDate(wallClockAt(event.eventDate * 1000, event.timezone), event.eventDateFormat);
}

/** Everything an order's PDF shows, read in one batch: rendering uses it, and comparing two readings detects a change. */
export interface TicketPdfInputs {
  order: OrderRow;
  tickets: TicketRow[];
  events: EventRow[];
  types: TicketTypeRow[];
  fields: { id: string; name: string }[];
  templates: PdfTemplateRow[];
}

export async function readInputs({ db }: Deps, order: OrderRow): Promise<TicketPdfInputs | null> {
  const [orderRows, ticketRows, eventRows, types, fields, templates] = await db.batch([
    db.select().from(orders).where(eq(orders.id, order.id)),
    db.select().from(tickets).where(eq(tickets.orderId, order.id)).orderBy(asc(tickets.createdAt), asc(tickets.id)),
    db.select().from(events).where(sql`${events.id} = ${order.eventId} OR ${events.id} IN (SELECT event_id FROM tickets WHERE order_id = ${order.id})`),
    db.select().from(ticketTypes).where(eq(ticketTypes.eventId, order.eventId)),
    db.select({ id: inputFields.id, name: inputFields.name }).from(inputFields).where(eq(inputFields.eventId, order.eventId)),
    db
      .select()
      .from(pdfTemplates)
      .where(
        sql`${pdfTemplates.id} IN (SELECT attachment_id FROM ticket_types WHERE event_id = ${order.eventId})
          OR ${pdfTemplates.id} = (SELECT json_extract(ticket_pdf, '$.attachment_id') FROM events WHERE id = ${order.eventId})`,
      ),
  ]);
  const current = orderRows[0];
  return current ? { order: current, tickets: ticketRows, events: eventRows, types, fields, templates } : null;
}

/**
 * Why the order's tickets cannot be downloaded (yet), or null when they can: `404` when the order is not final or has
 * no tickets, `409 tickets_not_personalised` until every ticket that needs it is personalised.
 */
export async function downloadProblem(deps: Deps, inputs: TicketPdfInputs | null): Promise<ApiError | null> {
  if (!inputs || !isFinalOrder(inputs.order) || inputs.tickets.length === 0) return fail.tickets_not_found();
  if (!(await allPersonalised(deps, inputs.order))) {
    return fail.tickets_not_personalised();
  }
  return null;
}

/** Bumped when rendering changes what a page looks like, so parts rendered before a deploy are not stitched after it. */
const RENDER_VERSION = 2;

/**
 * What the PDF shows, as one hex digest: the inputs as read, the signing keys (the QR codes), the rendering version
 * and the part size (which pages each part holds). Parts are kept under it (platform/pdf-cache.ts).
 */
export function inputsFingerprint(deps: Deps, inputs: TicketPdfInputs): Promise<string> {
  const keys = deps.config.ticketSigningKeys.map((k) => `${k.kid}:${k.x}`);
  return sha256Hex(JSON.stringify({ render: RENDER_VERSION, part: PART_SIZE, keys, inputs }));
}

/** One page of the PDF: a ticket and the template it is drawn on (0: none). */
export interface TicketPage {
  ticket: TicketRow;
  templateId: number;
}

/**
 * The pages in PDF order: grouped by template (the type's, else the event's, else none) in the order the groups first
 * appear, each group in ticket order. Tickets of one template are rendered together, sharing one copy of it.
 */
export function pagesInOrder(inputs: TicketPdfInputs): TicketPage[] {
  const own = inputs.events.find((e) => e.id === inputs.order.eventId)!;
  const typeById = new Map(inputs.types.map((t) => [t.id, t]));
  const groups = new Map<number, TicketPage[]>();
  for (const ticket of inputs.tickets) {
    const type = typeById.get(ticket.ticketTypeId);
    const templateId = type?.attachmentId || (own.ticketsNeeded ? own.ticketPdf.attachment_id : 0);
    const group = groups.get(templateId) ?? [];
    group.push({ ticket, templateId });
    groups.set(templateId, group);
  }
  return [...groups.values()].flat();
}

/**
 * Renders `pages` (a run of pagesInOrder's) as one PDF, in their order. The info lines: event name, ticket type (with
 * its seat), event date, then the type's `layout` fields (order fields, personalised fields, Order-id, Name, Email)
 * or by default the order id, name and email.
 */
export async function renderPages(deps: Deps, inputs: TicketPdfInputs, pages: readonly TicketPage[]): Promise<Uint8Array> {
  const { order } = inputs;
  const eventsById = new Map(inputs.events.map((e) => [e.id, e]));
  const own = eventsById.get(order.eventId)!;
  const typeById = new Map(inputs.types.map((t) => [t.id, t]));
  const fieldIdByName = new Map(inputs.fields.map((f) => [f.name, f.id]));
  const orderValue = (name: string, personalisation: Record<string, string>): string => {
    if (name === "Order-id") return String(order.id);
    if (name === "Name") return order.name;
    if (name === "Email") return order.email;
    // By field id: a field renamed since the order still finds the order's answer (the layout follows renames).
    const id = fieldIdByName.get(name);
    const personal = id ? personalisation[id] : undefined;
    return personal ?? order.fields.find((f) => (id ? f.id === id : f.name === name))?.value ?? "";
  };

  const signer = signerFor(deps.config.ticketSigningKeys);
  // Consecutive pages of one template are rendered in one go, and the runs merged in order.
  const runs: { templateId: number; views: TicketView[] }[] = [];
  for (const { ticket: t, templateId } of pages) {
    const type = typeById.get(t.ticketTypeId);
    const event = eventsById.get(t.eventId) ?? own;
    const layout = type && type.layout.length > 0 ? type.layout : LAYOUT_ORDER_NAMES;
    const lines = [event.eventName, ticketTypeLabel(t), eventDateText(event), ...layout.map((name) => orderValue(name, t.personalisation))];
    const view = { qrPayload: await qrPayload(signer, t), ticketId: t.id, lines };
    const last = runs.at(-1);
    if (last?.templateId === templateId) last.views.push(view);
    else runs.push({ templateId, views: [view] });
  }
  const placement = {
    xMm: own.ticketPdf.x_position,
    yMm: own.ticketPdf.y_position,
    rotation: own.ticketPdf.rotation,
    scalePercent: own.ticketPdf.scale,
    border: !own.ticketPdf.no_border,
  };
  const fonts = ticketFonts(deps.files);
  const parts: Uint8Array[] = [];
  for (const { templateId, views } of runs) {
    const row = inputs.templates.find((r) => r.id === templateId);
    const bytes = row ? await deps.files.getBytes(row.fileKey) : null;
    parts.push(await renderTickets(bytes, views, placement, fonts));
  }
  return mergePdfs(parts);
}

export const pdfDisposition = (orderId: number) => `inline; filename="tickets-${orderId}.pdf"`;

/**
 * Caches a rendered PDF, unless what it shows changed while it was rendered: a change commits before its purge is
 * queued, so reading the inputs again after the put catches any change whose purge may have run before the put.
 * Answers whether it was kept.
 */
export async function keepPdf(deps: Deps, inputs: TicketPdfInputs, bytes: Uint8Array): Promise<boolean> {
  const key = ticketPdfKey(inputs.order.uid);
  await deps.files.put(key, bytes, "application/pdf", pdfDisposition(inputs.order.id));
  const again = await readInputs(deps, inputs.order);
  if (JSON.stringify(again) === JSON.stringify(inputs)) return true;
  await deps.files.delete(key);
  return false;
}
