import type { Context } from "hono";
import { z } from "zod";
import type { PageRequest } from "../domain/paging";

/** Query parameters shared by every paged collection (orders, coupons, events, emails). */
export const positiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(max, `must be at most ${max}`));

const idList = z
  .string()
  .regex(/^\s*\d{1,15}\s*(,\s*\d{1,15}\s*)*$/, "must be comma-separated ids")
  .transform((s) => s.split(",").map((part) => Number(part.trim())));

export const pagingQueryShape = {
  per_page: positiveInt(100).default(10),
  page: positiveInt(Number.MAX_SAFE_INTEGER).default(1),
  offset: z.string().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).optional(),
  search: z.string().max(200).optional(),
  include: idList.optional(),
  exclude: idList.optional(),
  order: z.enum(["asc", "desc"]).default("asc"),
};

export function orderbyParam<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values).default(values[0]);
}

/**
 * `X-WP-Total`, `X-WP-TotalPages` and `Link` (`prev`/`next`, absolute, keeping every other query parameter).
 * A request by `offset` gets offset links; a request by `page` gets page links.
 */
export function setPagingHeaders(c: Context, total: number, p: PageRequest): void {
  const totalPages = Math.ceil(total / p.per_page);
  c.header("X-WP-Total", String(total));
  c.header("X-WP-TotalPages", String(totalPages));

  const url = new URL(c.req.url);
  const link = (param: "page" | "offset", value: number, rel: string) => {
    const target = new URL(url);
    target.searchParams.set(param, String(value));
    return `<${target.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (p.offset !== undefined) {
    // Past the end, `prev` points at the last full window rather than at another empty one.
    if (p.offset > 0) links.push(link("offset", Math.max(0, Math.min(p.offset - p.per_page, total - p.per_page)), "prev"));
    if (p.offset + p.per_page < total) links.push(link("offset", p.offset + p.per_page, "next"));
  } else {
    if (p.page > 1 && totalPages > 0) links.push(link("page", Math.min(p.page - 1, totalPages), "prev"));
    if (p.page < totalPages) links.push(link("page", p.page + 1, "next"));
  }
  if (links.length > 0) c.header("Link", links.join(", "));
}

/** Unpaged collections still say how many rows they hold, on one page. */
export function setUnpagedHeaders(c: Context, total: number): void {
  c.header("X-WP-Total", String(total));
  c.header("X-WP-TotalPages", "1");
}
