import { selfAndCollection, type LinkBase } from "../../http/links";
import { formatDateTime } from "../../lib/time";
import type { LogRow } from "../../db/rows";
import { z } from "zod";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { dateTimeView, deletedView, linksView } from "../../http/view-types";

/** A log entry as the API shows it (spec: Log entry). */
const logView = named(
  "LogEntry",
  z.object({
    id: z.number().int(),
    event_id: z.number().int().describe("0: not about one event."),
    order_id: z.number().int().describe("0: not about one order."),
    created_at: dateTimeView,
    log_type: z.string(),
    description: z.string(),
    _links: linksView,
  }),
);

const NEWEST = "The newest 1000 entries, on one page; `X-WP-Total` counts them all.";

/** The routes of `/admin/logs` (spec: Error logs). */
export const logsApi = {
  list: {
    operationId: "listLogEntries",
    summary: "List log entries",
    description: `${NEWEST} An organizer sees those of its events.`,
    success: answers.collection(logView),
  },
  ofOrder: { operationId: "listOrderLogEntries", summary: "List an order's log entries", description: NEWEST, success: answers.collection(logView) },
  get: {
    operationId: "getLogEntry",
    summary: "Get a log entry",
    description: "Not in the spec's table; it makes the entries' `self` links answer.",
    success: answers.ok(logView),
  },
  delete: {
    operationId: "deleteLogEntry",
    summary: "Delete a log entry",
    description: "Entries of no event are the administrators' alone.",
    success: answers.ok(deletedView(logView.omit({ _links: true })), "`deleted` and the entry as it was, without `_links`."),
  },
} satisfies Record<string, RouteDoc>;

export function presentLog(c: LinkBase, entry: LogRow, timezone: string) {
  return {
    id: entry.id,
    event_id: entry.eventId,
    order_id: entry.orderId,
    created_at: formatDateTime(entry.createdAt, timezone),
    log_type: entry.logType,
    description: entry.description,
    _links: selfAndCollection(c, `/admin/logs/${entry.id}`, "/admin/logs"),
  } satisfies z.infer<typeof logView>;
}
