import { and, asc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { inIds } from "../../db/client";
import { events, orders, tickets, ticketTypes, type StockDeduction } from "../../db/schema";
import type { ObjectTicket, ReservationRequest, ReserveFailure, ReserveResult } from "../../event-object/stock-ledger";
import { fail, type ApiError } from "../../domain/errors";
import { log } from "../../lib/log";
import type { Deps } from "../../platform/deps";
import { inGroup } from "../catalogue/event-groups";
import { pushEventConfig } from "../catalogue/event-config.service";
import { askEventObject, STALE } from "../catalogue/event-object-client";
import { LIVE_STATUSES } from "../../db/order-status";
import type { TicketLine, TicketSeed } from "../../domain/order-rules";
import { ticketTypeLabel, type Seat } from "../../domain/seat-plan";
import type { EventRow } from "../../db/rows";

/**
 * The Worker's side of the hold / take / release protocol (docs/stock.md). An order reserves in each event object it
 * draws on, one after another; when one refuses, what was already held is released and the refusal is answered. Every
 * reservation is a hold with a deadline, so a crash between steps cannot leak stock for good.
 */

/** A new ticket's type as shown for it (with its seat). */
const seedTypeLabel = (seed: TicketSeed): string => ticketTypeLabel({ ticketTypeName: seed.typeName, seat: seed.seat });

/** A new ticket as its event object keeps it. */
export const objectTicket = (seed: TicketSeed): ObjectTicket => ({ id: seed.id, typeId: seed.typeId, typeName: seedTypeLabel(seed) });

/** A stored ticket as its event object keeps it. */
export const objectTicketOf = (row: { id: string; ticketTypeId: string; ticketTypeName: string; seat: string }): ObjectTicket => ({
  id: row.id,
  typeId: row.ticketTypeId,
  typeName: ticketTypeLabel(row),
});

interface StockStep {
  eventId: number;
  minVersion: number;
  request: ReservationRequest;
  /** The answer when this object refuses its stock (a refused seat is always `order_no_seats`). */
  refusal: (failure: Exclude<ReserveFailure, { kind: "stale" | "seats" }>) => ApiError;
}

export interface StockPlan {
  steps: StockStep[];
  /** What `sold` gains when the order is final (and loses when it is released). */
  deductions: StockDeduction[];
}

/** The events of a passe-partout's group that it admits to: the group's other events that are not passe-partouts. */
export async function passePartoutChildren({ db }: Deps, event: EventRow): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(and(inGroup(event.eventGroup), ne(events.id, event.id), ne(events.groupType, 3)))
    .orderBy(asc(events.id));
}

/**
 * Which objects an order on `event` draws on and with how many units: the event itself (its types and counted
 * units), its linked event (counted units, and the same-named type, names compared case-sensitively), and for a
 * passe-partout one unit per ticket of each child event, which also gets the child tickets.
 */
export async function planStock(
  deps: Deps,
  event: EventRow,
  lines: readonly TicketLine[],
  tickets: readonly TicketSeed[],
  children: readonly EventRow[],
): Promise<StockPlan> {
  const ordered = lines.filter((l) => l.count > 0);
  const counted = ordered.filter((l) => l.type.isCounted).reduce((n, l) => n + l.count, 0);
  const all = ordered.reduce((n, l) => n + l.count, 0);
  const steps: StockStep[] = [];
  const deductions: StockDeduction[] = [];

  steps.push({
    eventId: event.id,
    minVersion: event.configVersion,
    request: {
      uid: "",
      typeUnits: Object.fromEntries(ordered.map((l) => [l.type.id, l.count])),
      eventUnits: counted,
      tickets: tickets.filter((t) => t.eventId === event.id).map(objectTicket),
    },
    refusal: (f) => {
      if (f.kind === "type") {
        const type = lines.find((l) => l.type.id === f.typeId)!.type;
        return fail.order_stock_unavailable(`Not enough stock available for ticket-type: ${type.name} (${f.remaining})`, { subject: { ticketType: type.id } });
      }
      return fail.order_event_stock_unavailable(`No more stock available for "${event.eventName}"`);
    },
  });
  for (const l of ordered) deductions.push({ eventId: event.id, typeId: l.type.id, units: l.count, eventUnits: l.type.isCounted ? l.count : 0 });

  if (event.stockLink !== 0) {
    const [linked] = await deps.db.select().from(events).where(eq(events.id, event.stockLink));
    if (linked) {
      const linkedTypes = await deps.db.select().from(ticketTypes).where(eq(ticketTypes.eventId, linked.id));
      const byName = new Map(linkedTypes.map((t) => [t.name, t]));
      const typeUnits: Record<string, number> = {};
      for (const l of ordered) {
        const same = byName.get(l.type.name);
        if (same) typeUnits[same.id] = (typeUnits[same.id] ?? 0) + l.count;
        deductions.push({ eventId: linked.id, typeId: same?.id ?? null, units: l.count, eventUnits: l.type.isCounted ? l.count : 0 });
      }
      steps.push({
        eventId: linked.id,
        minVersion: linked.configVersion,
        request: { uid: "", typeUnits, eventUnits: counted, tickets: [] },
        refusal: () => fail.order_linked_stock_unavailable(`Not enough stock for linked event-id ${linked.id}`),
      });
    }
  }

  for (const child of [...children].sort((a, b) => a.id - b.id)) {
    steps.push({
      eventId: child.id,
      minVersion: child.configVersion,
      request: {
        uid: "",
        typeUnits: {},
        eventUnits: all,
        tickets: tickets.filter((t) => t.eventId === child.id).map(objectTicket),
      },
      refusal: () => fail.order_event_stock_unavailable(`No more stock available for "${child.eventName}"`),
    });
    deductions.push({ eventId: child.id, typeId: null, units: all, eventUnits: all });
  }

  // Seats come from the event's own plan or the plan of its seats' linked event, asked of that plan's object
  // (after the stock checks); an object not already asked gets a step, and a deduction of nothing so that every
  // release reaches it.
  const seated = ordered.filter(() => event.seatsNeeded).reduce((n, l) => n + l.count, 0);
  if (seated > 0) {
    const planEventId = event.seats.linked_event || event.id;
    const existing = steps.find((s) => s.eventId === planEventId);
    if (existing) existing.request.seats = seated;
    else {
      const [owner] = await deps.db.select({ configVersion: events.configVersion }).from(events).where(eq(events.id, planEventId));
      steps.push({
        eventId: planEventId,
        minVersion: owner?.configVersion ?? 0,
        request: { uid: "", typeUnits: {}, eventUnits: 0, tickets: [], seats: seated },
        refusal: () => noSeats(),
      });
      deductions.push({ eventId: planEventId, typeId: null, units: 0, eventUnits: 0 });
    }
  }

  // The spec's check order (type, event, linked event, its same-named type) is what a client sees when several
  // limits are exhausted, so the event comes before its linked event whatever their ids; children in id order.
  return { steps, deductions };
}

/** The events whose objects hold units of an order, from its recorded deductions. */
export function stockEventIds(deductions: readonly StockDeduction[]): number[] {
  return [...new Set(deductions.map((d) => d.eventId))].sort((a, b) => a - b);
}

const noSeats = () => fail.order_no_seats();

/** One step's hold, through the one client (catalogue/event-object-client.ts): the seats held, or the refusal. */
async function reserveOne(deps: Deps, uid: string, step: StockStep, final: boolean): Promise<Seat[] | ApiError> {
  const reply = await askEventObject(deps, {
    eventId: step.eventId,
    minVersion: step.minVersion,
    ask: (stub, minVersion) => stub.reserve({ ...step.request, uid, final }, minVersion) as Promise<ReserveResult>,
    read: (answer: ReserveResult): Seat[] | ApiError | typeof STALE => {
      if (answer.ok) return answer.seats;
      switch (answer.failure.kind) {
        case "stale":
          return STALE;
        case "seats":
          return noSeats();
        default:
          return step.refusal(answer.failure);
      }
    },
  });
  return reply.ok ? reply.value : reply.error;
}

/**
 * Whether the objects of a final order can take it from D1 on their own (the `final` hold, event.do.ts): its holds
 * carry exactly the tickets it is written with. Not so for a seated order (its seat labels are known only after the
 * hold) nor for one drafted before its tickets were drawn (a free customer order): those are told after the answer.
 */
export function objectsLearnOnTheirOwn(plan: StockPlan, seeds: readonly TicketSeed[]): boolean {
  if (plan.steps.some((s) => s.request.seats)) return false;
  const held = plan.steps.flatMap((s) => s.request.tickets.map((t) => `${s.eventId} ${t.id} ${t.typeId} ${t.typeName}`));
  const written = seeds.map((seed) => {
    const t = objectTicket(seed);
    return `${seed.eventId} ${t.id} ${t.typeId} ${t.typeName}`;
  });
  return held.length === written.length && new Set([...held, ...written]).size === held.length;
}

/**
 * Holds every step's units for `uid`, or none of them: a refusal, or a call that fails, releases what was held and
 * is thrown. Answers the seats held (in plan order; none for an event without seats). `final`: the order is written
 * final with the planned tickets, and its objects look it up in D1 by themselves.
 */
export async function holdStock(deps: Deps, uid: string, plan: StockPlan, final = false): Promise<Seat[]> {
  const held: number[] = [];
  const seats: Seat[] = [];
  for (const step of plan.steps) {
    let answer: Seat[] | ApiError;
    try {
      answer = await reserveOne(deps, uid, step, final);
    } catch (err) {
      // A call that failed outright (a broken connection): whatever the outcome at that object, the earlier ones
      // give back at once what they hold, rather than at their hold deadline.
      await releaseStock(deps, uid, [...held, step.eventId]);
      throw err;
    }
    if (!Array.isArray(answer)) {
      await releaseStock(deps, uid, held);
      throw answer;
    }
    held.push(step.eventId);
    seats.push(...answer);
  }
  return seats;
}

/** Gives back what `uid` holds in each of the events' objects. A failure is logged; the object's alarm or a rebuild settles it. */
export async function releaseStock(deps: Deps, uid: string, eventIds: readonly number[]): Promise<void> {
  await Promise.all(
    eventIds.map((eventId) =>
      deps.eventObjects
        .get(eventId)
        .release(uid)
        .catch((err: unknown) => log("error", "stock release failed", { event_id: eventId, error: String(err) })),
    ),
  );
}

/** SQL that moves `sold` by the deductions (`sign` -1 gives them back), only while `onlyIf` holds when given. */
export function soldUpdates(deps: Deps, deductions: readonly StockDeduction[], sign: 1 | -1, onlyIf?: SQL) {
  const { db } = deps;
  const statements = [];
  for (const d of deductions) {
    if (d.typeId !== null && d.units !== 0) {
      statements.push(
        db
          .update(ticketTypes)
          .set({ sold: sql`${ticketTypes.sold} + ${sign * d.units}` })
          .where(and(eq(ticketTypes.eventId, d.eventId), eq(ticketTypes.id, d.typeId), onlyIf)),
      );
    }
    if (d.eventUnits !== 0) {
      statements.push(
        db
          .update(events)
          .set({ sold: sql`${events.sold} + ${sign * d.eventUnits}` })
          .where(and(eq(events.id, d.eventId), onlyIf)),
      );
    }
  }
  return statements;
}

/**
 * Rebuilds an event object's stock and valid tickets from D1, the source of truth: every live order that drew
 * on the event (its own orders, and those of events linked to it or passe-partouts over it) becomes a take. Holds
 * of orders that never reached D1 are dropped, as their alarm would have done.
 */
export async function rebuildEventObject(deps: Deps, eventId: number): Promise<void> {
  const { db } = deps;
  await pushEventConfig(deps, eventId);
  const live = await db
    .select()
    .from(orders)
    .where(and(inArray(orders.paymentStatus, [...LIVE_STATUSES]), sql`EXISTS (SELECT 1 FROM json_each(${orders.deductions}) WHERE value ->> 'eventId' = ${eventId})`));
  const ticketRows =
    live.length > 0
      ? await db
          .select()
          .from(tickets)
          .where(
            and(
              eq(tickets.eventId, eventId),
              inIds(
                tickets.orderId,
                live.map((o) => o.id),
              ),
            ),
          )
      : [];
  const takes = live.map((o) => {
    const mine = o.deductions.filter((d) => d.eventId === eventId);
    const typeUnits: Record<string, number> = {};
    for (const d of mine) if (d.typeId !== null) typeUnits[d.typeId] = (typeUnits[d.typeId] ?? 0) + d.units;
    return {
      uid: o.uid,
      typeUnits,
      eventUnits: mine.reduce((n, d) => n + d.eventUnits, 0),
      tickets: ticketRows.filter((t) => t.orderId === o.id).map(objectTicketOf),
      info: { orderId: o.id, name: o.name, email: o.email },
      seatIndexes: o.seats?.planEventId === eventId ? o.seats.indexes : [],
    };
  });
  await deps.eventObjects.get(eventId).rebuild(takes);
}
