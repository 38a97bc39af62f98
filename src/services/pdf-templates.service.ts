import { eq } from "drizzle-orm";
import { pdfTemplates } from "../db/schema";
import { isAdministrator, type AuthUser } from "./authority";
import type { Deps } from "./deps";

/** Administrators use every template; other users only their own. */
export async function isTemplateUsableBy({ db }: Deps, user: AuthUser, templateId: number): Promise<boolean> {
  const row = await db.select({ authorId: pdfTemplates.authorId }).from(pdfTemplates).where(eq(pdfTemplates.id, templateId)).get();
  return row !== undefined && (isAdministrator(user) || row.authorId === user.id);
}
