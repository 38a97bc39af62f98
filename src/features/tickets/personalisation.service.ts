import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { inIds } from "../../db/client";
import { inputFields, orders, tickets, ticketTypes } from "../../db/schema";
import { fail, invalidId, invalidParams } from "../../domain/errors";
import { secretsEqual } from "../../lib/crypto";
import type { PersonalisationView, PersonaliseInput } from "./personalisation.schema";
import type { Deps } from "../../platform/deps";
import { checkFieldAnswers } from "../../domain/order-rules";
import { selectChoices } from "../../domain/input-field-rules";
import { ticketTypeLabel } from "../../domain/seat-plan";
import type { InputFieldRow, OrderRow, TicketRow } from "../../db/rows";

/**
 * Personalisation (decisions.md 7 and 13): a ticket whose type names fields in `personalise` needs those fields
 * filled in once, after ordering; until every such ticket is done the tickets cannot be downloaded. Passe-partout
 * child tickets follow their order's own tickets and need nothing themselves.
 */

/** The order of a public capability uid (compared in constant time); unknown is a 404. */
export async function orderByUid({ db }: Deps, uid: string): Promise<OrderRow> {
  const order = await db.select().from(orders).where(eq(orders.uid, uid)).get();
  if (!order || !(await secretsEqual(uid, order.uid))) throw invalidId("order");
  return order;
}

export interface TicketNeeds {
  ticket: TicketRow;
  fields: InputFieldRow[];
}

/** Each ticket of the order at its own event, with the personalised fields its type asks for (maybe none). */
export async function personalisationNeeds(deps: Deps, order: OrderRow): Promise<TicketNeeds[]> {
  const { db } = deps;
  const [own, types, fields] = await db.batch([
    db
      .select()
      .from(tickets)
      .where(and(eq(tickets.orderId, order.id), eq(tickets.eventId, order.eventId)))
      .orderBy(asc(tickets.createdAt), asc(tickets.id)),
    db.select({ id: ticketTypes.id, personalise: ticketTypes.personalise }).from(ticketTypes).where(eq(ticketTypes.eventId, order.eventId)),
    db
      .select()
      .from(inputFields)
      .where(and(eq(inputFields.eventId, order.eventId), eq(inputFields.isPersonalised, true)))
      .orderBy(asc(inputFields.position)),
  ]);
  const asked = new Map(types.map((t) => [t.id, new Set(t.personalise)]));
  return own.map((ticket) => ({ ticket, fields: fields.filter((f) => asked.get(ticket.ticketTypeId)?.has(f.name)) }));
}

function isPersonalised(n: TicketNeeds): boolean {
  return n.fields.length === 0 || n.ticket.personalisedAt !== null;
}

/** Of these orders, the ones with a ticket still to be personalised, as personalisationNeeds sees it, in one query. */
export async function ordersToPersonalise({ db }: Deps, orderIds: readonly number[]): Promise<Set<number>> {
  if (orderIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ orderId: tickets.orderId })
    .from(tickets)
    .innerJoin(orders, and(eq(orders.id, tickets.orderId), eq(orders.eventId, tickets.eventId)))
    .innerJoin(ticketTypes, and(eq(ticketTypes.eventId, tickets.eventId), eq(ticketTypes.id, tickets.ticketTypeId)))
    .where(and(inIds(tickets.orderId, orderIds), isNull(tickets.personalisedAt), sql`json_array_length(${ticketTypes.personalise}) > 0`));
  return new Set(rows.map((r) => r.orderId));
}

/** True when every ticket that needs personalising has been: the tickets may then be downloaded. */
export async function allPersonalised(deps: Deps, order: OrderRow): Promise<boolean> {
  return (await personalisationNeeds(deps, order)).every(isPersonalised);
}

export function presentPersonalisation(needs: readonly TicketNeeds[]) {
  return {
    tickets: needs.map((n) => ({
      ticket_id: n.ticket.id,
      ticket_type: ticketTypeLabel(n.ticket),
      personalised: isPersonalised(n),
      // Password fields are never personalised (input-field rules), so every value here may be shown.
      // A select field's own value is its list of choices: offered as `options`, never as a value to keep.
      fields: n.fields.map((f) => ({
        id: f.id,
        name: f.name,
        type: f.type,
        value: n.ticket.personalisation[f.id] ?? (n.ticket.personalisedAt === null && f.type !== "select" ? f.value : ""),
        required: f.isRequired,
        ...(f.type === "select" ? { options: selectChoices(f.value) } : {}),
      })),
    })),
  } satisfies PersonalisationView;
}

/**
 * Saves the values of some or all tickets, each checked like order input fields; a ticket is saved once (a second
 * save, even one racing the first, is a 409). All named tickets are saved together or none.
 */
export async function personalise(deps: Deps, order: OrderRow, input: PersonaliseInput): Promise<void> {
  const needs = new Map((await personalisationNeeds(deps, order)).map((n) => [n.ticket.id, n]));
  const seen = new Set<string>();
  const updates = [];
  const now = deps.now();
  for (const { ticket_id, fields } of input.tickets) {
    const n = needs.get(ticket_id);
    if (!n) throw invalidParams({ tickets: `${ticket_id} is not a ticket of this order` });
    if (seen.has(ticket_id)) throw invalidParams({ tickets: `names ticket ${ticket_id} twice` });
    seen.add(ticket_id);
    if (n.fields.length === 0) throw invalidParams({ tickets: `ticket ${ticket_id} needs no personalisation` });
    if (n.ticket.personalisedAt !== null) throw fail.ticket_already_personalised(`Ticket ${ticket_id} is already personalised.`);
    const answers = checkFieldAnswers(
      n.fields.map((f) => ({ ...f, isPersonalised: false })),
      new Map(Object.entries(fields)),
    );
    const values = Object.fromEntries(answers.map((a) => [a.field.id, a.value]));
    updates.push(
      deps.db
        .update(tickets)
        .set({ personalisation: values, personalisedAt: now })
        .where(and(eq(tickets.id, ticket_id), isNull(tickets.personalisedAt)))
        .returning({ id: tickets.id }),
    );
  }
  const results = await deps.db.batch(updates as [(typeof updates)[number], ...typeof updates]);
  if (results.some((r) => r.length === 0)) {
    // Another save got there first for one of them: undo ours so the request changes nothing.
    const ours = results.flatMap((r) => r.map((t) => t.id));
    if (ours.length > 0)
      await deps.db
        .update(tickets)
        .set({ personalisation: {}, personalisedAt: null })
        .where(and(inArray(tickets.id, ours), eq(tickets.personalisedAt, now)));
    throw fail.ticket_already_personalised("A ticket was personalised meanwhile.");
  }
}
