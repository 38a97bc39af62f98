import { z } from "zod";
import { VOLUME_PRICE_MIN_COUNT, type VolumePrice } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { centsToAmount, parseCents } from "../../lib/money";
import { formatNameList } from "../../domain/catalogue-names";
import { count, money } from "../../http/field-types";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { amountView, deletedView, linksView } from "../../http/view-types";
import type { TicketTypeRow } from "../../db/rows";

/** `[{"5": 9.5}, {"10": 9}]`: ticket count (2 or more, each once) to unit price; read sorted by count. */
const volumePrice = z
  .array(z.record(z.string(), z.unknown()))
  .max(50, "must have at most 50 entries")
  .transform((entries, ctx): VolumePrice[] => {
    const out: VolumePrice[] = [];
    for (const [i, entry] of entries.entries()) {
      const keys = Object.keys(entry);
      if (keys.length !== 1) {
        ctx.addIssue({ code: "custom", path: [i], message: "each entry maps one ticket count to one price" });
        return z.NEVER;
      }
      const key = keys[0]!;
      const value = entry[key];
      const cents = typeof value === "number" || typeof value === "string" ? parseCents(value) : null;
      if (!/^\d{1,6}$/.test(key) || Number(key) < VOLUME_PRICE_MIN_COUNT) {
        ctx.addIssue({ code: "custom", path: [i], message: `count "${key}" must be a whole number of at least ${VOLUME_PRICE_MIN_COUNT}` });
        return z.NEVER;
      }
      if (cents === null) {
        ctx.addIssue({ code: "custom", path: [i], message: "price must be a non-negative amount with at most 2 decimals" });
        return z.NEVER;
      }
      out.push({ count: Number(key), cents });
    }
    out.sort((a, b) => a.count - b.count);
    if (out.some((v, i) => i > 0 && out[i - 1]!.count === v.count)) {
      ctx.addIssue({ code: "custom", message: "names a ticket count twice" });
      return z.NEVER;
    }
    return out;
  });

/** VAT percent 0-100 with at most two decimals, read as hundredths of a percent. */
const vat = money.refine((hundredths) => hundredths <= 10_000, "must be between 0 and 100");

const name = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .refine((s) => !s.includes(","), "must not contain a comma");

const nameList = z.string().max(2000, "must be at most 2000 characters");

const ticketTypeFields = {
  name,
  price: money,
  volume_price: volumePrice,
  vat,
  stock_control: z.boolean(),
  stock: count(),
  minimum_to_order: count(100_000),
  maximum_to_order: count(100_000),
  is_counted: z.boolean(),
  show_remaining: z.boolean(),
  attachment_id: count(Number.MAX_SAFE_INTEGER),
  personalise: nameList,
  layout: nameList,
};

export const TICKET_TYPE_CREATE_READ_ONLY = ["id", "sold"] as const;
export const TICKET_TYPE_UPDATE_READ_ONLY = ["id", "sold"] as const;

export const createTicketTypeBody = z.strictObject(ticketTypeFields).partial().required({ name: true, price: true });
export const updateTicketTypeBody = z.strictObject(ticketTypeFields).partial();
export type TicketTypeInput = z.output<typeof updateTicketTypeBody>;

const int = z.number().int();

/** A ticket type as the API shows it (spec: Ticket type). */
export const ticketTypeView = named(
  "TicketType",
  z.object({
    id: z.string(),
    name: z.string(),
    price: amountView,
    volume_price: z.array(z.record(z.string(), amountView)).describe("Each entry maps a ticket count to the unit price from that count on."),
    vat: z.number().describe("VAT in percent."),
    stock_control: z.boolean(),
    stock: int.optional().describe("Only with `stock_control`."),
    sold: int,
    minimum_to_order: int,
    maximum_to_order: int,
    is_counted: z.boolean(),
    show_remaining: z.boolean(),
    attachment_id: int,
    personalise: z.string(),
    layout: z.string(),
    _links: linksView,
  }),
);

/** The routes of `/admin/events/<event_id>/ticket-types` (spec: Ticket types). */
export const ticketTypesApi = {
  list: {
    operationId: "listTicketTypes",
    summary: "List an event's ticket types",
    description: "Every ticket type of the event, on one page.",
    success: answers.collection(ticketTypeView),
  },
  create: {
    operationId: "createTicketType",
    summary: "Create a ticket type",
    description: "`name` and `price` are required; `stock` only with `stock_control`. The answer leaves `sold` out (spec).",
    success: answers.created(ticketTypeView.omit({ sold: true })),
    errors: { "409": "`rest_conflict`: the event already has a ticket type of this name." },
  },
  get: { operationId: "getTicketType", summary: "Get a ticket type", description: "`_fields` narrows the answer.", success: answers.ok(ticketTypeView) },
  update: {
    operationId: "updateTicketType",
    summary: "Change a ticket type",
    description: "Changes the fields sent; `id` and `sold` may be sent back unchanged.",
    success: answers.ok(ticketTypeView),
    errors: { "409": "`rest_conflict`: another ticket type has this name, or the input fields named changed meanwhile." },
  },
  delete: {
    operationId: "deleteTicketType",
    summary: "Delete a ticket type",
    description: "Only a ticket type nothing refers to: no sold tickets, no scan key or coupon naming it.",
    success: answers.ok(deletedView(ticketTypeView.omit({ id: true, _links: true })), "`deleted` and the ticket type as it was, without `id` and `_links`."),
    errors: { "409": "`rest_conflict`: the ticket type has sold tickets, or a scan key or coupon names it." },
  },
} satisfies Record<string, RouteDoc>;

/** A ticket type as the API shows it: `stock` only with stock control. */
export function presentTicketType(c: LinkBase, t: TicketTypeRow) {
  return {
    id: t.id,
    name: t.name,
    price: centsToAmount(t.priceCents),
    volume_price: t.volumePrice.map((v) => ({ [String(v.count)]: centsToAmount(v.cents) })),
    vat: t.vatHundredths / 100,
    stock_control: t.stockControl,
    ...(t.stockControl ? { stock: t.stock } : {}),
    sold: t.sold,
    minimum_to_order: t.minimumToOrder,
    maximum_to_order: t.maximumToOrder,
    is_counted: t.isCounted,
    show_remaining: t.showRemaining,
    attachment_id: t.attachmentId,
    personalise: formatNameList(t.personalise),
    layout: formatNameList(t.layout),
    _links: selfAndCollection(c, `/admin/events/${t.eventId}/ticket-types/${t.id}`, `/admin/events/${t.eventId}/ticket-types`),
  } satisfies z.infer<typeof ticketTypeView>;
}
