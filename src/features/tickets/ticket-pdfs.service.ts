import { asc, eq, sql } from "drizzle-orm";
import { isFinalOrder } from "../../db/order-status";
import { events, inputFields, orders, pdfTemplates, tickets, ticketTypes } from "../../db/schema";
import { ApiError } from "../../domain/errors";
import { formatPhpDate } from "../../lib/php-date";
import { qrPayload, signerFor } from "../../lib/ticket-codes";
import { wallClockAt } from "../../lib/time";
import { mergePdfs } from "../../pdf/merge";
import { renderTickets, type TicketView } from "../../pdf/render-tickets";
import type { Deps } from "../../platform/deps";
import { LAYOUT_ORDER_NAMES } from "../../domain/catalogue-names";
import { allPersonalised, orderByUid } from "./personalisation.service";
import { ticketTypeLabel } from "../../domain/seat-plan";
import { ticketFonts } from "./ticket-fonts";
import { isListenedTo } from "../messaging/webhook-deliveries.service";
import { ticketPdfKey } from "../../platform/pdf-cache";
import type { EventRow, OrderRow, PdfTemplateRow, TicketRow, TicketTypeRow } from "../../db/rows";

/** The event date in the event's own date format and zone ("" when unset). */
function eventDateText(event: EventRow): string {
  return event.eventDate === null ? "" : formatPhpDate(wallClockAt(event.eventDate * 1000, event.timezone), event.eventDateFormat);
}

/** Everything an order's PDF shows, read in one batch: rendering uses it, and comparing two readings detects a change. */
interface TicketPdfInputs {
  order: OrderRow;
  tickets: TicketRow[];
  events: EventRow[];
  types: TicketTypeRow[];
  fields: { id: string; name: string }[];
  templates: PdfTemplateRow[];
}

async function readInputs({ db }: Deps, order: OrderRow): Promise<TicketPdfInputs | null> {
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
 * The PDF of an order's tickets, rendered: grouped by template (the type's, else the event's, else none), each group
 * rendered and the parts merged in ticket order of the groups. The info lines: event name, ticket type (with its
 * seat), event date, then the type's `layout` fields (order fields, personalised fields, Order-id, Name, Email) or
 * by default the order id, name and email.
 */
async function render(deps: Deps, inputs: TicketPdfInputs): Promise<Uint8Array> {
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
  const groups = new Map<number, TicketView[]>();
  for (const t of inputs.tickets) {
    const type = typeById.get(t.ticketTypeId);
    const event = eventsById.get(t.eventId) ?? own;
    const layout = type && type.layout.length > 0 ? type.layout : LAYOUT_ORDER_NAMES;
    const lines = [event.eventName, ticketTypeLabel(t), eventDateText(event), ...layout.map((name) => orderValue(name, t.personalisation))];
    const template = type?.attachmentId || (own.ticketsNeeded ? own.ticketPdf.attachment_id : 0);
    const group = groups.get(template) ?? [];
    group.push({ qrPayload: await qrPayload(signer, t), lines });
    groups.set(template, group);
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
  for (const [templateId, views] of groups) {
    const row = inputs.templates.find((r) => r.id === templateId);
    const bytes = row ? await deps.files.getBytes(row.fileKey) : null;
    parts.push(await renderTickets(bytes, views, placement, fonts));
  }
  return mergePdfs(parts);
}

export interface TicketPdf {
  body: ReadableStream | Uint8Array;
  contentDisposition: string;
  cached: boolean;
}

const disposition = (orderId: number) => `inline; filename="tickets-${orderId}.pdf"`;

/**
 * `GET /tickets/<uid>` (decisions.md 7 and 13): the order's tickets as one PDF. A cached copy exists only once every
 * ticket is personalised, so its presence means the download is allowed: it is answered from R2 without asking D1.
 * Otherwise `404` without tickets, `409 tickets_not_personalised` until every ticket that needs it is personalised,
 * else rendered and kept. `tickets.downloaded` fires after the answer.
 */
export async function ticketPdf(deps: Deps, uid: string): Promise<TicketPdf> {
  const hit = await deps.files.get(ticketPdfKey(uid));
  if (hit) {
    deps.defer(() => queueDownloaded(deps, uid));
    return { body: hit.body, contentDisposition: hit.contentDisposition ?? disposition(0), cached: true };
  }
  const order = await orderByUid(deps, uid);
  const inputs = await readInputs(deps, order);
  if (!inputs || !isFinalOrder(inputs.order) || inputs.tickets.length === 0) throw new ApiError(404, "tickets_not_found", "This order has no tickets (yet).");
  if (!(await allPersonalised(deps, inputs.order))) {
    throw new ApiError(409, "tickets_not_personalised", "Every ticket must be personalised before the tickets can be downloaded.");
  }
  const bytes = await render(deps, inputs);
  await keep(deps, inputs, bytes);
  deps.defer(() => queueDownloaded(deps, uid));
  return { body: bytes, contentDisposition: disposition(order.id), cached: false };
}

/**
 * Caches a rendered PDF, unless what it shows changed while it was rendered: a change commits before its purge is
 * queued, so reading the inputs again after the put catches any change whose purge may have run before the put.
 */
async function keep(deps: Deps, inputs: TicketPdfInputs, bytes: Uint8Array): Promise<void> {
  const key = ticketPdfKey(inputs.order.uid);
  await deps.files.put(key, bytes, "application/pdf", disposition(inputs.order.id));
  const again = await readInputs(deps, inputs.order);
  if (JSON.stringify(again) !== JSON.stringify(inputs)) await deps.files.delete(key);
}

/**
 * The download's only cost beyond R2: after the answer, one queue message, whose consumer does the rest, and only
 * while some webhook listens to `tickets.downloaded`.
 */
async function queueDownloaded(deps: Deps, uid: string): Promise<void> {
  if (await isListenedTo(deps, "tickets.downloaded")) await deps.jobs.send({ v: 1, kind: "tickets.downloaded", uid, at: deps.now() });
}

/** The `pdf.purge` job: deletes the cached PDFs of the given orders and of every order with tickets at the events. */
export async function purgeTicketPdfs(deps: Deps, job: { uids: readonly string[]; eventIds: readonly number[] }): Promise<void> {
  await deps.files.delete(job.uids.map(ticketPdfKey));
  if (job.eventIds.length === 0) return;
  const ids = JSON.stringify(job.eventIds);
  let after = 0;
  for (;;) {
    // Orders of the events, and orders elsewhere holding tickets for them (a passe-partout's children), by id pages.
    const page = await deps.db
      .select({ id: orders.id, uid: orders.uid })
      .from(orders)
      .where(
        sql`${orders.id} > ${after} AND (${orders.eventId} IN (SELECT value FROM json_each(${ids}))
          OR ${orders.id} IN (SELECT order_id FROM tickets WHERE event_id IN (SELECT value FROM json_each(${ids}))))`,
      )
      .orderBy(asc(orders.id))
      .limit(1000);
    if (page.length === 0) return;
    await deps.files.delete(page.map((o) => ticketPdfKey(o.uid)));
    after = page[page.length - 1]!.id;
  }
}
