/**
 * Names and email addresses of orders, coupons and users hold no control characters (decisions.md 14): nobody
 * types them, and a CR or LF carried into an email header, a log line or a CSV row starts a new one.
 */

/** U+0000 to U+001F and U+007F; tested on the value after its usual trimming. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** The refusal text of a name (decisions.md 14), for the order rules and the request schemas alike. */
export const INVALID_NAME = "Name contains invalid characters";
