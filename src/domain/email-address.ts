import { regexes } from "zod/v4/core";

/**
 * An email address as the service accepts one (decisions.md 5.4): zod's `z.email()` pattern, read from zod's core so
 * the shop page's script (src/shop-app) checks an address by the very rule the order does, without bundling zod.
 */
export function isEmailAddress(text: string): boolean {
  return regexes.email.test(text);
}
