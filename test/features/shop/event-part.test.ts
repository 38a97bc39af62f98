import { afterEach, describe, expect, it, vi } from "vitest";
import { call, expectJson } from "../../helpers/api";
import { openPage, ordersOf, pageHtml, postForm, shop, validForm } from "./shop-helpers";

/**
 * decisions.md 15 "Weight and speed": the event's part of a shop page is kept at the edge for at most 10 s, while
 * the remaining numbers stay live; the form's post orders by what the organiser last saved.
 */
const remainingOf = (html: string, typeId: string) => new RegExp(`name="ticket_${typeId}"[^>]*data-remaining="(\\d+)"`).exec(html)?.[1];

describe("the shop page's kept event part", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows what remains live on every view, while the event's part is kept", async () => {
    const s = await shop({ types: [{ name: "Counted", price: 10, stock_control: true, stock: 5, show_remaining: true }] });
    const typeId = s.types[0]!.id;
    expect(remainingOf(await pageHtml(openPage(s.event.id)), typeId)).toBe("5");
    expect((await postForm(s.event.id, validForm(s, [2]))).status).toBe(303);
    expect(remainingOf(await pageHtml(openPage(s.event.id)), typeId)).toBe("3");
  });

  it("keeps the organiser's change out of the page for at most 10 s", async () => {
    const s = await shop({ types: [{ name: "Before", price: 10 }] });
    expect(await pageHtml(openPage(s.event.id))).toContain(">Before<");
    await expectJson(call("PUT", `/admin/events/${s.event.id}/ticket-types/${s.types[0]!.id}`, { body: { name: "After" } }), 200);
    expect(await pageHtml(openPage(s.event.id))).toContain(">Before<");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10_001 });
    const later = await pageHtml(openPage(s.event.id));
    expect(later).toContain(">After<");
    expect(later).not.toContain(">Before<");
  });

  it("orders by the event as saved: a sale closed after a view refuses the post the kept page still offers", async () => {
    const s = await shop({ event: { end_date: "2099-01-01 00:00:00" } });
    expect(await pageHtml(openPage(s.event.id))).toContain('id="order-form"');
    await expectJson(call("PUT", `/admin/events/${s.event.id}`, { body: { end_date: "2020-01-01 00:00:00" } }), 200);
    expect(await pageHtml(openPage(s.event.id))).toContain('id="order-form"');
    const refused = await pageHtml(postForm(s.event.id, validForm(s)), 422);
    expect(refused).toContain("This event is not open for orders.");
    expect(await ordersOf(s.event.id)).toEqual([]);
  });
});
