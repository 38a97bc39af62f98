import { z } from "zod";
import { LANGUAGES } from "../../domain/messages";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { pagingQueryShape } from "../../http/paging";
import { answers, named, OVERLOADED, type RouteDoc } from "../../http/route-docs";
import { deletedView, linksView, optionalDateTimeView } from "../../http/view-types";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import type { WaitingEntry } from "./waiting-list.service";

/** `POST /events/<event_id>/waiting-list` (decisions.md 15 "Selling like the peers"). */
export const joinWaitingListBody = z.strictObject({
  // Checked by the order rules' own texts (domain/order-rules.ts `checkOrderer`), as an order's are.
  name: z.string().optional(),
  email: z.string().optional(),
  ticket_type_id: z.string().min(1, "must name a ticket type").max(100),
  count: z.number().int("must be a whole number").min(1, "must be at least 1").max(1000, "must be at most 1000"),
  lang: z.enum(LANGUAGES).optional().describe("The language of the offer's email (`en` when not given)."),
});
export type JoinWaitingListInput = z.output<typeof joinWaitingListBody>;

export const listWaitingListQuery = z.strictObject({
  per_page: pagingQueryShape.per_page,
  page: pagingQueryShape.page,
  offset: pagingQueryShape.offset,
});

const int = z.number().int();
const STATES = ["waiting", "offered", "ordered", "expired"] as const;

/** An entry as the buyer who joined sees it. */
const joinedView = named(
  "WaitingListJoin",
  z.object({
    id: int,
    event_id: int,
    ticket_type_id: z.string(),
    name: z.string(),
    email: z.string(),
    count: int,
    state: z.enum(STATES),
    created_at: z.string(),
  }),
);

/** An entry as the organiser sees it. */
const entryView = named(
  "WaitingListEntry",
  z.object({
    id: int,
    event_id: int,
    ticket_type_id: z.string(),
    ticket_type: z.string().describe('The type\'s name (`""` when the type was deleted since).'),
    name: z.string(),
    email: z.string(),
    count: int,
    state: z
      .enum(STATES)
      .describe(
        "`waiting` in line; `offered`: an email with a personal link holds `count` units until `offer_expires_at`; `ordered` through the offer; `expired`: the offer was not used and went to the next.",
      ),
    created_at: z.string(),
    offered_at: optionalDateTimeView,
    offer_expires_at: optionalDateTimeView,
    order_id: int.nullable().describe("The order placed through the offer (null before, or once that order was deleted)."),
    _links: linksView,
  }),
);

const ENTRY_404 = { "404": "`rest_event_invalid_id`, `rest_waiting_list_entry_invalid_id`." };

/** The routes of the waiting list (decisions.md 15 "Selling like the peers"). */
export const waitingListApi = {
  join: {
    operationId: "joinWaitingList",
    summary: "Join an event's waiting list",
    description:
      "With the API key or the ordering key. When a ticket type is sold out, puts the buyer in line for `count` units of it; when units come back the first entries that fit get an email with a personal link holding them for `WAITING_LIST_HOURS`. One entry per email and type.",
    success: answers.created(joinedView, "Created: the entry, in line."),
    errors: {
      "400":
        "`rest_invalid_param`, the order rules' `order_missing_input`, `order_invalid_email`, `order_name_too_long`, `order_email_too_long`; `waiting_list_closed` (the event has no waiting list); `order_event_inactive` (the sale has ended).",
      "409": "`waiting_list_not_sold_out` (at least `count` are on sale: order them), `waiting_list_duplicate` (this email is already in line for this type).",
      "503": OVERLOADED,
    },
  },
  list: {
    operationId: "listWaitingList",
    summary: "List an event's waiting list",
    description: "In the order the entries joined, paged, each with its state.",
    success: answers.collection(entryView),
  },
  get: {
    operationId: "getWaitingListEntry",
    summary: "Get a waiting-list entry",
    description: "The entry with its state; an entry deleted by the organiser is gone.",
    success: answers.ok(entryView),
    errors: ENTRY_404,
  },
  delete: {
    operationId: "deleteWaitingListEntry",
    summary: "Delete a waiting-list entry",
    description: "Takes the entry out of line; an offer it holds ends and its units go to the next in line.",
    success: answers.ok(deletedView(entryView)),
    errors: ENTRY_404,
  },
} satisfies Record<string, RouteDoc>;

export function presentJoined(entry: WaitingEntry, timezone: string) {
  return {
    id: entry.id,
    event_id: entry.eventId,
    ticket_type_id: entry.ticketTypeId,
    name: entry.name,
    email: entry.email,
    count: entry.count,
    // A deleted entry is never shown: it is gone from the list when it is marked.
    state: entry.state === "deleted" ? "expired" : entry.state,
    created_at: formatDateTime(entry.createdAt, timezone),
  } satisfies z.infer<typeof joinedView>;
}

export function presentEntry(c: LinkBase, entry: WaitingEntry, timezone: string) {
  return {
    ...presentJoined(entry, timezone),
    ticket_type: entry.ticketTypeName ?? "",
    offered_at: formatOptionalDateTime(entry.offeredAt, timezone),
    offer_expires_at: formatOptionalDateTime(entry.offerExpiresAt, timezone),
    order_id: entry.orderId,
    _links: selfAndCollection(c, `/admin/events/${entry.eventId}/waiting-list/${entry.id}`, `/admin/events/${entry.eventId}/waiting-list`),
  } satisfies z.infer<typeof entryView>;
}
