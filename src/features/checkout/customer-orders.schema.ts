import { z } from "zod";
import { orderFieldsInput, orderTicketsInput } from "../ordering/orders.schema";

/** `POST /events/<event_id>/orders` (decisions.md 5.1). */
export const createCustomerOrderBody = z.strictObject({
  // No cap here: the documented length messages win at every length (decisions.md 14); the body cap bounds them.
  name: z.string().optional(),
  email: z.string().optional(),
  fields: orderFieldsInput.optional(),
  tickets: orderTicketsInput,
  event_ids: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).min(1, "must name at least one date").max(100).optional(),
  coupon: z.string().trim().max(100).optional(),
  terms_accepted: z.boolean().optional(),
  recaptcha_token: z.string().max(4000).optional(),
});
export type CustomerOrderInput = z.output<typeof createCustomerOrderBody>;
