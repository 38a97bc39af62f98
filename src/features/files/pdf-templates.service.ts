import { and, asc, eq, sql } from "drizzle-orm";
import { events, pdfTemplates, ticketTypes, users } from "../../db/schema";
import { conflict, forbidden, invalidId, invalidParams } from "../../domain/errors";
import { log } from "../../lib/log";
import { PAGE_TREE_TOO_LARGE, pdfTemplateProblem } from "../../pdf/template-check";
import { exceedsUnpackedBudget } from "../../pdf/unpacked-budget";
import type { PdfTemplateChanges } from "./pdf-templates.schema";
import { isAdministrator, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";
import { purgeEventPdfs } from "../../platform/pdf-cache";
import type { PdfTemplateRow } from "../../db/rows";

export interface PdfTemplateWithOwner {
  template: PdfTemplateRow;
  username: string;
}

const withOwner = (deps: Deps) =>
  deps.db
    .select({ template: pdfTemplates, username: sql<string>`coalesce(${users.username}, '')` })
    .from(pdfTemplates)
    .leftJoin(users, eq(users.id, pdfTemplates.authorId));

export async function listPdfTemplates(deps: Deps, user: AuthUser): Promise<PdfTemplateWithOwner[]> {
  const query = withOwner(deps);
  return (isAdministrator(user) ? query : query.where(eq(pdfTemplates.authorId, user.id))).orderBy(asc(pdfTemplates.id));
}

/** The template when the user may use it: 404 when it does not exist, 403 when it is another user's. */
export async function getPdfTemplateFor(deps: Deps, user: AuthUser, id: number): Promise<PdfTemplateWithOwner> {
  const row = await withOwner(deps).where(eq(pdfTemplates.id, id)).get();
  if (!row) throw invalidId("pdf_template");
  if (!isAdministrator(user) && row.template.authorId !== user.id) throw forbidden("This PDF template belongs to another user.");
  return row;
}

const UNPACKED_TOO_LARGE = "The PDF is too large when unpacked";

/**
 * The upload's bytes when they make a template; the unpacked size is checked first, as pdf-lib unpacks in memory,
 * and the page tree's budget (decisions.md 15) before its pages are counted. Both budgets answer with their sentence.
 */
async function checkedPdf(file: File): Promise<Uint8Array> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (await exceedsUnpackedBudget(bytes)) throw invalidParams({ file: UNPACKED_TOO_LARGE }, UNPACKED_TOO_LARGE);
  const problem = await pdfTemplateProblem(bytes);
  if (problem === PAGE_TREE_TOO_LARGE) throw invalidParams({ file: problem }, problem);
  if (problem) throw invalidParams({ file: problem });
  return bytes;
}

function newFileKey(): string {
  return `templates/${crypto.randomUUID()}.pdf`;
}

async function assertUserExists(deps: Deps, userId: number): Promise<void> {
  const row = await deps.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get();
  if (!row) throw invalidParams({ author_id: `user ${userId} does not exist` });
}

/** Only an administrator may name another owner; an organizer sending its own id changes nothing. */
async function ownerFor(deps: Deps, user: AuthUser, sent: number | undefined, current: number): Promise<number> {
  if (sent === undefined || sent === current) return current;
  if (!isAdministrator(user)) throw forbidden("Only an administrator may change the owner of a PDF template.");
  await assertUserExists(deps, sent);
  return sent;
}

/** The PDF goes to R2 first; when the D1 row cannot be written the object is removed again. */
export async function createPdfTemplate(
  deps: Deps,
  user: AuthUser,
  input: { title: string; file: File; type?: PdfTemplateRow["type"]; author_id?: number },
): Promise<PdfTemplateWithOwner> {
  const bytes = await checkedPdf(input.file);
  const authorId = await ownerFor(deps, user, input.author_id, user.id);
  const fileKey = newFileKey();
  await deps.files.put(fileKey, bytes, "application/pdf");
  const now = deps.now();
  try {
    const [template] = await deps.db
      .insert(pdfTemplates)
      .values({ title: input.title, type: input.type ?? "ticket", authorId, fileKey, createdAt: now, modifiedAt: now })
      .returning();
    return getPdfTemplateFor(deps, user, template!.id);
  } catch (err) {
    await deps.files.delete(fileKey);
    throw err;
  }
}

/**
 * A new file is written under a new key, the row is pointed at it, and only then is the old object deleted, so
 * a reader always finds a complete PDF (the old one or the new one).
 */
export async function updatePdfTemplate(deps: Deps, user: AuthUser, current: PdfTemplateRow, changes: PdfTemplateChanges): Promise<PdfTemplateWithOwner> {
  const authorId = await ownerFor(deps, user, changes.author_id, current.authorId);
  const bytes = changes.file ? await checkedPdf(changes.file) : null;
  const fileKey = bytes ? newFileKey() : current.fileKey;
  if (bytes) await deps.files.put(fileKey, bytes, "application/pdf");
  try {
    await deps.db
      .update(pdfTemplates)
      .set({ title: changes.title ?? current.title, type: changes.type ?? current.type, authorId, fileKey, modifiedAt: deps.now() })
      .where(eq(pdfTemplates.id, current.id));
  } catch (err) {
    if (bytes) await deps.files.delete(fileKey);
    throw err;
  }
  if (bytes) {
    await deps.files.delete(current.fileKey).catch((err) => log("warn", "old template file not deleted", { key: current.fileKey, error: String(err) }));
    await purgeEventPdfs(deps, await eventsUsing(deps, current.id));
  }
  return getPdfTemplateFor(deps, user, current.id);
}

/** The events whose ticket PDFs show the template (through a ticket type or the event's ticket settings). */
async function eventsUsing({ db }: Deps, id: number): Promise<number[]> {
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(sql`json_extract(${events.ticketPdf}, '$.attachment_id') = ${id} OR ${events.id} IN (SELECT event_id FROM ticket_types WHERE attachment_id = ${id})`);
  return rows.map((r) => r.id);
}

const namedByEventTickets = (id: number) => sql`json_extract(${events.ticketPdf}, '$.attachment_id') = ${id}`;

/**
 * Who uses the template: ticket types, and events' ticket settings while `tickets_needed` is on. An event naming it
 * while its tickets are off uses nothing and blocks no delete (decisions.md 15); the delete takes it out.
 */
async function templateUsers(deps: Deps, id: number): Promise<string[]> {
  const [types, eventRows] = await deps.db.batch([
    deps.db.select({ eventId: ticketTypes.eventId, name: ticketTypes.name }).from(ticketTypes).where(eq(ticketTypes.attachmentId, id)),
    deps.db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.ticketsNeeded, true), namedByEventTickets(id))),
  ]);
  return [...eventRows.map((e) => `event ${e.id}`), ...types.map((t) => `ticket type "${t.name}" of event ${t.eventId}`)];
}

export async function deletePdfTemplate(deps: Deps, current: PdfTemplateRow): Promise<void> {
  const users = await templateUsers(deps, current.id);
  if (users.length > 0) throw conflict(`The PDF template is in use by ${users.join(", ")}.`);
  await deps.db.batch([
    deps.db
      .update(events)
      .set({ ticketPdf: sql`json_set(${events.ticketPdf}, '$.attachment_id', 0)`, modifiedAt: deps.now() })
      .where(namedByEventTickets(current.id)),
    deps.db.delete(pdfTemplates).where(eq(pdfTemplates.id, current.id)),
  ]);
  await deps.files.delete(current.fileKey);
}

/** The template's PDF, for serving at its `url`. */
export async function pdfTemplateFile(deps: Deps, template: PdfTemplateRow) {
  const file = await deps.files.get(template.fileKey);
  if (!file) throw invalidId("pdf_template");
  return file;
}
