import { eq } from "drizzle-orm";
import { pdfTemplates } from "../../db/schema";
import { isAdministrator, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";

/**
 * Whether an event or ticket type may name this PDF template (its `attachment_id`): administrators use every
 * template, other users only their own.
 */
export async function isTemplateUsableBy({ db }: Deps, user: AuthUser, templateId: number): Promise<boolean> {
  const row = await db.select({ authorId: pdfTemplates.authorId }).from(pdfTemplates).where(eq(pdfTemplates.id, templateId)).get();
  return row !== undefined && (isAdministrator(user) || row.authorId === user.id);
}
