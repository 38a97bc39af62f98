import { z } from "zod";
import { isWireDateTime } from "../../lib/time";
import { emailAddress, eventIdCsv, money } from "../../http/field-types";
import { answers, type RouteDoc } from "../../http/route-docs";
import { amountView, bulkErrorsView } from "../../http/view-types";

/**
 * Bulk coupon emails (spec "Bulk coupon emails", decisions.md 12): the list call takes every parameter, used or
 * not; unused numbers may be sent as 0 or "", unused texts and dates as "".
 */

const dateOrEmpty = z.string().refine((s) => s === "" || isWireDateTime(s), 'must be a date-time "YYYY-MM-DD HH:MM:SS" or empty');
const wholeOrEmpty = z.union([
  z.number().int("must be a whole number").min(0).max(1_000_000),
  z
    .string()
    .regex(/^\d{0,7}$/, "must be a whole number or empty")
    .transform((s) => (s === "" ? 0 : Number(s))),
]);
const moneyOrEmpty = z.union([z.literal("").transform(() => 0), money]);
const subject = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters");
const body = z.string().min(1, "must not be empty").max(100_000, "must be at most 100000 characters");

export const couponEmailsListBody = z
  .strictObject({
    bulk_source: z.enum(["0", "1"]),
    event_ids: eventIdCsv,
    template_code: z.string().trim().max(100),
    code_prefix: z.string().max(100),
    code_suffix: z.string().max(100),
    date_from: dateOrEmpty,
    date_to: dateOrEmpty,
    tickets_minimum: wholeOrEmpty,
    tickets_maximum: wholeOrEmpty,
    amount_minimum: moneyOrEmpty,
    amount_maximum: moneyOrEmpty,
    subject,
    body,
  })
  .superRefine((c, ctx) => {
    if (c.bulk_source === "0" && c.template_code === "") ctx.addIssue({ code: "custom", path: ["template_code"], message: "is required when bulk_source is 0" });
    if (c.date_from !== "" && c.date_to !== "" && c.date_to < c.date_from) ctx.addIssue({ code: "custom", path: ["date_to"], message: "must not be before date_from" });
    // 0 is no bound, so only two bounds both given can contradict each other.
    if (c.tickets_maximum > 0 && c.tickets_minimum > c.tickets_maximum)
      ctx.addIssue({ code: "custom", path: ["tickets_maximum"], message: "must not be below tickets_minimum" });
    if (c.amount_maximum > 0 && c.amount_minimum > c.amount_maximum)
      ctx.addIssue({ code: "custom", path: ["amount_maximum"], message: "must not be below amount_minimum" });
  });
export type CouponEmailsCriteria = z.output<typeof couponEmailsListBody>;

export const couponEmailsSendBody = z
  .strictObject({
    bulk_source: z.enum(["0", "1"]),
    template_code: z.string().trim().max(100),
    ids: z.array(z.number().int().positive("must be ids").max(Number.MAX_SAFE_INTEGER)).min(1, "must name at least one id").max(1000),
    subject,
    body,
  })
  .superRefine((c, ctx) => {
    if (c.bulk_source === "0" && c.template_code === "") ctx.addIssue({ code: "custom", path: ["template_code"], message: "is required when bulk_source is 0" });
  });
export type CouponEmailsSendInput = z.output<typeof couponEmailsSendBody>;

export const couponEmailExampleBody = z.strictObject({ email: emailAddress, subject, body });
export type CouponEmailExampleInput = z.output<typeof couponEmailExampleBody>;

/** The routes of `/admin/coupons/bulk/emails` (spec "Bulk coupon emails"; decisions.md 9, 10, 12). */
export const couponEmailsApi = {
  list: {
    operationId: "listCouponEmailTargets",
    summary: "Select the targets of a bulk coupon email",
    description:
      "Source `1`: coupons tied to an address, selected by code prefix and suffix, events, validity window and bounds. Source `0`: the entries of the events' email lists. Every parameter is required, used or not.",
    success: answers.ok(
      z.object({
        bulk_source: z.enum(["0", "1"]),
        event_ids: z.string(),
        template_code: z.string(),
        code_prefix: z.string(),
        code_suffix: z.string(),
        date_from: z.string(),
        date_to: z.string(),
        tickets_minimum: z.number().int(),
        tickets_maximum: z.number().int(),
        amount_minimum: amountView,
        amount_maximum: amountView,
        batch_size: z.number().int().describe("How many ids a send call may carry."),
        ids: z.array(z.number().int()).describe("Coupon ids (source 1) or email-list entry ids (source 0), ascending."),
      }),
      "The criteria as read, the batch size, and the ids a send may use.",
    ),
  },
  send: {
    operationId: "sendCouponEmails",
    summary: "Send a bulk coupon email",
    description:
      "Mails each id its coupon (source 1) or a new coupon made from `template_code` (source 0; the caller's own coupon with that code, the new coupons the caller's too), through the outbox. One batch per call.",
    success: answers.ok(bulkErrorsView("id"), "What could not be sent, per id; empty when everything was."),
  },
  sendExample: {
    operationId: "sendCouponEmailExample",
    summary: "Send a sample coupon email",
    description:
      "Mails a sample to `email` with every keyword replaced, to check the subject and body. At most 20 a day per user (a calendar day in the service's time zone); each one sent is logged.",
    success: answers.ok(bulkErrorsView("id")),
    errors: { "429": "`rest_too_many_requests` with `Retry-After` (the seconds until the day turns): this user already sent 20 examples today; nothing was mailed." },
  },
} satisfies Record<string, RouteDoc>;
