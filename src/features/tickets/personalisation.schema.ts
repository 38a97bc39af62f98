import { z } from "zod";

/** `PUT /tickets/<uid>/personalisation` (decisions.md 13, "Flows"): values per ticket, for some or all tickets. */
export const personaliseBody = z.strictObject({
  tickets: z
    .array(
      z.strictObject({
        ticket_id: z.string().min(1).max(32),
        fields: z.record(z.string(), z.string().max(1000)),
      }),
    )
    .min(1, "must name at least one ticket")
    .max(500),
});
export type PersonaliseInput = z.output<typeof personaliseBody>;
