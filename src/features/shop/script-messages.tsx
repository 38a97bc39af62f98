import { raw } from "hono/html";
import { ERROR_CODES } from "../../domain/error-codes";
import { errorText, type Lang, messagesFor } from "../../domain/messages";
import { CHECK_CODES } from "../../domain/shop-checks";

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
    errors: Object.fromEntries(CHECK_CODES.map((code) => [code, errorText(lang, code, ERROR_CODES[code].message)])),
  };
  // `<` escaped so no text can end the element early.
  return (
    <script type="application/json" id="shop-messages">
      {raw(JSON.stringify(data).replace(/</g, "\\u003c"))}
    </script>
  );
}
