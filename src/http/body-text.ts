import type { Context } from "hono";

/**
 * A request's body as UTF-8 text, whatever its Content-Type. Read as bytes and decoded here: workerd warns on every
 * `.text()` of a body whose type is not textual (a shop's `application/x-www-form-urlencoded` post), which would fill
 * a healthy run's log with warnings about nothing (decisions.md 15's shop form is read by its own parser).
 */
export async function bodyText(c: Context): Promise<string> {
  return new TextDecoder().decode(await c.req.arrayBuffer());
}
