import { and, asc, eq, or, sql } from "drizzle-orm";
import { isCheckViolation, isUniqueViolation } from "../../db/client";
import { inputFields, ticketTypes } from "../../db/schema";
import { conflict, invalidId, invalidParams } from "../../domain/errors";
import type { InputFieldInput } from "./input-fields.schema";
import type { Deps } from "../../platform/deps";
import { purgeEventPdfs } from "../../platform/pdf-cache";
import { inputFieldProblems, type InputFieldSpec } from "../../domain/input-field-rules";
import { insertWithFreshId } from "../../db/fresh-ids";
import { newCatalogueId } from "./ticket-types.service";
import type { InputFieldRow } from "../../db/rows";

type InputFieldValues = InputFieldSpec & { name: string; isRequired: boolean };

const DEFAULTS: InputFieldValues = { name: "", type: "text", value: "", min: "", max: "", isRequired: false, isPersonalised: false };

export function listInputFields({ db }: Deps, eventId: number): Promise<InputFieldRow[]> {
  return db.select().from(inputFields).where(eq(inputFields.eventId, eventId)).orderBy(asc(inputFields.position));
}

export async function getInputField({ db }: Deps, eventId: number, id: string): Promise<InputFieldRow> {
  const row = await db
    .select()
    .from(inputFields)
    .where(and(eq(inputFields.eventId, eventId), eq(inputFields.id, id)))
    .get();
  if (!row) throw invalidId("input_field");
  return row;
}

function resolve(base: InputFieldValues, input: InputFieldInput): InputFieldValues {
  const values: InputFieldValues = {
    name: input.name ?? base.name,
    type: input.type ?? base.type,
    value: input.value ?? base.value,
    min: input.min ?? base.min,
    max: input.max ?? base.max,
    isRequired: input.is_required ?? base.isRequired,
    isPersonalised: input.is_personalised ?? base.isPersonalised,
  };
  const problems = inputFieldProblems(values);
  if (Object.keys(problems).length > 0) throw invalidParams(problems);
  return values;
}

const NAME_TAKEN = (name: string) => conflict(`An input field named "${name}" already exists for this event.`);

/** Ticket types of the event whose `personalise` or `layout` list names the field. */
function referringTicketTypes({ db }: Deps, eventId: number, name: string, lists: ("personalise" | "layout")[]) {
  const names = lists.map((list) => sql`EXISTS (SELECT 1 FROM json_each(${ticketTypes[list]}) WHERE value = ${name})`);
  return db
    .select({ name: ticketTypes.name })
    .from(ticketTypes)
    .where(and(eq(ticketTypes.eventId, eventId), or(...names)));
}

/** Both lists in one statement: the reference trigger checks them together, so neither may lag behind. */
function renameInTicketTypes(deps: Deps, eventId: number, from: string, to: string) {
  const renamed = (column: typeof ticketTypes.personalise | typeof ticketTypes.layout) =>
    sql`(SELECT json_group_array(CASE WHEN value = ${from} THEN ${to} ELSE value END ORDER BY key) FROM json_each(${column}))`;
  const names = (column: typeof ticketTypes.personalise | typeof ticketTypes.layout) => sql`EXISTS (SELECT 1 FROM json_each(${column}) WHERE value = ${from})`;
  return deps.db
    .update(ticketTypes)
    .set({ personalise: renamed(ticketTypes.personalise), layout: renamed(ticketTypes.layout) })
    .where(and(eq(ticketTypes.eventId, eventId), or(names(ticketTypes.personalise), names(ticketTypes.layout))));
}

export async function createInputField(deps: Deps, eventId: number, input: InputFieldInput): Promise<InputFieldRow> {
  const values = resolve(DEFAULTS, input);
  return insertWithFreshId(
    newCatalogueId,
    async (id) => {
      const [row] = await deps.db
        .insert(inputFields)
        .values({
          ...values,
          eventId,
          id,
          position: sql`(SELECT coalesce(max(position), 0) + 1 FROM input_fields WHERE event_id = ${eventId})`,
        })
        .returning();
      return row!;
    },
    async () => {
      const clash = await deps.db
        .select({ id: inputFields.id })
        .from(inputFields)
        .where(and(eq(inputFields.eventId, eventId), eq(inputFields.name, values.name)))
        .get();
      return clash ? NAME_TAKEN(values.name) : null;
    },
  );
}

/**
 * A rename is carried into every ticket type list that names the field, in the same batch. A field a
 * `personalise` list names must stay personalised (and so cannot become a password field).
 */
/** The 409 for a field that ticket types still name (the triggers of migration 0003 refuse the write itself). */
async function stillNamed(deps: Deps, field: InputFieldRow, lists: ("personalise" | "layout")[], verb: string): Promise<Error> {
  const users = await referringTicketTypes(deps, field.eventId, field.name, lists);
  return conflict(`Input field "${field.name}" is ${verb} by ticket type(s) ${users.map((t) => `"${t.name}"`).join(", ")}.`);
}

export async function updateInputField(deps: Deps, current: InputFieldRow, input: InputFieldInput): Promise<InputFieldRow> {
  const values = resolve(current, input);
  const { db } = deps;
  try {
    const [rows] = await db.batch([
      db
        .update(inputFields)
        .set(values)
        .where(and(eq(inputFields.eventId, current.eventId), eq(inputFields.id, current.id)))
        .returning(),
      renameInTicketTypes(deps, current.eventId, current.name, values.name),
    ]);
    if (!rows[0]) throw invalidId("input_field");
    await purgeEventPdfs(deps, [current.eventId]);
    return rows[0];
  } catch (err) {
    if (isUniqueViolation(err)) throw NAME_TAKEN(values.name);
    if (isCheckViolation(err, "input_fields.referenced")) throw await stillNamed(deps, current, ["personalise"], "personalised");
    throw err;
  }
}

export async function deleteInputField(deps: Deps, current: InputFieldRow): Promise<void> {
  try {
    await deps.db.delete(inputFields).where(and(eq(inputFields.eventId, current.eventId), eq(inputFields.id, current.id)));
    await purgeEventPdfs(deps, [current.eventId]);
  } catch (err) {
    if (isCheckViolation(err, "input_fields.referenced")) throw await stillNamed(deps, current, ["personalise", "layout"], "named");
    throw err;
  }
}
