import { z } from "zod";
import { INPUT_FIELD_TYPES } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { LAYOUT_ORDER_NAMES } from "../../domain/catalogue-names";
import type { InputFieldRow } from "../../db/rows";

const name = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .refine((s) => !s.includes(","), "must not contain a comma")
  .refine((s) => !(LAYOUT_ORDER_NAMES as readonly string[]).includes(s), `must not be ${LAYOUT_ORDER_NAMES.join(", ")} (taken from the order)`);

const inputFieldFields = {
  name,
  type: z.enum(INPUT_FIELD_TYPES, `must be one of ${INPUT_FIELD_TYPES.join(", ")}`),
  value: z.string().max(1000, "must be at most 1000 characters"),
  min: z.string().trim().max(10),
  max: z.string().trim().max(10),
  is_required: z.boolean(),
  is_personalised: z.boolean(),
};

export const INPUT_FIELD_CREATE_READ_ONLY = ["id"] as const;
export const INPUT_FIELD_UPDATE_READ_ONLY = ["id"] as const;

export const createInputFieldBody = z.strictObject(inputFieldFields).partial().required({ name: true });
export const updateInputFieldBody = z.strictObject(inputFieldFields).partial();
export type InputFieldInput = z.output<typeof updateInputFieldBody>;

export function presentInputField(c: LinkBase, f: InputFieldRow) {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    value: f.value,
    min: f.min,
    max: f.max,
    is_required: f.isRequired,
    is_personalised: f.isPersonalised,
    _links: selfAndCollection(c, `/admin/events/${f.eventId}/input-fields/${f.id}`, `/admin/events/${f.eventId}/input-fields`),
  };
}
