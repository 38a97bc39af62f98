import { z } from "zod";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { orderbyParam, pagingQueryShape } from "../../http/paging";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import type { EmailRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { dateTimeView, linksView, optionalDateTimeView } from "../../http/view-types";

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

/** An outbox row as the API shows it (decisions.md 13). */
const emailView = named(
  "Email",
  z.object({
    id: z.number().int(),
    to: z.string(),
    bcc: z.string(),
    from_name: z.string(),
    from_email: z.string(),
    subject: z.string(),
    body: z.string(),
    status: z.enum(["queued", "sent", "failed"]),
    attempts: z.number().int(),
    last_error: z.string(),
    event_id: z.number().int().describe("0: not about one event."),
    order_id: z.number().int().describe("0: not about one order."),
    created_at: dateTimeView,
    sent_at: optionalDateTimeView,
    _links: linksView,
  }),
);

/** The routes of `/admin/emails` (decisions.md 9, 13): the outbox, for administrators. */
export const emailsApi = {
  list: {
    operationId: "listEmails",
    summary: "List the outbox",
    description: "Every email the service sent or will send, paged; `search` matches the recipient's address.",
    success: answers.page(emailView),
  },
  get: { operationId: "getEmail", summary: "Get an email", description: "One outbox row, with the last error when a send failed.", success: answers.ok(emailView) },
} satisfies Record<string, RouteDoc>;

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
  } satisfies z.infer<typeof emailView>;
}
