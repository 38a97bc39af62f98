// `npm run test:browser`: an organiser's evening in the console (decisions.md 15 "The organiser console";
// docs/console.md), through the screens only, as the "Done when" lists it: sign in; create an event with a
// ticket type, an input field and a scan key; print the scan keys' sheet; a dashboard order and its ticket; refund a
// paid order; export the orders CSV; watch the check-ins change live while scans arrive through `POST /scans`; sign
// out. axe-core finds no violation on any screen on the way.
//
// docs/console.md shows some of its screenshots: `CONSOLE_SCREENSHOTS=docs/console ./node_modules/.bin/node --test
// test/browser/console-flow.browser.mjs` writes them there (console-*.png).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import {
  byRole,
  checkScreen,
  click,
  consoleKit,
  downloadsTo,
  controlLabelled,
  eventually,
  fillLabel,
  newPage,
  paidOrder,
  scanTicket,
  selectLabel,
  signIn,
  waitForHeading,
  waitForText,
} from "./console-kit.mjs";

const ORDERING_KEY = "console-flow-ordering-key";
const kit = consoleKit("console-flow");
const { step } = kit;
const ctx = { eventName: `Harbour lights ${Date.now().toString(36)}` };

describe("the console in Chromium: an organiser's evening, through the screens", { timeout: 6 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      await kit.start({ ORDERING_KEY });
      ctx.page = await newPage(kit.browser);
      ctx.page.on("dialog", (dialog) => dialog.accept());
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("signs in", async () => {
    await signIn(ctx.page, kit, { hash: "/events" });
    await waitForHeading(ctx.page, "Events");
    await checkScreen(ctx.page, "the events list");
  });

  step("creates an event, and switches dashboard orders on in its settings", async () => {
    const page = ctx.page;
    await click(page, "link", "New event");
    await waitForHeading(page, "New event");
    await fillLabel(page, "Event name", ctx.eventName);
    await fillLabel(page, "Event stock", "500");
    await checkScreen(page, "the new event form");
    await click(page, "button", "Create event");
    await waitForHeading(page, ctx.eventName);
    await page.waitForFunction(() => /^#\/events\/\d+\/settings$/.test(location.hash));
    ctx.eventId = Number((await page.evaluate(() => location.hash)).split("/")[2]);
    const dashboard = await controlLabelled(page, "Dashboard orders (placed in the console, without payment)");
    await dashboard.click();
    await click(page, "button", "Save settings");
    await waitForText(page, "Saved.");
    await page.evaluate(() => scrollTo(0, 0));
    await kit.shot(page, "console-settings", { fullPage: false });
    await checkScreen(page, "the event's settings");
    const event = await kit.service.admin("GET", `/admin/events/${ctx.eventId}`);
    assert.equal(event.add_dashboard_orders_needed, true);
  });

  step("adds a ticket type and an input field", async () => {
    const page = ctx.page;
    await click(page, "link", "Ticket types");
    await byRole(page, "button", "Create ticket type");
    await fillLabel(page, "Name", "Deck");
    await fillLabel(page, "Price", "12.50");
    await click(page, "button", "Create ticket type");
    await waitForText(page, "Change Deck");
    await checkScreen(page, "the ticket types");
    await click(page, "link", "Input fields");
    await byRole(page, "button", "Create input field");
    await fillLabel(page, "Name", "Boat");
    await click(page, "button", "Create input field");
    await waitForText(page, "Change Boat");
    await checkScreen(page, "the input fields");
    const types = await kit.service.admin("GET", `/admin/events/${ctx.eventId}/ticket-types`);
    assert.deepEqual(
      types.map((t) => [t.name, Number(t.price)]),
      [["Deck", 12.5]],
    );
    ctx.typeId = types[0].id;
    const fields = await kit.service.admin("GET", `/admin/events/${ctx.eventId}/input-fields`);
    assert.deepEqual(
      fields.map((f) => f.name),
      ["Boat"],
    );
  });

  step("adds a scan key, and prints the sheet of the keys' QR codes", async () => {
    const page = ctx.page;
    await click(page, "link", "Scan keys");
    await byRole(page, "button", "Create scan key");
    await fillLabel(page, "Location", "Quay gate");
    await selectLabel(page, "Level", "0 · Entrance: admits a ticket once.");
    await click(page, "button", "Create scan key");
    await page.waitForFunction(() => [...document.querySelectorAll("main img")].some((img) => img.complete && img.naturalWidth > 0));
    await checkScreen(page, "the scan keys");
    const keys = await kit.service.admin("GET", `/admin/events/${ctx.eventId}/scan-keys`);
    assert.equal(keys.length, 1);
    assert.equal(keys[0].location, "Quay gate");
    ctx.key = keys[0].key;

    await click(page, "link", "Printable sheet of the QR codes");
    await waitForHeading(page, `Scan keys of ${ctx.eventName}`);
    await page.waitForFunction(() => [...document.querySelectorAll("main img")].filter((img) => img.complete && img.naturalWidth > 0).length === 1);
    await waitForText(page, "Quay gate");
    await checkScreen(page, "the scan keys' sheet");
    // The browser's print dialog is the system's: the test notes that it was asked for, and looks at the print styles.
    await page.evaluate(() => {
      window.print = () => {
        window.printed = true;
      };
    });
    await click(page, "button", "Print");
    assert.equal(await page.evaluate(() => window.printed), true);
    await page.emulateMediaType("print");
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector("header.top")).display), "none");
    await kit.shot(page, "console-keys-sheet");
    await page.emulateMediaType("screen");
  });

  step("places a dashboard order and sees its ticket", async () => {
    const page = ctx.page;
    await page.goto(kit.consoleUrl(`/events/${ctx.eventId}/orders`), { waitUntil: "load" });
    await click(page, "link", "New dashboard order for this event");
    await waitForText(page, `Order for ${ctx.eventName}`);
    await fillLabel(page, "Deck", 2);
    await fillLabel(page, "Name", "Ada Lovelace");
    await fillLabel(page, "Email", "ada@example.com");
    await fillLabel(page, "Boat", "Analytical");
    await checkScreen(page, "the dashboard order form");
    await click(page, "button", "Place the order");
    await page.waitForFunction(() => /^Order \d+$/.test(document.querySelector("main h1")?.textContent ?? ""));
    ctx.dashboardId = Number((await page.evaluate(() => document.querySelector("main h1").textContent)).replace("Order ", ""));
    await page.waitForSelector('::-p-aria([name="Tickets"][role=table])');
    const tickets = await kit.service.admin("GET", `/admin/tickets/${ctx.dashboardId}`);
    assert.equal(tickets.tickets.length, 2);
    for (const ticket of tickets.tickets) await waitForText(page, ticket.ticket_id);
    ctx.tickets = tickets.tickets.map((t) => t.ticket_id);
    await kit.shot(page, "console-order");
    await checkScreen(page, "the dashboard order's page with its tickets");
  });

  step("refunds a paid order", async () => {
    const page = ctx.page;
    const order = await paidOrder(kit.service, ORDERING_KEY, ctx.eventId, { name: "Grace Hopper", email: "grace@example.com", tickets: [{ [ctx.typeId]: 2 }] });
    await page.goto(kit.consoleUrl(`/orders/${order.id}`), { waitUntil: "load" });
    await waitForHeading(page, `Order ${order.id}`);
    await waitForText(page, "Grace Hopper");
    await click(page, "button", "Refund");
    await waitForText(page, "Refund of €25.00 requested.");
    await eventually("the refund", async () => (await kit.service.admin("GET", `/admin/orders/${order.id}`)).payment_status === "refunded");
    await checkScreen(page, "the order after its refund");
  });

  step("exports the orders CSV", async () => {
    const page = ctx.page;
    const dir = mkdtempSync(join(tmpdir(), "ticketing-console-flow-downloads-"));
    await downloadsTo(page, dir);
    await page.goto(kit.consoleUrl(`/events/${ctx.eventId}/exports`), { waitUntil: "load" });
    await waitForText(page, "One row per order");
    const answered = page.waitForResponse((r) => r.url().endsWith(`/admin/events/${ctx.eventId}/exports/orders.csv`));
    await click(page, "button", "Download the orders");
    const response = await answered;
    assert.equal(response.status(), 200);
    assert.match(response.headers()["content-type"], /^text\/csv/);
    await waitForText(page, "Downloaded.");
    const name = `event-${ctx.eventId}-orders.csv`;
    await eventually("the download", async () => existsSync(join(dir, name)), 10_000);
    const text = readFileSync(join(dir, name), "utf8");
    assert.match(text, /^\uFEFForder_id,/);
    assert.ok(text.includes("grace@example.com") && text.includes("ada@example.com"), text);
    await checkScreen(page, "the exports");
  });

  step("watches the check-ins change live while scans arrive through POST /scans", async () => {
    const page = ctx.page;
    await page.goto(kit.consoleUrl(`/events/${ctx.eventId}`), { waitUntil: "load" });
    await waitForHeading(page, ctx.eventName);
    await page.waitForFunction(() => document.querySelector('[data-live="admitted"]')?.textContent === "0");
    await page.evaluate(() => {
      window.notReloaded = true;
    });
    for (const ticket of ctx.tickets) await scanTicket(kit.service, ctx.key, ticket);
    await page.waitForFunction(() => document.querySelector('[data-live="admitted"]')?.textContent === "2", { timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.notReloaded), true);
    await kit.shot(page, "console-live");
    await checkScreen(page, "the live section after the scans");
  });

  step("signs out", async () => {
    const page = ctx.page;
    await click(page, "button", "Sign out");
    await waitForText(page, "You are signed out.");
    await checkScreen(page, "the sign-in form after signing out");
  });
});
