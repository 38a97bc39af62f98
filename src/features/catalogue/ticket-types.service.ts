import { and, asc, eq, sql } from "drizzle-orm";
import { isCheckViolation, isUniqueViolation } from "../../db/client";
import { insertWithFreshId } from "../../db/fresh-ids";
import { coupons, inputFields, scanKeys, tickets, ticketTypes } from "../../db/schema";
import { conflict, invalidId, invalidParams } from "../../domain/errors";
import { randomHex } from "../../lib/random";
import type { TicketTypeInput } from "./ticket-types.schema";
import type { AuthUser } from "../../domain/authority";
import { layoutProblem, parseNameList, personaliseProblem } from "../../domain/catalogue-names";
import type { Deps } from "../../platform/deps";
import { bumpConfigVersion, pushEventConfig } from "./event-config.service";
import { templateAccess } from "./template-references";
import { purgeEventPdfs } from "../../platform/pdf-cache";
import type { TicketTypeRow } from "../../db/rows";

/** Catalogue ids: `v` and 5 lowercase hex, unique within the event. */
export function newCatalogueId(): string {
  return `v${randomHex(5)}`;
}

export function listTicketTypes({ db }: Deps, eventId: number): Promise<TicketTypeRow[]> {
  return db.select().from(ticketTypes).where(eq(ticketTypes.eventId, eventId)).orderBy(asc(ticketTypes.position));
}

export async function getTicketType({ db }: Deps, eventId: number, id: string): Promise<TicketTypeRow> {
  const row = await db
    .select()
    .from(ticketTypes)
    .where(and(eq(ticketTypes.eventId, eventId), eq(ticketTypes.id, id)))
    .get();
  if (!row) throw invalidId("ticket_type");
  return row;
}

type TicketTypeValues = Omit<TicketTypeRow, "eventId" | "id" | "position" | "sold">;

const DEFAULTS: TicketTypeValues = {
  name: "",
  priceCents: 0,
  volumePrice: [],
  vatHundredths: 0,
  stockControl: false,
  stock: 0,
  minimumToOrder: 0,
  maximumToOrder: 10,
  isCounted: true,
  showRemaining: false,
  attachmentId: 0,
  personalise: [],
  layout: [],
};

/**
 * `stock` belongs to stock control: it is sent only while `stock_control` is (or becomes) true, and is required
 * when stock control is switched on without a stock already stored.
 */
function stockOf(base: TicketTypeValues, input: TicketTypeInput, problems: Record<string, string>): { stockControl: boolean; stock: number } {
  const stockControl = input.stock_control ?? base.stockControl;
  if (!stockControl) {
    if (input.stock !== undefined) problems.stock = "must be omitted while stock_control is false";
    return { stockControl, stock: 0 };
  }
  if (input.stock === undefined && !base.stockControl) problems.stock = "is required when stock_control is true";
  return { stockControl, stock: input.stock ?? base.stock };
}

async function resolve(deps: Deps, user: AuthUser, eventId: number, base: TicketTypeValues, input: TicketTypeInput): Promise<TicketTypeValues> {
  const problems: Record<string, string> = {};
  const values: TicketTypeValues = {
    name: input.name ?? base.name,
    priceCents: input.price ?? base.priceCents,
    volumePrice: input.volume_price ?? base.volumePrice,
    vatHundredths: input.vat ?? base.vatHundredths,
    ...stockOf(base, input, problems),
    minimumToOrder: input.minimum_to_order ?? base.minimumToOrder,
    maximumToOrder: input.maximum_to_order ?? base.maximumToOrder,
    isCounted: input.is_counted ?? base.isCounted,
    showRemaining: input.show_remaining ?? base.showRemaining,
    attachmentId: input.attachment_id ?? base.attachmentId,
    personalise: input.personalise === undefined ? base.personalise : parseNameList(input.personalise),
    layout: input.layout === undefined ? base.layout : parseNameList(input.layout),
  };
  if (values.maximumToOrder > 0 && values.minimumToOrder > values.maximumToOrder) {
    problems.minimum_to_order = "must not be above maximum_to_order";
  }
  if (input.personalise !== undefined || input.layout !== undefined) {
    const fields = await deps.db.select({ name: inputFields.name, isPersonalised: inputFields.isPersonalised }).from(inputFields).where(eq(inputFields.eventId, eventId));
    const personalise = input.personalise === undefined ? null : personaliseProblem(values.personalise, fields);
    if (personalise) problems.personalise = personalise;
    const layout = input.layout === undefined ? null : layoutProblem(values.layout, fields);
    if (layout) problems.layout = layout;
  }
  // Only a changed template is checked, so a user can PUT back a type an administrator gave another's template.
  if (input.attachment_id && input.attachment_id !== base.attachmentId && (await templateAccess(deps, user, input.attachment_id)) !== "usable") {
    problems.attachment_id = `${input.attachment_id} is not a PDF template you may use`;
  }
  if (Object.keys(problems).length > 0) throw invalidParams(problems);
  return values;
}

const NAME_TAKEN = (name: string) => conflict(`A ticket type named "${name}" already exists for this event.`);

/**
 * The triggers of migration 0003 refused the write: an input field this type names was deleted, renamed or
 * un-personalised after `resolve` looked. Checking again names the field; otherwise the race is reported as such.
 */
async function referencesChanged(deps: Deps, user: AuthUser, eventId: number, base: TicketTypeValues, input: TicketTypeInput): Promise<Error> {
  await resolve(deps, user, eventId, base, input);
  return conflict("The input fields named in personalise or layout changed meanwhile; read them again.");
}

export async function createTicketType(deps: Deps, user: AuthUser, eventId: number, input: TicketTypeInput): Promise<TicketTypeRow> {
  const values = await resolve(deps, user, eventId, DEFAULTS, input);
  const { db } = deps;
  let created: TicketTypeRow;
  try {
    created = await insertWithFreshId(
      newCatalogueId,
      async (id) => {
        const [rows] = await db.batch([
          db
            .insert(ticketTypes)
            .values({
              ...values,
              eventId,
              id,
              position: sql`(SELECT coalesce(max(position), 0) + 1 FROM ticket_types WHERE event_id = ${eventId})`,
            })
            .returning(),
          bumpConfigVersion(deps, eventId),
        ]);
        return rows[0]!;
      },
      async () => {
        const clash = await db
          .select({ id: ticketTypes.id })
          .from(ticketTypes)
          .where(and(eq(ticketTypes.eventId, eventId), eq(ticketTypes.name, values.name)))
          .get();
        return clash ? NAME_TAKEN(values.name) : null;
      },
    );
  } catch (err) {
    if (isCheckViolation(err, "ticket_types.references")) throw await referencesChanged(deps, user, eventId, DEFAULTS, input);
    throw err;
  }
  await pushEventConfig(deps, eventId);
  return created;
}

/** Rewrites a ticket type name inside every scan key's `tickets` list of the event (array order kept). */
function renameInScanKeys(deps: Deps, eventId: number, from: string, to: string) {
  return deps.db
    .update(scanKeys)
    .set({
      tickets: sql`(SELECT json_group_array(CASE WHEN value = ${from} THEN ${to} ELSE value END ORDER BY key) FROM json_each(${scanKeys.tickets}))`,
    })
    .where(and(eq(scanKeys.eventId, eventId), sql`EXISTS (SELECT 1 FROM json_each(${scanKeys.tickets}) WHERE value = ${from})`));
}

/**
 * Coupons limited to this event (its id among their `events`) follow a rename of a type they name. Coupons with
 * no events are left as they are: their names may belong to any event.
 */
function renameInCoupons(deps: Deps, eventId: number, from: string, to: string) {
  return deps.db
    .update(coupons)
    .set({
      tickets: sql`(SELECT json_group_array(CASE WHEN value = ${from} THEN ${to} ELSE value END ORDER BY key) FROM json_each(${coupons.tickets}))`,
    })
    .where(
      and(
        sql`EXISTS (SELECT 1 FROM json_each(${coupons.events}) WHERE value = ${eventId})`,
        sql`EXISTS (SELECT 1 FROM json_each(${coupons.tickets}) WHERE value = ${from})`,
      ),
    );
}

export async function updateTicketType(deps: Deps, user: AuthUser, current: TicketTypeRow, input: TicketTypeInput): Promise<TicketTypeRow> {
  const values = await resolve(deps, user, current.eventId, current, input);
  const { db } = deps;
  const where = and(eq(ticketTypes.eventId, current.eventId), eq(ticketTypes.id, current.id));
  try {
    const [rows] = await db.batch([
      db.update(ticketTypes).set(values).where(where).returning(),
      renameInScanKeys(deps, current.eventId, current.name, values.name),
      renameInCoupons(deps, current.eventId, current.name, values.name),
      bumpConfigVersion(deps, current.eventId),
    ]);
    if (!rows[0]) throw invalidId("ticket_type");
    await pushEventConfig(deps, current.eventId);
    await purgeEventPdfs(deps, [current.eventId]);
    return rows[0];
  } catch (err) {
    if (isUniqueViolation(err)) throw NAME_TAKEN(values.name);
    if (isCheckViolation(err, "ticket_types.references")) throw await referencesChanged(deps, user, current.eventId, current, input);
    throw err;
  }
}

/** A ticket type with sold tickets, or one a scan key or a coupon of its event still names, stays (409 naming why). */
export async function deleteTicketType(deps: Deps, current: TicketTypeRow): Promise<void> {
  const { db } = deps;
  const issued = await db
    .select({ id: tickets.id })
    .from(tickets)
    .where(and(eq(tickets.eventId, current.eventId), eq(tickets.ticketTypeId, current.id)))
    .limit(1)
    .get();
  if (current.sold > 0 || issued) throw conflict(`Ticket type "${current.name}" has sold tickets and cannot be deleted.`);
  const referrers = await db
    .select({ location: scanKeys.location })
    .from(scanKeys)
    .where(and(eq(scanKeys.eventId, current.eventId), sql`EXISTS (SELECT 1 FROM json_each(${scanKeys.tickets}) WHERE value = ${current.name})`));
  if (referrers.length > 0) {
    throw conflict(`Ticket type "${current.name}" is named by the scan key(s) at ${referrers.map((r) => `"${r.location}"`).join(", ")}.`);
  }
  const couponReferrers = await db
    .select({ code: coupons.code })
    .from(coupons)
    .where(
      and(
        sql`EXISTS (SELECT 1 FROM json_each(${coupons.events}) WHERE value = ${current.eventId})`,
        sql`EXISTS (SELECT 1 FROM json_each(${coupons.tickets}) WHERE value = ${current.name})`,
      ),
    );
  if (couponReferrers.length > 0) {
    throw conflict(`Ticket type "${current.name}" is named by the coupon(s) ${couponReferrers.map((r) => `"${r.code}"`).join(", ")}.`);
  }
  await db.batch([
    db.delete(ticketTypes).where(and(eq(ticketTypes.eventId, current.eventId), eq(ticketTypes.id, current.id), eq(ticketTypes.sold, 0))),
    bumpConfigVersion(deps, current.eventId),
  ]);
  await pushEventConfig(deps, current.eventId);
}
