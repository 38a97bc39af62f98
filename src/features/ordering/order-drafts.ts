import { asc, eq } from "drizzle-orm";
import { inputFields, ticketTypes, type OrderFieldValue, type OrderLine, type OrderSeats } from "../../db/schema";
import { randomString } from "../../lib/random";
import type { Deps } from "../../platform/deps";
import { checkFieldAnswers, checkOrderSize, checkTicketLines, ticketsOfLines, type FieldAnswer, type TicketLine } from "../../domain/order-rules";
import { orderTotals, unitPriceCents, type OrderTotals } from "../../domain/pricing";
import { passePartoutChildren, planStock, type StockPlan } from "./stock.service";
import type { TicketSeed } from "../../domain/order-rules";
import type { EventRow, TicketTypeRow } from "../../db/rows";
import { fail } from "../../domain/errors";

/**
 * An order checked and priced but not yet placed: what the order rules produce for one event, before stock is
 * held and D1 written (order-placement.ts). Dashboard and customer orders draft the same way.
 */
export interface OrderDraft {
  event: EventRow;
  uid: string;
  lines: TicketLine[];
  priced: OrderLine[];
  fields: OrderFieldValue[];
  /** Password answers by field name: checked, sent to an eligibility server, never stored. */
  passwords: Map<string, string>;
  totals: OrderTotals;
  children: EventRow[];
  seeds: TicketSeed[];
  /** The tickets the order issues once final (decisions.md 15 caps them), also while `seeds` is still empty. */
  ticketCount: number;
  plan: StockPlan;
  /** The coupon this order carries the use of (set by applyCoupon on the purchase's first order). */
  couponId?: number | null;
}

/** The order `uid`: 40 characters of [A-Za-z0-9], a capability for the public download. */
export const newOrderUid = () => randomString(40);
const newTicketId = () => randomString(16);

export interface Catalogue {
  types: TicketTypeRow[];
  fields: (typeof inputFields.$inferSelect)[];
}

/** The statements that read an event's ticket types and input fields, for a caller's batch. */
export function catalogueStatements({ db }: Deps, eventId: number) {
  return [
    db.select().from(ticketTypes).where(eq(ticketTypes.eventId, eventId)).orderBy(asc(ticketTypes.position)),
    db.select().from(inputFields).where(eq(inputFields.eventId, eventId)).orderBy(asc(inputFields.position)),
  ] as const;
}

export async function catalogueOf(deps: Deps, eventId: number): Promise<Catalogue> {
  const [types, fields] = await deps.db.batch(catalogueStatements(deps, eventId));
  return { types, fields };
}

/**
 * One ticket per unit of each line at the event; a passe-partout instead gives one per unit at each child event
 * and none at itself (decisions.md 15: "P itself gets no ticket"). The event's tickets take the order's seat texts
 * in turn (`seats`, when the event is seated).
 */
export function ticketSeeds(event: EventRow, lines: readonly TicketLine[], children: readonly EventRow[], seats: readonly string[] = []): TicketSeed[] {
  const seeds: TicketSeed[] = [];
  const atEvent = event.groupType !== 3;
  for (const { type, count } of lines) {
    // Every name a `personalise` list holds is a personalised field of the event (catalogue-names, migration 0003).
    const personalise = type.personalise.length > 0;
    for (let i = 0; i < count; i++) {
      if (atEvent) seeds.push({ id: newTicketId(), eventId: event.id, eventName: event.eventName, typeId: type.id, typeName: type.name, seat: "", personalise });
      for (const child of children)
        seeds.push({ id: newTicketId(), eventId: child.id, eventName: child.eventName, typeId: type.id, typeName: type.name, seat: "", personalise: false });
    }
  }
  return withSeats(seeds, event.id, seats);
}

/**
 * The tickets one unit of `type` issues at `event` (its own, and a passe-partout's at each child), counted by
 * drawing them as ticketSeeds does, so that the count follows whatever ticketSeeds issues.
 */
function ticketsPerUnit(event: EventRow, type: TicketTypeRow, children: readonly EventRow[]): number {
  return ticketSeeds(event, [{ type, count: 1 }], children).length;
}

/** The tickets `lines` issue at `event` (decisions.md 15 caps them), without drawing them. */
export function ticketCountOf(event: EventRow, lines: readonly TicketLine[], children: readonly EventRow[]): number {
  const first = lines.find((l) => l.count > 0);
  return first ? ticketsOfLines(lines, ticketsPerUnit(event, first.type, children)) : 0;
}

/** The event's tickets take the seat texts in turn (seeds drawn before the seats were held get them here). */
export function withSeats(seeds: readonly TicketSeed[], eventId: number, seats: readonly string[]): TicketSeed[] {
  let next = 0;
  return seeds.map((s) => (s.eventId === eventId && next < seats.length ? { ...s, seat: seats[next++]! } : s));
}

function priceLines(lines: readonly TicketLine[]): OrderLine[] {
  return lines.map(({ type, count }) => ({
    typeId: type.id,
    name: type.name,
    unitCents: unitPriceCents(type.priceCents, type.volumePrice, count),
    vatHundredths: type.vatHundredths,
    isCounted: type.isCounted,
    count,
  }));
}

/** Stored answers: password answers are checked but never stored. */
function storedFields(answers: readonly FieldAnswer[]): OrderFieldValue[] {
  return answers.filter((a) => a.field.type !== "password").map((a) => ({ id: a.field.id, name: a.field.name, value: a.value }));
}

/**
 * Checks the ticket lines and input fields of one event's order and prices it; `chargedCents` (a dashboard
 * `amount`) overrides the total. Stock is planned, not yet held; tickets are drawn only for a final order.
 */
export async function draftOrder(
  deps: Deps,
  event: EventRow,
  counts: ReadonlyMap<string, number>,
  sentFields: ReadonlyMap<string, string>,
  options: { final: boolean; chargedCents?: number; catalogue?: Catalogue },
): Promise<OrderDraft> {
  const { types, fields } = options.catalogue ?? (await catalogueOf(deps, event.id));
  const lines = checkTicketLines(types, counts);
  const answers = checkFieldAnswers(fields, sentFields);
  const children = event.groupType === 3 ? await passePartoutChildren(deps, event) : [];
  if (event.groupType === 3 && children.length === 0) throw fail.order_no_child_events();
  const ticketCount = ticketCountOf(event, lines, children);
  checkOrderSize(ticketCount);
  const priced = priceLines(lines);
  const totals = orderTotals(priced, options.chargedCents);
  // Tickets exist once an order is final; an open order's come with its payment.
  const seeds = options.final
    ? ticketSeeds(
        event,
        lines.filter((l) => l.count > 0),
        children,
      )
    : [];
  const plan = await planStock(deps, event, lines, seeds, children);
  const passwords = new Map(answers.filter((a) => a.field.type === "password" && a.value !== "").map((a) => [a.field.name, a.value]));
  return { event, uid: newOrderUid(), lines, priced, fields: storedFields(answers), passwords, totals, children, seeds, ticketCount, plan };
}

/**
 * New tickets for a placed order, from its recorded lines (names as ordered) and the event's current types and
 * passe-partout children. A type deleted since the order cannot have its tickets issued.
 */
export async function seedsForOrder(
  deps: Deps,
  order: { eventId: number; lines: readonly OrderLine[]; seats: OrderSeats | null },
  event: EventRow,
): Promise<TicketSeed[]> {
  const { types } = await catalogueOf(deps, event.id);
  const byId = new Map(types.map((t) => [t.id, t]));
  const lines: TicketLine[] = order.lines
    .filter((l) => l.count > 0)
    .map((l) => {
      const type = byId.get(l.typeId);
      if (!type) throw fail.order_ticket_type_gone(`Ticket type "${l.name}" no longer exists; its tickets cannot be issued.`);
      return { type: { ...type, name: l.name }, count: l.count };
    });
  const children = event.groupType === 3 ? await passePartoutChildren(deps, event) : [];
  return ticketSeeds(event, lines, children, order.seats?.labels);
}
