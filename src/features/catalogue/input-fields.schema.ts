import { z } from "zod";
import { INPUT_FIELD_TYPES } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { LAYOUT_ORDER_NAMES } from "../../domain/catalogue-names";
import type { InputFieldRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { deletedView, linksView } from "../../http/view-types";

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

/** An input field as the API shows it (spec: Input field). */
export const inputFieldView = named(
  "InputField",
  z.object({
    id: z.string(),
    name: z.string(),
    type: z.enum(INPUT_FIELD_TYPES),
    value: z.string().describe("For `select` the choices, comma-separated; otherwise a preset value."),
    min: z.string(),
    max: z.string(),
    is_required: z.boolean(),
    is_personalised: z.boolean(),
    _links: linksView,
  }),
);

/** The routes of `/admin/events/<event_id>/input-fields` (spec: Input fields). */
export const inputFieldsApi = {
  list: {
    operationId: "listInputFields",
    summary: "List an event's input fields",
    description: "Every input field of the event, in form order, on one page.",
    success: answers.collection(inputFieldView),
  },
  create: {
    operationId: "createInputField",
    summary: "Create an input field",
    description: "Only `name` is required. Names are unique per event and may not be the order's own (`Order-id`, `Name`, `Email`).",
    success: answers.created(inputFieldView),
    errors: { "409": "`rest_conflict`: the event already has an input field of this name." },
  },
  get: { operationId: "getInputField", summary: "Get an input field", description: "`_fields` narrows the answer.", success: answers.ok(inputFieldView) },
  update: {
    operationId: "updateInputField",
    summary: "Change an input field",
    description: "Changes the fields sent; `id` may be sent back unchanged.",
    success: answers.ok(inputFieldView),
    errors: { "409": "`rest_conflict`: another input field has this name, or a ticket type uses the field in a way the change breaks." },
  },
  delete: {
    operationId: "deleteInputField",
    summary: "Delete an input field",
    description: "Only a field no ticket type names in `personalise` or `layout`.",
    success: answers.ok(deletedView(inputFieldView.omit({ id: true, _links: true })), "`deleted` and the input field as it was, without `id` and `_links`."),
    errors: { "409": "`rest_conflict`: a ticket type names the field." },
  },
} satisfies Record<string, RouteDoc>;

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
  } satisfies z.infer<typeof inputFieldView>;
}
