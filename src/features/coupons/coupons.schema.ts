import { z } from "zod";
import type { CouponType } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { orderbyParam, pagingQueryShape } from "../../http/paging";
import { centsToAmount } from "../../lib/money";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import { formatNameList } from "../../domain/catalogue-names";
import { count, emailOrEmpty, eventIdCsv, money, wireDateTimeOrEmpty } from "../../http/field-types";
import type { CouponRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { amountView, dateTimeView, deletedView, linksView, optionalDateTimeView } from "../../http/view-types";

const COUPON_TYPES = ["percent", "fixed"] as const satisfies readonly CouponType[];

/** A percent coupon's `amount` is at most 100 % (stored in hundredths of a percent). */
export const MAX_PERCENT_HUNDREDTHS = 10_000;

const couponFields = {
  code: z.string().trim().min(1, "must not be empty").max(50, "must be at most 50 characters").regex(/^\S+$/, "must not contain whitespace"),
  description: z.string().trim().max(1000, "must be at most 1000 characters"),
  type: z.enum(COUPON_TYPES, `must be one of ${COUPON_TYPES.join(", ")}`),
  individual_use: z.boolean(),
  /** Percent (hundredths) for `percent`, cents for `fixed`: the same decimal rules either way. */
  amount: money,
  usage_limit: count(),
  usage_limit_per_user: count(),
  start_date: wireDateTimeOrEmpty,
  end_date: wireDateTimeOrEmpty,
  events: eventIdCsv,
  /** Ticket type names, comma-separated; checked against the coupon's events by the service. */
  tickets: z.string().max(2000, "must be at most 2000 characters"),
  minimum_tickets: count(),
  maximum_tickets: count(),
  minimum_amount: money,
  maximum_amount: money,
  email: emailOrEmpty,
};

/** Shown, never set: refused on create, ignored on update when equal to what is stored (decisions.md 12). */
export const COUPON_READ_ONLY = ["id", "date_created", "date_modified", "used", "last_used"] as const;

export const createCouponBody = z.strictObject(couponFields).partial().required({ code: true, type: true, amount: true });
export const updateCouponBody = z.strictObject(couponFields).partial();
export type CouponInput = z.output<typeof updateCouponBody>;

export const listCouponsQuery = z.object({
  ...pagingQueryShape,
  orderby: orderbyParam(["id", "code", "email"] as const),
});
export type ListCouponsQuery = z.output<typeof listCouponsQuery>;

const int = z.number().int();

/** A coupon as the API shows it (spec: Coupon). */
const couponView = named(
  "Coupon",
  z.object({
    id: int,
    code: z.string(),
    description: z.string(),
    date_created: dateTimeView,
    date_modified: dateTimeView,
    type: z.enum(COUPON_TYPES),
    individual_use: z.boolean(),
    amount: amountView.describe("A percentage (`percent`) or an amount off (`fixed`)."),
    usage_limit: int,
    usage_limit_per_user: int,
    used: int,
    last_used: optionalDateTimeView,
    start_date: optionalDateTimeView,
    end_date: optionalDateTimeView,
    events: z.string().describe("Event ids, comma-separated; empty: every event."),
    tickets: z.string().describe("Ticket type names, comma-separated; empty: every type."),
    minimum_tickets: int,
    maximum_tickets: int,
    minimum_amount: amountView,
    maximum_amount: amountView,
    email: z.string().describe("The address the coupon is tied to; empty: anyone's."),
    _links: linksView,
  }),
);

/** The routes of `/admin/coupons` (spec: Coupon, Coupons; decisions.md 12, 13). */
export const couponsApi = {
  list: {
    operationId: "listCoupons",
    summary: "List coupons",
    description: "Paged; an organizer sees its own coupons limited to its events.",
    success: answers.page(couponView),
  },
  create: {
    operationId: "createCoupon",
    summary: "Create a coupon",
    description:
      "`code`, `type` and `amount` are required; codes are unique per owner (the creating organizer; all administrators are one owner), compared case-insensitively. An organizer's coupon must name its events.",
    success: answers.created(couponView),
    errors: { "409": "`rest_conflict`: a coupon of the same owner has this code." },
  },
  get: { operationId: "getCoupon", summary: "Get a coupon", description: "`_fields` narrows the answer.", success: answers.ok(couponView) },
  update: {
    operationId: "updateCoupon",
    summary: "Change a coupon",
    description: "Changes the fields sent; `id`, the dates, `used` and `last_used` may be sent back unchanged.",
    success: answers.ok(couponView),
    errors: { "409": "`rest_conflict`: another coupon of the same owner has this code." },
  },
  delete: {
    operationId: "deleteCoupon",
    summary: "Delete a coupon",
    description: "The coupon no longer applies to new orders.",
    success: answers.ok(deletedView(couponView.omit({ _links: true })), "`deleted` and the coupon as it was, without `_links`."),
  },
  resetCounters: {
    operationId: "resetCouponCounters",
    summary: "Reset a coupon's counters",
    description: "`used` starts again from 0 and `last_used` is cleared.",
    success: answers.ok(couponView),
  },
} satisfies Record<string, RouteDoc>;

/** A coupon as the API shows it (spec: Coupon), its dates in the service's time zone. */
export function presentCoupon(c: LinkBase, k: CouponRow, timezone: string) {
  return {
    id: k.id,
    code: k.code,
    description: k.description,
    date_created: formatDateTime(k.createdAt, timezone),
    date_modified: formatDateTime(k.modifiedAt, timezone),
    type: k.type,
    individual_use: k.individualUse,
    amount: centsToAmount(k.amountHundredths),
    usage_limit: k.usageLimit,
    usage_limit_per_user: k.usageLimitPerUser,
    used: k.used,
    last_used: formatOptionalDateTime(k.lastUsed, timezone),
    start_date: formatOptionalDateTime(k.startDate, timezone),
    end_date: formatOptionalDateTime(k.endDate, timezone),
    events: k.events.join(","),
    tickets: formatNameList(k.tickets),
    minimum_tickets: k.minimumTickets,
    maximum_tickets: k.maximumTickets,
    minimum_amount: centsToAmount(k.minimumAmountCents),
    maximum_amount: centsToAmount(k.maximumAmountCents),
    email: k.email,
    _links: selfAndCollection(c, `/admin/coupons/${k.id}`, "/admin/coupons"),
  } satisfies z.infer<typeof couponView>;
}
