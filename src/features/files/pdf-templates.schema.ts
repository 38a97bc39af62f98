import { z } from "zod";
import { TEMPLATE_TYPES } from "../../db/schema";
import { apiUrl, selfAndCollection, type LinkBase } from "../../http/links";
import { filePart } from "../../http/validate";
import { formatDateTime } from "../../lib/time";
import type { PdfTemplateRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { dateTimeView, deletedView, linksView } from "../../http/view-types";

const title = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters");
const type = z.enum(TEMPLATE_TYPES, `must be one of ${TEMPLATE_TYPES.join(", ")}`);
/** Form parts are text: a number arrives as "7". */
const authorId = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d{1,15}$/, "must be a user id")
      .transform(Number),
  ])
  .pipe(z.number().int().positive("must be a user id"));

export const PDF_TEMPLATE_READ_ONLY = ["id", "created", "modified", "url", "username"] as const;

export const createPdfTemplateForm = z.strictObject({ title, file: filePart, type: type.optional(), author_id: authorId.optional() });
export const updatePdfTemplateJson = z.strictObject({ title, type, author_id: authorId }).partial();
export const updatePdfTemplateForm = z.strictObject({ title, type, author_id: authorId, file: filePart }).partial();

/** `GET .../preview`: the event whose ticket settings lay the sample out. */
export const previewPdfTemplateQuery = z.object({
  event_id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "must be an event id")
    .transform(Number)
    .optional()
    .describe("An event whose ticket settings lay the sample ticket out."),
});

export type PdfTemplateChanges = { title?: string; type?: (typeof TEMPLATE_TYPES)[number]; author_id?: number; file?: File };

/** A PDF template as the API shows it (spec: PDF template). */
const pdfTemplateView = named(
  "PdfTemplate",
  z.object({
    id: z.number().int(),
    title: z.string(),
    type: z.enum(TEMPLATE_TYPES),
    author_id: z.number().int(),
    created: dateTimeView,
    modified: dateTimeView,
    url: z.string().describe("Where the PDF is served (`GET /admin/pdf-templates/{id}/file`, same authentication)."),
    username: z.string().describe("The owner's username."),
    _links: linksView,
  }),
);

/** The routes of `/admin/pdf-templates` (spec: PDF templates). */
export const pdfTemplatesApi = {
  list: {
    operationId: "listPdfTemplates",
    summary: "List PDF templates",
    description: "An administrator sees every template; other users their own.",
    success: answers.collection(pdfTemplateView),
  },
  create: {
    operationId: "createPdfTemplate",
    summary: "Upload a PDF template",
    description: "A multipart upload: `file` (a one-page PDF, at most 10 MiB), `title`, optionally `type` and (administrators) `author_id`.",
    success: answers.created(pdfTemplateView),
  },
  get: {
    operationId: "getPdfTemplate",
    summary: "Get a PDF template",
    description: "Its owner or an administrator. `_fields` narrows the answer.",
    success: answers.ok(pdfTemplateView),
  },
  file: {
    operationId: "downloadPdfTemplateFile",
    summary: "Download a PDF template's file",
    description: "The PDF as uploaded; its owner or an administrator.",
    success: answers.pdf("The template's PDF."),
  },
  preview: {
    operationId: "previewPdfTemplate",
    summary: "Preview a PDF template",
    description:
      "One ticket on the template with sample data (its code is a sample, valid for no ticket), as the console shows it; its owner or an administrator. `event_id` lays the ticket out by that event's ticket settings (`pdf_fields.ticket`), else by a new event's defaults.",
    success: answers.pdf("One page: the template with the sample ticket's block."),
    errors: {
      "403": "`rest_forbidden`: another user's template, or an event outside the user's events.",
      "404": "`rest_pdf_template_invalid_id` or `rest_event_invalid_id`.",
    },
  },
  update: {
    operationId: "updatePdfTemplate",
    summary: "Change a PDF template",
    description: "JSON (`title`, `type`, `author_id`), or multipart with a new `file`. Only an administrator changes the owner.",
    success: answers.ok(pdfTemplateView),
  },
  delete: {
    operationId: "deletePdfTemplate",
    summary: "Delete a PDF template",
    description: "Only a template no event or ticket type uses.",
    success: answers.ok(deletedView(pdfTemplateView.omit({ _links: true })), "`deleted` and the template as it was, without `_links`."),
    errors: { "409": "`rest_conflict`: an event or ticket type uses the template." },
  },
} satisfies Record<string, RouteDoc>;

/** A template as the API shows it; `url` is where its PDF is served (same authentication and owner rule). */
export function presentPdfTemplate(c: LinkBase, t: PdfTemplateRow, username: string, timezone: string) {
  return {
    id: t.id,
    title: t.title,
    type: t.type,
    author_id: t.authorId,
    created: formatDateTime(t.createdAt, timezone),
    modified: formatDateTime(t.modifiedAt, timezone),
    url: apiUrl(c, `/admin/pdf-templates/${t.id}/file`),
    username,
    _links: selfAndCollection(c, `/admin/pdf-templates/${t.id}`, "/admin/pdf-templates"),
  } satisfies z.infer<typeof pdfTemplateView>;
}
