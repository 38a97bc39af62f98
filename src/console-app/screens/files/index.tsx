import type { Route } from "../../router";
import { EmailLists } from "./email-lists";
import { PdfTemplates, PdfTemplateScreen } from "./pdf-templates";

export { EmailList } from "./email-lists";

// PDF templates (list, upload, change, preview, delete) and email lists; the event page's "Email list" section is
// EmailList (docs/console.md).
export const filesRoutes: Route[] = [
  { pattern: "/pdf-templates", screen: () => <PdfTemplates /> },
  { pattern: "/pdf-templates/:id", screen: ({ id = "" }) => <PdfTemplateScreen id={id} /> },
  { pattern: "/email-lists", screen: () => <EmailLists /> },
];
