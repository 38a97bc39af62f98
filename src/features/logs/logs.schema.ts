import { selfAndCollection, type LinkBase } from "../../http/links";
import { formatDateTime } from "../../lib/time";
import type { LogRow } from "../../db/rows";

export function presentLog(c: LinkBase, entry: LogRow, timezone: string) {
  return {
    id: entry.id,
    event_id: entry.eventId,
    order_id: entry.orderId,
    created_at: formatDateTime(entry.createdAt, timezone),
    log_type: entry.logType,
    description: entry.description,
    _links: selfAndCollection(c, `/admin/logs/${entry.id}`, "/admin/logs"),
  };
}
