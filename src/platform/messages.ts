import { z } from "zod";

/**
 * Every message on the jobs queue is an envelope with a schema version and a kind; the consumer validates it
 * before acting, since a message may outlive the code that sent it. Each kind's handler validates the rest.
 */
export const jobEnvelope = z.looseObject({
  v: z.literal(1),
  kind: z.string().min(1),
  eventId: z.number().int().nonnegative().optional(),
  orderId: z.number().int().nonnegative().optional(),
});

export type JobMessage = z.infer<typeof jobEnvelope>;

/** A webhook delivery's attempt `attempt` (1 = first try); an attempt already made is skipped (at-least-once). */
export const webhookDeliveryJob = z.object({
  v: z.literal(1),
  kind: z.literal("webhook.deliver"),
  deliveryId: z.string().regex(/^[0-9a-f]{32}$/),
  attempt: z.number().int().min(1),
});
export type WebhookDeliveryJob = z.infer<typeof webhookDeliveryJob>;

export const emailJob = z.object({
  v: z.literal(1),
  kind: z.literal("email.send"),
  emailId: z.number().int().positive(),
  attempt: z.number().int().min(1),
  eventId: z.number().int().nonnegative().optional(),
  orderId: z.number().int().nonnegative().optional(),
});
export type EmailJob = z.infer<typeof emailJob>;

/** An open order's payment deadline passed, says the event object `eventId` that holds its units. */
export const orderExpireJob = z.object({
  v: z.literal(1),
  kind: z.literal("order.expire"),
  uid: z.string().regex(/^[A-Za-z0-9]{40}$/),
  eventId: z.number().int().positive().optional(),
});

/**
 * Cached ticket PDFs to delete: those of the orders `uids`, and those of every order with tickets at `eventIds`
 * (an event's name, date, types, layout or template changed).
 */
export const pdfPurgeJob = z.object({
  v: z.literal(1),
  kind: z.literal("pdf.purge"),
  uids: z
    .array(z.string().regex(/^[A-Za-z0-9]{40}$/))
    .max(1000)
    .default([]),
  eventIds: z.array(z.number().int().positive()).max(100).default([]),
});

/**
 * The next step of a large download (decisions.md 15): render the first missing part of the order `uid`'s PDF, or,
 * when every part is there, assemble them into the cached PDF. `fingerprint` names what the parts show; a step finding
 * the order changed since does nothing more.
 */
export const pdfRenderJob = z.object({
  v: z.literal(1),
  kind: z.literal("pdf.render"),
  uid: z.string().regex(/^[A-Za-z0-9]{40}$/),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PdfRenderJob = z.infer<typeof pdfRenderJob>;

/** Scans an event object recorded (its own `seq` identifies each), on their way to D1 and `scan.created`. */
export const scansRecordJob = z.object({
  v: z.literal(1),
  kind: z.literal("scans.record"),
  eventId: z.number().int().positive(),
  scans: z
    .array(
      z.object({
        seq: z.number().int().positive(),
        ticketId: z.string().min(1).max(64),
        orderId: z.number().int().nonnegative(),
        typeId: z.string().max(64),
        typeName: z.string().max(400),
        level: z.number().int(),
        at: z.number().int().nonnegative(),
        location: z.string().max(200),
        reloaded: z.boolean(),
        result: z.looseObject({}),
      }),
    )
    .min(1)
    .max(100),
});
export type ScansRecordJob = z.infer<typeof scansRecordJob>;

/** Refund a paid order (a bulk refund send, or `POST /admin/orders/<id>/refund`) of `amountCents`. */
export const orderRefundJob = z.object({
  v: z.literal(1),
  kind: z.literal("order.refund"),
  orderId: z.number().int().positive(),
  eventId: z.number().int().nonnegative().optional(),
  amountCents: z.number().int().nonnegative(),
});

/** An order's tickets were downloaded at `at` (epoch seconds): `tickets.downloaded` is fired from here. */
export const ticketsDownloadedJob = z.object({
  v: z.literal(1),
  kind: z.literal("tickets.downloaded"),
  uid: z.string().regex(/^[A-Za-z0-9]{40}$/),
  at: z.number().int().nonnegative(),
});

/**
 * What became of waiting-list entries at the event object `eventId` (event-object/waiting-list.ts), on their way to
 * D1, the offer emails and `waiting_list.offered`; the object sends them again until acknowledged.
 */
export const waitingListUpdateJob = z.object({
  v: z.literal(1),
  kind: z.literal("waiting-list.update"),
  eventId: z.number().int().positive(),
  updates: z
    .array(
      z.object({
        entryId: z.number().int().positive(),
        state: z.enum(["offered", "ordered", "expired"]),
        deadline: z.number().int().nullable(),
        orderUid: z.string().max(64).nullable(),
      }),
    )
    .min(1)
    .max(100),
});
export type WaitingListUpdateJob = z.infer<typeof waitingListUpdateJob>;

/** Every kind of job and its schema (src/queue.ts routes each kind to the handler that reads it with this schema). */
const JOB_SCHEMAS = {
  "webhook.deliver": webhookDeliveryJob,
  "email.send": emailJob,
  "order.expire": orderExpireJob,
  "pdf.purge": pdfPurgeJob,
  "pdf.render": pdfRenderJob,
  "tickets.downloaded": ticketsDownloadedJob,
  "scans.record": scansRecordJob,
  "order.refund": orderRefundJob,
  "waiting-list.update": waitingListUpdateJob,
} as const;

type JobKind = keyof typeof JOB_SCHEMAS;

/** The fields of a `kind` job besides its envelope (`v`, `kind`), as its schema reads them. */
type JobFields<K extends JobKind> = Omit<z.input<(typeof JOB_SCHEMAS)[K]>, "v" | "kind">;

declare const built: unique symbol;

/**
 * A job body as `buildJob` made it. The mark exists only for the type checker: the queue's senders (job-queue.ts,
 * the event object's scan outbox) take nothing else, so no body is written by hand beside its schema.
 */
export type QueuedJob = JobMessage & { readonly [built]: true };

/** The body of a `kind` job: its envelope and `fields`, typed by the schema its consumer reads it with. */
export function buildJob<K extends JobKind>(kind: K, fields: JobFields<K>): QueuedJob {
  return { v: 1, kind, ...fields } as JobMessage as QueuedJob;
}
