import { describe, expect, it } from "vitest";
import { errorText, messagesFor } from "../../../src/domain/messages";
import { ERROR_CODES } from "../../../src/domain/error-codes";
import { call } from "../../helpers/api";
import { createEvent } from "../../helpers/catalogue";

/**
 * The words the shop page's script shows (src/shop-app/shop-page.ts) come with the page, in its language, as data
 * no browser runs (decisions.md 15 "Languages"; docs/shop.md).
 */
describe("the shop page's script messages", () => {
  it("are a JSON block in the page's language: the summary heading, the network text and the error texts by code", async () => {
    const event = await createEvent({ event_name: "Messages" });
    for (const lang of ["en", "de"] as const) {
      const res = await call("GET", `/shop/${event.id}?lang=${lang}`, { key: null, auth: null });
      const html = await res.text();
      expect(res.status, html).toBe(200);
      const block = /<script type="application\/json" id="shop-messages">([^<]*)<\/script>/.exec(html);
      expect(block, html).not.toBeNull();
      const data = JSON.parse(block![1]!);
      expect(data.problem).toBe(messagesFor(lang).shop.errorSummary);
      expect(data.network).toBe(messagesFor(lang).shop.networkError);
      expect(data.errors.order_invalid_email).toBe(errorText(lang, "order_invalid_email", ERROR_CODES.order_invalid_email.message));
      expect(Object.keys(data.errors)).toContain("order_terms_not_accepted");
    }
  });
});
