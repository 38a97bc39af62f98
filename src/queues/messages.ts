import { z } from "zod";

/**
 * Every message on the jobs queue is an envelope with a schema version and a kind; the consumer validates it
 * before acting, since a message may outlive the code that sent it.
 */
export const jobEnvelope = z.looseObject({
  v: z.literal(1),
  kind: z.string().min(1),
  eventId: z.number().int().nonnegative().optional(),
  orderId: z.number().int().nonnegative().optional(),
});

export type JobMessage = z.infer<typeof jobEnvelope>;
