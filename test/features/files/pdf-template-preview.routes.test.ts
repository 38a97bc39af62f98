import { env } from "cloudflare:workers";
import { PageSizes, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { SAMPLE_TICKET } from "../../../src/features/files/pdf-template-preview.service";
import { qrMatrix, qrRuns } from "../../../src/lib/qr";
import { signerFor, ticketIdOfCode } from "../../../src/lib/ticket-codes";
import { call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent } from "../../helpers/catalogue";
import { makePdf, upload } from "../../helpers/uploads";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * `GET /admin/pdf-templates/<id>/preview` (decisions.md 15 "The organiser console"): one ticket with sample data on
 * the template, for the console's preview; the template's owner rule, and an optional event's layout settings.
 */

const MISSING_ID = 987654321;
const preview = (id: number | string, query = "", auth?: Credentials) => call("GET", `/admin/pdf-templates/${id}/preview${query}`, { auth });

async function createTemplate(pdf: Uint8Array, auth?: Credentials): Promise<number> {
  const body = await expectJson(upload("POST", "/admin/pdf-templates", { file: pdf, fields: { title: unique("Preview ") }, auth }), 201);
  return body.id as number;
}

async function expectPreview(res: Response | Promise<Response>): Promise<PDFDocument> {
  const response = await res;
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(response.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/pdf");
  return PDFDocument.load(bytes);
}

describe("GET /admin/pdf-templates/<id>/preview", () => {
  it("answers one page of the template's size with the sample ticket's lines, its id and its code", async () => {
    const id = await createTemplate(await makePdf(1, { size: PageSizes.Letter }));
    const doc = await expectPreview(preview(id));
    expect(doc.getPageCount()).toBe(1);
    const { width, height } = doc.getPage(0).getSize();
    expect([Math.round(width), Math.round(height)]).toEqual([612, 792]);

    const drawing = readPage(doc.getPage(0));
    const texts = drawing.lines.map((l) => l.text);
    for (const line of [...SAMPLE_TICKET.lines, SAMPLE_TICKET.ticketId]) expect(texts).toContain(line);
    expect(texts).toContain("Ada Lovelace");
    expect(texts).toContain("Sample");
    // The code: the fill with the most rectangles, one per run of dark modules of the sample payload.
    const code = drawing.fills.reduce((best, f) => (f.rects.length > best.rects.length ? f : best));
    expect(code.rects).toHaveLength(qrRuns(qrMatrix(SAMPLE_TICKET.qrPayload)).length);
  });

  it("draws a code that names no ticket: no plain id, no signed code of any event", async () => {
    const signer = signerFor(JSON.parse(env.TICKET_SIGNING_KEYS ?? "[]"));
    for (const eventId of [1, 2, 12345]) expect(await ticketIdOfCode(signer, eventId, SAMPLE_TICKET.qrPayload)).toBeNull();
    expect(SAMPLE_TICKET.ticketId).not.toMatch(/^[A-Za-z0-9]{16}$/);
  });

  it("uses an event's layout settings with ?event_id= (here: no border)", async () => {
    const id = await createTemplate(await makePdf(1));
    const event = await createEvent({
      event_name: unique("Preview "),
      pdf_fields: { ticket: { attachment_id: 0, x_position: 30, y_position: 40, rotation: 0, scale: 50, no_border: true } },
    });
    const plain = readPage((await expectPreview(preview(id))).getPage(0));
    const laidOut = readPage((await expectPreview(preview(id, `?event_id=${event.id}`))).getPage(0));
    expect(plain.strokes.length).toBeGreaterThan(0);
    expect(laidOut.strokes).toEqual([]);
    expect(laidOut.matrices).not.toEqual(plain.matrices);
  });

  it("follows the template's owner rule: another organizer's template is 403, an administrator sees any", async () => {
    const owner = await createUser("organizer");
    const other = await createUser("organizer");
    const id = await createTemplate(await makePdf(1), owner.credentials);
    await expectPreview(preview(id, "", owner.credentials));
    await expectError(preview(id, "", other.credentials), 403, "rest_forbidden");
    await expectPreview(preview(id));
  });

  it("answers 404 rest_pdf_template_invalid_id for unknown and malformed ids", async () => {
    for (const id of [MISSING_ID, "abc", 0]) await expectError(preview(id), 404, "rest_pdf_template_invalid_id");
  });

  it("refuses an event the user may not manage (403), an unknown event (404) and a malformed event_id (400)", async () => {
    const organizer = await createUser("organizer");
    const id = await createTemplate(await makePdf(1), organizer.credentials);
    const notTheirs = await createEvent({ event_name: unique("Not theirs ") });
    await expectError(preview(id, `?event_id=${notTheirs.id}`, organizer.credentials), 403, "rest_forbidden");
    await expectError(preview(id, `?event_id=${MISSING_ID}`), 404, "rest_event_invalid_id");
    for (const bad of ["abc", "0", "-1", "1.5", ""]) await expectError(preview(id, `?event_id=${bad}`), 400, "rest_invalid_param");
  });
});
