import { z } from "zod";
import { named } from "./route-docs";

/**
 * Field types every response schema shares (as http/field-types.ts holds the request side): links, date-times,
 * amounts, the delete answer. The presenters of each feature write the values; these describe them.
 */

/** `_links`: relation to links, each an absolute address (`embeddable` where `_embed` can inline it). */
export const linksView = named(
  "Links",
  z.record(z.string(), z.array(z.object({ href: z.string(), embeddable: z.boolean().optional() }))).describe("Links by relation (`self`, `collection`, ...)."),
);

const WIRE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** `YYYY-MM-DD HH:MM:SS`, in the service's time zone unless the field says otherwise. */
export const dateTimeView = z.string().regex(WIRE).describe("`YYYY-MM-DD HH:MM:SS`");

/** A date-time that may be unset: `""`. */
export const optionalDateTimeView = z.union([z.string().regex(WIRE), z.literal("")]).describe('`YYYY-MM-DD HH:MM:SS`, or `""` when not set');

/** A date-time of a counter that may never have happened: `0000-00-00 00:00:00`. */
export const counterDateTimeView = z.string().regex(WIRE).describe("`YYYY-MM-DD HH:MM:SS`; `0000-00-00 00:00:00` when it never happened");

/** An amount of money as a JSON number with at most two decimals (12.5 for 12.50). */
export const amountView = z.number().describe("An amount with at most two decimals.");

/** `{"deleted": true}`, with `previous` (the resource as it was) where the route shows one. */
export function deletedView(previous?: z.ZodType) {
  return previous ? z.object({ deleted: z.literal(true), previous }) : z.object({ deleted: z.literal(true) });
}

/** `{"errors": [...]}` of a bulk send: what could not be done, per row (empty when everything was). */
export function bulkErrorsView(idField: "order_id" | "id") {
  return z.object({ errors: z.array(z.object({ [idField]: z.number().int(), error: z.string() })) });
}
