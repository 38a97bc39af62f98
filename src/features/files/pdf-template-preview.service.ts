import type { TicketPdfSettings } from "../../db/schema";
import type { AuthUser } from "../../domain/authority";
import { invalidId } from "../../domain/errors";
import { renderTickets, type QrBlockPlacement, type TicketView } from "../../pdf/render-tickets";
import type { Deps } from "../../platform/deps";
import { DEFAULT_TICKET_PDF, getEventFor } from "../catalogue/events.service";
import { getPdfTemplateFor } from "./pdf-templates.service";

/**
 * The console's preview of a PDF template (decisions.md 15 "The organiser console"): one ticket on the template with
 * sample data, laid out by an event's ticket settings or by a new event's defaults. The lines follow a real ticket's
 * order (event name, ticket type, event date, then order id, name and email: docs/tickets-pdf.md).
 *
 * The code is plainly a sample: not 16 letters and digits (a plain ticket id) and without a dot (a signed code), so
 * no scanner or door app takes it for any ticket (lib/ticket-codes.ts `ticketIdOfCode`); it is not signed either.
 */
export const SAMPLE_TICKET: TicketView = {
  qrPayload: "SAMPLE TICKET - NOT VALID FOR ENTRY",
  ticketId: "SAMPLE-TICKET",
  lines: ["Sample event", "Sample", "2031-07-04 21:15", "12345", "Ada Lovelace", "ada@example.com"],
};

function placementOf(settings: TicketPdfSettings): QrBlockPlacement {
  return { xMm: settings.x_position, yMm: settings.y_position, rotation: settings.rotation, scalePercent: settings.scale, border: !settings.no_border };
}

/**
 * The preview's PDF: the template under its owner rule (404 unknown, 403 another user's), the event (when named)
 * under the event rule (404 unknown, 403 outside the user's events: decisions.md 13). Rendered with the PDF's
 * standard fonts: the sample lines are plain Latin.
 */
export async function previewPdfTemplate(deps: Deps, user: AuthUser, templateId: number, eventId: number | undefined): Promise<Uint8Array> {
  const { template } = await getPdfTemplateFor(deps, user, templateId);
  const settings = eventId === undefined ? DEFAULT_TICKET_PDF : (await getEventFor(deps, user, eventId)).ticketPdf;
  const bytes = await deps.files.getBytes(template.fileKey);
  if (!bytes) throw invalidId("pdf_template");
  return renderTickets(bytes, [SAMPLE_TICKET], placementOf(settings));
}
