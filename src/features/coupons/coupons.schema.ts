import { z } from "zod";
import type { CouponType } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { orderbyParam, pagingQueryShape } from "../../http/paging";
import { centsToAmount } from "../../lib/money";
import { formatDateTime, formatOptionalDateTime } from "../../lib/time";
import { formatNameList } from "../../domain/catalogue-names";
import { count, emailOrEmpty, eventIdCsv, money, wireDateTimeOrEmpty } from "../../http/field-types";
import type { CouponRow } from "../../db/rows";

export const COUPON_TYPES = ["percent", "fixed"] as const satisfies readonly CouponType[];

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
  };
}
