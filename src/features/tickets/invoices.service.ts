import { eq } from "drizzle-orm";
import { isFinalOrder } from "../../db/order-status";
import { events, tickets } from "../../db/schema";
import { fail } from "../../domain/errors";
import { centsToDecimal } from "../../lib/money";
import { formatPhpDate } from "../../lib/php-date";
import { wallClockAt } from "../../lib/time";
import { renderInvoice, type InvoiceView } from "../../pdf/render-invoice";
import type { Deps } from "../../platform/deps";
import { orderByUid } from "./personalisation.service";
import { invoiceLines } from "../../domain/pricing";
import { ticketFonts } from "./ticket-fonts";
import type { EventRow, OrderRow } from "../../db/rows";

const notAvailable = () => fail.rest_invoice_not_available();

const percent = (hundredths: number) => `${hundredths / 100}%`;

/** What the invoice shows, as text: lines per ticket type, the discount, totals and the VAT per rate. */
function invoiceView(order: OrderRow, event: EventRow): InvoiceView {
  const money = (cents: number) => `${centsToDecimal(cents)} ${order.currency}`;
  const { lines, byRate } = invoiceLines(
    order.lines.filter((l) => l.count > 0),
    order.discountCents,
  );
  const listCents = lines.reduce((n, l) => n + l.listCents, 0);
  const wall = (epochSeconds: number) => wallClockAt(epochSeconds * 1000, event.timezone);
  return {
    title: "Invoice",
    heading: [event.eventName, ...(event.eventDate === null ? [] : [formatPhpDate(wall(event.eventDate), event.eventDateFormat)])],
    details: [
      ["Order", String(order.id)],
      ["Date", formatPhpDate(wall(order.createdAt), "Y-m-d H:i")],
      ["Name", order.name],
      ["Email", order.email],
      ["Currency", order.currency],
    ],
    columns: ["Ticket type", "Count", "Unit price", "VAT", "Amount"],
    rows: lines.map((l) => [l.name, String(l.count), money(l.unitCents), percent(l.vatHundredths), money(l.listCents)]),
    totals: [
      ["Subtotal", money(listCents)],
      ...(order.discountCents > 0 ? [["Discount", money(-order.discountCents)] as [string, string]] : []),
      ["Total", money(order.totalCents)],
      ...byRate.flatMap((r): [string, string][] => [
        [`Excluding VAT ${percent(r.vatHundredths)}`, money(r.netCents)],
        [`VAT ${percent(r.vatHundredths)}`, money(r.vatCents)],
      ]),
    ],
    footer: `Prices include VAT. Amounts in ${order.currency}. Proof of purchase for order ${order.id}.`,
  };
}

/**
 * `GET /invoices/<uid>` (decisions.md 7, 13): a one-page PDF proof of purchase, for events with `invoice_needed`
 * and orders that have tickets; anything else is `404 rest_invoice_not_available`.
 */
export async function invoicePdf(deps: Deps, uid: string): Promise<{ bytes: Uint8Array; order: OrderRow }> {
  const order = await orderByUid(deps, uid);
  const [eventRows, ticketRows] = await deps.db.batch([
    deps.db.select().from(events).where(eq(events.id, order.eventId)),
    deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, order.id)).limit(1),
  ]);
  const event = eventRows[0];
  if (!event?.invoiceNeeded || !isFinalOrder(order) || ticketRows.length === 0) throw notAvailable();
  return { bytes: await renderInvoice(invoiceView(order, event), ticketFonts(deps.files)), order };
}
