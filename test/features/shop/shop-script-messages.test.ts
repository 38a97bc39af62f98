import { describe, expect, it } from "vitest";
import { errorText, messagesFor } from "../../../src/domain/messages";
import { ERROR_CODES } from "../../../src/domain/error-codes";
import { call } from "../../helpers/api";
import { createEvent, createTicketType } from "../../helpers/catalogue";

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

/** What the script checks a count against comes with each ticket input (docs/shop.md "What customers see"). */
describe("the shop page's ticket inputs for the script", () => {
  it("carry the type's minimum and, where the type shows it, what is left", async () => {
    const event = await createEvent({ event_name: "Limits" });
    const shown = await createTicketType(event.id, { name: "Shown", price: 5, minimum_to_order: 2, stock_control: true, stock: 7, show_remaining: true });
    const hidden = await createTicketType(event.id, { name: "Hidden", price: 5, stock_control: true, stock: 3 });
    const res = await call("GET", `/shop/${event.id}`, { key: null, auth: null });
    const html = await res.text();
    expect(res.status, html).toBe(200);
    const input = (id: string) => new RegExp(`<input[^>]*name="ticket_${id}"[^>]*>`).exec(html)?.[0] ?? "";
    expect(input(shown.id)).toContain('data-minimum="2"');
    expect(input(shown.id)).toContain('data-remaining="7"');
    expect(input(hidden.id), "what is left stays hidden where the type does not show it").not.toContain("data-remaining");
    expect(input(hidden.id)).not.toContain("data-minimum");
  });
});
