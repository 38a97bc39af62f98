// The console's live section (decisions.md 15 "The organiser console"; docs/console.md) in a real headless
// Chromium: an event's sales and check-ins change on screen as scans and orders happen, without reloading.
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { checkScreen, click, consoleKit, eventually, newPage, scanTicket, signIn, waitForHeading } from "./console-kit.mjs";

const kit = consoleKit("console-live");
const { step } = kit;
const ctx = {};

/** The number an element of the live section shows (`data-live` names it), or null while it is not there. */
const shown = (page, name) => page.evaluate((n) => document.querySelector(`[data-live="${n}"]`)?.textContent ?? null, name);

/** Waits (within the step's time) until the live section shows `value` for `name`, the page never reloaded. */
async function waitForLive(page, name, value) {
  await page.waitForFunction((n, v) => document.querySelector(`[data-live="${n}"]`)?.textContent === v, { timeout: 15_000 }, name, value);
}

describe("the console's live section in Chromium", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      const service = await kit.start();
      const event = await service.admin("POST", "/admin/events", { event_name: "Live test festival", add_dashboard_orders_needed: true });
      ctx.eventId = event.id;
      ctx.eventName = event.event_name;
      const day = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "Day ticket", price: 20 });
      const weekend = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "Weekend", price: "35.50" });
      ctx.types = [day.id, weekend.id];
      ctx.key = (await service.admin("POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "North gate" })).key;
      await service.admin("POST", "/admin/orders", { event_id: event.id, name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [day.id]: 3, [weekend.id]: 0 }] });
      let list;
      await eventually(
        "the order's three tickets at the door",
        async () => {
          list = await (await fetch(`${service.url}/scans/tickets?per_page=100`, { headers: { "X-EVT-API-KEY": ctx.key } })).json();
          return list.tickets?.length === 3;
        },
        10_000,
      );
      ctx.tickets = list.tickets.map((t) => t.ticket_id);
      assert.equal(ctx.tickets.length, 3, JSON.stringify(list));
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("shows the sales and no check-ins yet, with an empty chart", async () => {
    const page = await newPage(kit.browser);
    ctx.page = page;
    await signIn(page, kit, { hash: `/events/${ctx.eventId}/live` });
    await waitForHeading(page, ctx.eventName);
    await waitForLive(page, "tickets", "3");
    assert.equal(await shown(page, "admitted"), "0");
    assert.equal(await shown(page, "revenue"), "€60.00");
    assert.equal(await shown(page, "inside"), null);
    const chart = await page.evaluate(() => document.querySelector("svg[role=img]")?.getAttribute("aria-label"));
    assert.match(chart, /^Admitted per five minutes over the last three hours, from \d\d:\d\d to \d\d:\d\d: 0 in all/);
    await checkScreen(page, "the live section before any scan");
  });

  step("two scans at the door show in the count and the chart within seconds, without reloading", async () => {
    const page = ctx.page;
    // A mark on the window: a reload would drop it.
    await page.evaluate(() => {
      window.liveMark = "kept";
    });
    const focused = await page.evaluate(() => document.activeElement?.tagName);
    await scanTicket(kit.service, ctx.key, ctx.tickets[0]);
    await scanTicket(kit.service, ctx.key, ctx.tickets[1]);
    await waitForLive(page, "admitted", "2");
    await page.waitForFunction(() => document.querySelector("svg[role=img]")?.getAttribute("data-total") === "2", { timeout: 15_000 });
    const chart = await page.evaluate(() => document.querySelector("svg[role=img]").getAttribute("aria-label"));
    assert.match(chart, /2 in all, at most 2 in five minutes/);
    assert.equal(await page.evaluate(() => window.liveMark), "kept");
    // The numbers changed under the reader; the focus stayed where it was.
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), focused);
    const row = await page.evaluate(
      () => [...document.querySelectorAll("table")].find((t) => t.caption?.textContent === "Admitted per location")?.querySelector("tbody tr")?.textContent,
    );
    assert.equal(row, "North gate2");
    await kit.shot(page, "console-live");
  });

  step("a dashboard order shows in the sales without reloading", async () => {
    const page = ctx.page;
    const [day, weekend] = ctx.types;
    await kit.service.admin("POST", "/admin/orders", { event_id: ctx.eventId, name: "Grace Hopper", email: "grace@example.com", tickets: [{ [day]: 0, [weekend]: 2 }] });
    await waitForLive(page, "tickets", "5");
    await waitForLive(page, "orders", "2");
    assert.equal(await shown(page, "revenue"), "€131.00");
    assert.equal(await page.evaluate(() => window.liveMark), "kept");
  });

  step("the chart's numbers as a table, from the keyboard", async () => {
    const page = ctx.page;
    await click(page, "DisclosureTriangle", "Show as table");
    await page.waitForSelector('::-p-aria([role=table][name="Admitted per five minutes"])', { visible: true });
    const total = await page.evaluate(() => {
      const table = [...document.querySelectorAll("table")].find((t) => t.caption?.textContent === "Admitted per five minutes");
      return [...table.querySelectorAll("tbody td")].reduce((n, td) => n + Number(td.textContent), 0);
    });
    assert.equal(total, 2);
    await checkScreen(page, "the live section with scans, sales and the chart's table");
  });

  step("asks nothing while the tab is hidden (and at once when shown again), nor once another section is open", async () => {
    const page = ctx.page;
    const asked = [];
    page.on("request", (req) => {
      if (new URL(req.url()).pathname.endsWith(`/admin/events/${ctx.eventId}/live`)) asked.push(Date.now());
    });
    const setVisibility = (state) =>
      page.evaluate((v) => {
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => v });
        document.dispatchEvent(new Event("visibilitychange"));
      }, state);
    await setVisibility("hidden");
    await new Promise((r) => setTimeout(r, 500)); // a request already on its way
    asked.length = 0;
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(asked.length, 0, "asked while hidden");
    const shownAt = Date.now();
    await setVisibility("visible");
    for (let i = 0; i < 20 && asked.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(asked.length > 0 && asked[0] - shownAt < 2000, "asked at once when shown again");

    await click(page, "link", "Settings");
    await page.waitForFunction(() => !document.querySelector("[data-live]"));
    await new Promise((r) => setTimeout(r, 500));
    asked.length = 0;
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(asked.length, 0, "asked after the section closed");
    await page.close();
  });
});
