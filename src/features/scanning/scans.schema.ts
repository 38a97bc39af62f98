import { z } from "zod";

/** `POST /scans`: the ticket's scan code as its QR code carries it (the ticket id, or later its signed code). */
export const scanBody = z.strictObject({
  id: z.string().trim().min(1, "must not be empty").max(300, "must be at most 300 characters"),
});
export type ScanInput = z.output<typeof scanBody>;

/** `GET /scans/revoked?since=<date-time>`: in the event's zone; omitted, every revoked ticket. */
export const revokedQuery = z.object({
  since: z.string().max(40).optional(),
});
