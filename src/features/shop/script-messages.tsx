import { raw } from "hono/html";
import { ERROR_CODES } from "../../domain/error-codes";
import { errorText, type Lang, messagesFor } from "../../domain/messages";
import type { CheckCode } from "../../domain/shop-checks";

/**
 * Every code the page's script may show before the form is sent (src/domain/shop-checks.ts), keyed by its type:
 * a code the checks answer and this list lacks fails the type check.
 */
const SCRIPT_CODES: { readonly [C in CheckCode]: C } = {
  order_missing_input: "order_missing_input",
  order_invalid_email: "order_invalid_email",
  order_no_tickets: "order_no_tickets",
  order_wrong_amount: "order_wrong_amount",
  order_stock_unavailable: "order_stock_unavailable",
  order_required_fields: "order_required_fields",
  order_illegal_field_value: "order_illegal_field_value",
  order_terms_not_accepted: "order_terms_not_accepted",
  order_invalid_event_ids: "order_invalid_event_ids",
};

/**
 * The words the shop page's script shows, in the page's language, as data in the page (decisions.md 15 "Languages"):
 * `<script type="application/json" id="shop-messages">`, which no browser runs (the CSP allows scripts from 'self'
 * only), so the one bundle serves every language without carrying five catalogues. Error texts are those of the
 * codes (errorText), the same texts a refused post shows.
 */
export function ShopScriptMessages({ lang }: { lang: Lang }) {
  const words = messagesFor(lang).shop;
  const data = {
    problem: words.errorSummary,
    network: words.networkError,
    errors: Object.fromEntries(Object.values(SCRIPT_CODES).map((code) => [code, errorText(lang, code, ERROR_CODES[code].message)])),
  };
  // `<` escaped so no text can end the element early.
  return (
    <script type="application/json" id="shop-messages">
      {raw(JSON.stringify(data).replace(/</g, "\\u003c"))}
    </script>
  );
}
