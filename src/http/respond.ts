import type { Context } from "hono";
import { parseFields, pickFields } from "./fields";
import { apiUrl } from "./links";
import { setUnpagedHeaders } from "./paging";

/** Every JSON success answer goes through these, so `_fields` and the status conventions hold everywhere. */

function shaped<T>(c: Context, body: T): T {
  if (c.req.method !== "GET") return body;
  return pickFields(body, parseFields(c.req.query("_fields")), c.req.query("_embed") !== undefined);
}

export function ok(c: Context, body: unknown): Response {
  return c.json(shaped(c, body), 200);
}

/** An unpaged collection: a bare array with `X-WP-Total` and `X-WP-TotalPages: 1`. */
export function collection(c: Context, items: readonly unknown[]): Response {
  setUnpagedHeaders(c, items.length);
  return c.json(shaped(c, items), 200);
}

/** A paged collection; the caller has set the paging headers. */
export function page(c: Context, items: readonly unknown[]): Response {
  return c.json(shaped(c, items), 200);
}

/** `201` with an absolute `Location` of the new resource (an API path such as `/admin/users/7`). */
export function created(c: Context, body: unknown, locationPath: string): Response {
  c.header("Location", apiUrl(c, locationPath));
  return c.json(body, 201);
}

/** `{"deleted": true}` plus `previous` where the spec lists one for the resource. */
export function deleted(c: Context, previous?: unknown): Response {
  return c.json(previous === undefined ? { deleted: true } : { deleted: true, previous }, 200);
}
