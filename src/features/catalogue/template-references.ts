import { eq } from "drizzle-orm";
import { pdfTemplates } from "../../db/schema";
import { isAdministrator, type AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";

/**
 * Whether an event or ticket type may name this PDF template (its `attachment_id`): administrators use every
 * template, other users only their own. `unknown` and `forbidden` apart, so a caller can answer them as the
 * references of decisions.md 15 are answered (`400`, then `403`).
 */
export async function templateAccess({ db }: Deps, user: AuthUser, templateId: number): Promise<"usable" | "unknown" | "forbidden"> {
  const row = await db.select({ authorId: pdfTemplates.authorId }).from(pdfTemplates).where(eq(pdfTemplates.id, templateId)).get();
  if (row === undefined) return "unknown";
  return isAdministrator(user) || row.authorId === user.id ? "usable" : "forbidden";
}
