import { and, asc, eq, or } from "drizzle-orm";
import { events } from "../../db/schema";
import type { OrderFormView } from "./customer-orders.schema";
import { centsToAmount } from "../../lib/money";
import { formatOptionalDateTime } from "../../lib/time";
import type { Deps } from "../../platform/deps";
import { askEventObject, STALE } from "../catalogue/event-object-client";
import { catalogueOf } from "../ordering/order-drafts";
import { isOnSale } from "../../domain/order-rules";
import { remainingOfType, type Remaining } from "../../domain/stock-left";
import type { EventRow, InputFieldRow, TicketTypeRow } from "../../db/rows";

type ClosedReason = "not_started" | "ended" | "sold_out";

/**
 * The object's remaining stock, from its copy of the catalogue this event row names (or a newer one), asked through
 * the one client: an object without that copy is pushed it and asked again; one that stays behind is the `503`
 * an order gets (decisions.md 15 "Trust, second round"), not a form showing stock it cannot know.
 */
export async function remainingOf(deps: Deps, event: EventRow): Promise<Remaining> {
  const reply = await askEventObject(deps, {
    eventId: event.id,
    minVersion: event.configVersion,
    ask: (stub, minVersion) => stub.remaining(minVersion) as Promise<Remaining | null>,
    read: (answer) => answer ?? STALE,
  });
  if (!reply.ok) throw reply.error;
  return reply.value;
}

function closedReason(event: EventRow, now: number, remaining: Remaining, typeIds: readonly string[]): ClosedReason | null {
  if (!isOnSale(event, now)) return event.startDate !== null && now < event.startDate ? "not_started" : "ended";
  if (remaining.event !== null && remaining.event <= 0) return "sold_out";
  const left = typeIds.map((id) => remaining.types[id] ?? null);
  if (left.length > 0 && left.every((n) => n !== null && n <= 0)) return "sold_out";
  return null;
}

/** What an event's order form shows that only the organiser changes: its types, fields and a group's dates. */
export interface OrderFormParts {
  types: TicketTypeRow[];
  fields: InputFieldRow[];
  dates: EventRow[];
}

export async function orderFormParts(deps: Deps, event: EventRow): Promise<OrderFormParts> {
  const grouped = event.groupType === 1 || event.groupType === 2;
  const [{ types, fields }, dates] = await Promise.all([
    catalogueOf(deps, event.id),
    grouped
      ? deps.db
          .select()
          .from(events)
          .where(and(eq(events.eventGroup, event.eventGroup), or(eq(events.groupType, 1), eq(events.groupType, 2))))
          .orderBy(asc(events.eventDate), asc(events.id))
      : [],
  ]);
  return { types, fields, dates };
}

/**
 * `GET /events/<event_id>/order-form` (decisions.md 5.1): what a shop front needs to render the order form of an
 * event, whether it is open (and why not), and for grouped events the dates of the group. A caller that keeps the
 * event's parts (the shop page, decisions.md 15 "Weight and speed") passes them; what remains is always asked live.
 */
export async function orderForm(deps: Deps, event: EventRow, kept?: OrderFormParts): Promise<OrderFormView> {
  return (await orderFormWithStock(deps, event, kept)).view;
}

/**
 * The order form with the stock it was read from: the shop page tells sold-out types from it (its waiting list,
 * decisions.md 15 "Selling like the peers") without asking the event's object twice.
 */
export async function orderFormWithStock(deps: Deps, event: EventRow, kept?: OrderFormParts): Promise<{ view: OrderFormView; remaining: Remaining }> {
  const now = deps.now();
  const [{ types, fields, dates }, remaining] = await Promise.all([kept ?? orderFormParts(deps, event), remainingOf(deps, event)]);
  const reason = closedReason(
    event,
    now,
    remaining,
    types.map((t) => t.id),
  );
  const tz = event.timezone;
  const grouped = event.groupType === 1 || event.groupType === 2;
  const view = {
    event_id: event.id,
    event_name: event.eventName,
    event_date: formatOptionalDateTime(event.eventDate, tz),
    start_date: formatOptionalDateTime(event.startDate, tz),
    end_date: formatOptionalDateTime(event.endDate, tz),
    timezone: tz,
    open: reason === null,
    reason,
    currency: deps.config.currency,
    order_submit_text: event.orderSubmitText,
    terms: event.terms,
    coupon: event.couponsNeeded,
    recaptcha: event.recaptchaNeeded,
    waiting_list: event.waitingListNeeded,
    ticket_types: types.map((t) => ({
      id: t.id,
      name: t.name,
      price: centsToAmount(t.priceCents),
      vat: t.vatHundredths / 100,
      volume_price: t.volumePrice.map((v) => ({ [String(v.count)]: centsToAmount(v.cents) })),
      minimum_to_order: t.minimumToOrder,
      maximum_to_order: t.maximumToOrder,
      ...(t.showRemaining ? { remaining: remainingOfType(remaining, t.id, t.isCounted) } : {}),
    })),
    input_fields: fields
      .filter((f) => !f.isPersonalised)
      .map((f) => ({ id: f.id, name: f.name, type: f.type, value: f.value, min: f.min, max: f.max, is_required: f.isRequired })),
    group: grouped
      ? {
          group_type: event.groupType,
          event_group: event.eventGroup,
          dates: dates.map((d) => ({ event_id: d.id, event_name: d.eventName, event_date: formatOptionalDateTime(d.eventDate, d.timezone), open: isOnSale(d, now) })),
        }
      : null,
  } satisfies OrderFormView;
  return { view, remaining };
}
