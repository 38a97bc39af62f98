import { z } from "zod";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { orderbyParam, pagingQueryShape } from "../../http/paging";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import type { EmailRow } from "../../db/rows";

const idCsv = z
  .string()
  .regex(/^\s*\d{1,15}\s*(,\s*\d{1,15}\s*)*$/, "must be comma-separated ids")
  .transform((s) => [...new Set(s.split(",").map((p) => Number(p.trim())))]);

export const listEmailsQuery = z.object({
  ...pagingQueryShape,
  event_id: idCsv.optional(),
  order_id: idCsv.optional(),
  orderby: orderbyParam(["id", "event_id", "order_id", "to"] as const),
});

/** An outbox row (decisions.md 13, "The outbox row"), plus the last error when a send failed. */
export function presentEmail(c: LinkBase, e: EmailRow, timezone: string) {
  return {
    id: e.id,
    to: e.to,
    bcc: e.bcc,
    from_name: e.fromName,
    from_email: e.fromEmail,
    subject: e.subject,
    body: e.body,
    status: e.status,
    attempts: e.attempts,
    last_error: e.lastError,
    event_id: e.eventId,
    order_id: e.orderId,
    created_at: formatDateTime(e.createdAt, timezone),
    sent_at: formatOptionalDateTime(e.sentAt, timezone),
    _links: selfAndCollection(c, `/admin/emails/${e.id}`, "/admin/emails"),
  };
}
