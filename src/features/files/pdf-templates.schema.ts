import { z } from "zod";
import { TEMPLATE_TYPES } from "../../db/schema";
import { apiUrl, selfAndCollection, type LinkBase } from "../../http/links";
import { filePart } from "../../http/validate";
import { formatDateTime } from "../../lib/time";
import type { PdfTemplateRow } from "../../db/rows";

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

export type PdfTemplateChanges = { title?: string; type?: (typeof TEMPLATE_TYPES)[number]; author_id?: number; file?: File };

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
  };
}
