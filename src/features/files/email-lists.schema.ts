import { z } from "zod";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { filePart } from "../../http/validate";
import type { EmailListSummary } from "./email-lists.service";

export const uploadEmailListForm = z.strictObject({ file: filePart });

export function presentEmailList(c: LinkBase, list: EmailListSummary) {
  return {
    event_id: list.eventId,
    total: list.total,
    _links: selfAndCollection(c, `/admin/emaillists/${list.eventId}`, "/admin/emaillists"),
  };
}
