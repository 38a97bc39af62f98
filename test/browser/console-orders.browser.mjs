// `npm run test:browser`: the console's orders (decisions.md 15 "The organiser console"; docs/console.md) in
// a real headless Chromium: a dashboard order placed through the form and its ticket, the API's refusal of a
// dashboard order on an event without them, searching orders, refunding a paid order, resending its email, and the
// orders CSV downloaded from the event's exports. axe-core finds no violation on any screen or state.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import {
  byLabel,
  checkScreen,
  click,
  consoleKit,
  downloadsTo,
  eventually,
  fillLabel,
  newPage,
  paidOrder,
  selectLabel,
  signIn,
  waitForHeading,
  waitForText,
} from "./console-kit.mjs";

const kit = consoleKit("console-orders");
const { step } = kit;
const ctx = {};

/**
 * A page in a browser context of its own: the console keeps its session in localStorage, which every page of one
 * context shares (src/console-app/session.ts), so a second page of the same context would already be signed in and
 * `signIn` would find no sign-in form.
 */
describe("the console in Chromium: orders", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      const service = await kit.start();
      const on = await service.admin("POST", "/admin/events", { event_name: "Orders console concert", add_dashboard_orders_needed: true });
      const standing = await service.admin("POST", `/admin/events/${on.id}/ticket-types`, { name: "Standing", price: 12.5, maximum_to_order: 0 });
      const seated = await service.admin("POST", `/admin/events/${on.id}/ticket-types`, { name: "Seated", price: 20, maximum_to_order: 0 });
      await service.admin("POST", `/admin/events/${on.id}/input-fields`, { name: "Company" });
      const off = await service.admin("POST", "/admin/events", { event_name: "Orders console no dashboard" });
      await service.admin("POST", `/admin/events/${off.id}/ticket-types`, { name: "Entry", price: 5, maximum_to_order: 0 });
      // A customer's order, paid through the test provider's checkout (decisions.md 5.3).
      const paid = await paidOrder(service, service.apiKey, on.id, {
        name: "Grace Hopper",
        email: "grace@example.com",
        tickets: [{ [standing.id]: 2 }, { [seated.id]: 0 }],
      });
      Object.assign(ctx, { on, off, standing, seated, paid });
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("a dashboard order on an event without them: the API's refusal is shown, nothing is ordered", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/orders/new" });
    await waitForHeading(page, "New dashboard order");
    await checkScreen(page, "the new order's event choice");
    await selectLabel(page, "Event", `Orders console no dashboard (#${ctx.off.id})`);
    await click(page, "button", "Choose this event");
    await waitForText(page, "Order for Orders console no dashboard");
    await fillLabel(page, "Entry", 1);
    await fillLabel(page, "Name", "Nobody");
    await fillLabel(page, "Email", "nobody@example.com");
    await click(page, "button", "Place the order");
    await waitForText(page, "Orders from the dashboard are not enabled for this event.");
    assert.equal(await page.evaluate(() => document.activeElement?.className), "error-summary");
    await checkScreen(page, "the new order with the API's refusal");
    const orders = await kit.service.admin("GET", `/admin/orders?event_id=${ctx.off.id}`);
    assert.deepEqual(orders, []);
    await page.close();
  });

  step("a dashboard order through the form: the order's page with its ticket", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: `/events/${ctx.on.id}/orders` });
    await click(page, "link", "New dashboard order for this event");
    await waitForText(page, "Order for Orders console concert");
    await checkScreen(page, "the new order's form");
    await fillLabel(page, "Standing", 1);
    await fillLabel(page, "Name", "Ada Lovelace");
    await fillLabel(page, "Email", "ada@example.com");
    await fillLabel(page, "Company", "Analytical Engines");
    await click(page, "button", "Place the order");
    await page.waitForFunction(() => /^Order \d+$/.test(document.querySelector("main h1")?.textContent ?? ""));
    const id = Number((await page.evaluate(() => document.querySelector("main h1").textContent)).replace("Order ", ""));
    ctx.dashboard = id;
    await waitForText(page, "Analytical Engines");
    await waitForText(page, "Dashboard order");
    await page.waitForSelector('::-p-aria([name="Tickets"][role=table])');
    const tickets = await kit.service.admin("GET", `/admin/tickets/${id}`);
    assert.equal(tickets.tickets.length, 1);
    await waitForText(page, tickets.tickets[0].ticket_id);
    const link = await byLabel(page, "The customer's tickets (PDF)");
    assert.equal(await link.evaluate((a) => a.href), tickets._links.download[0].href);
    const order = await kit.service.admin("GET", `/admin/orders/${id}`);
    assert.equal(order.payment_status, "dashboard");
    assert.deepEqual(order.input_fields.fields, [{ name: "Company", value: "Analytical Engines" }]);
    await kit.shot(page, "console-order-dashboard");
    await checkScreen(page, "a dashboard order's page");
    await page.close();
  });

  step("an order's contact: the API's refusal beside its field, then saved; its tickets deleted and issued again; the order deleted", async () => {
    const page = await newPage(kit.browser);
    page.on("dialog", (dialog) => dialog.accept());
    await signIn(page, kit, { hash: `/orders/${ctx.dashboard}` });
    await waitForHeading(page, `Order ${ctx.dashboard}`);
    // The browser's own check lets `ada@localhost` through; the service's does not, and says so beside the field.
    await fillLabel(page, "Email", "ada@localhost");
    await click(page, "button", "Save contact and status");
    await page.waitForSelector("form .field.has-error input[name=email][aria-invalid=true]");
    await checkScreen(page, "the contact form with the API's refusal beside its field");
    await fillLabel(page, "Email", "ada@example.org");
    await fillLabel(page, "Custom status", "VIP");
    await click(page, "button", "Save contact and status");
    await waitForText(page, "Saved.");
    const changed = await kit.service.admin("GET", `/admin/orders/${ctx.dashboard}`);
    assert.equal(changed.email, "ada@example.org");
    assert.equal(changed.custom_status, "VIP");

    const first = (await kit.service.admin("GET", `/admin/tickets/${ctx.dashboard}`)).tickets[0].ticket_id;
    await click(page, "button", "Delete the tickets");
    await waitForText(page, "This order has no tickets.");
    await checkScreen(page, "an order without tickets");
    await click(page, "button", "Issue the tickets again");
    await waitForText(page, "The tickets are issued.");
    const again = (await kit.service.admin("GET", `/admin/tickets/${ctx.dashboard}`)).tickets;
    assert.equal(again.length, 1);
    assert.notEqual(again[0].ticket_id, first);
    await waitForText(page, again[0].ticket_id);

    await click(page, "button", "Delete the order");
    await waitForHeading(page, "Orders");
    await kit.service.admin("GET", `/admin/orders/${ctx.dashboard}`, undefined, 404);
    await page.close();
  });

  step("in Dutch: an order's page", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { lang: "nl", hash: `/orders/${ctx.paid.id}` });
    await waitForHeading(page, `Bestelling ${ctx.paid.id}`);
    await waitForText(page, "Bestelmail opnieuw sturen");
    await checkScreen(page, "an order's page in Dutch");
    await page.close();
  });

  step("searching orders by email keeps the search in the address and links to the order", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/orders" });
    await waitForHeading(page, "Orders");
    await fillLabel(page, "Email contains", "grace@");
    await click(page, "button", "Search");
    await page.waitForFunction(() => location.hash.includes("search=grace%40"));
    await page.waitForSelector(`::-p-aria([name="#${ctx.paid.id}"][role=link])`);
    assert.equal(await page.evaluate(() => document.body.textContent.includes("ada@example.com")), false);
    await checkScreen(page, "the order search with results");
    await page.close();
  });

  step("a paid order: refunded after a confirmation, and its email sent again", async () => {
    const page = await newPage(kit.browser);
    page.on("dialog", (dialog) => dialog.accept());
    await signIn(page, kit, { hash: `/orders/${ctx.paid.id}` });
    await waitForHeading(page, `Order ${ctx.paid.id}`);
    await waitForText(page, "Grace Hopper");
    await checkScreen(page, "a paid order's page");

    const before = await kit.service.admin("GET", `/admin/emails?order_id=${ctx.paid.id}`);
    await click(page, "button", "Resend the order email");
    await waitForText(page, "The order email is on its way.");
    const emails = await kit.service.admin("GET", `/admin/emails?order_id=${ctx.paid.id}`);
    assert.equal(emails.length, before.length + 1);

    await click(page, "button", "Refund");
    await waitForText(page, "Refund of €25.00 requested.");
    await eventually("the refund", async () => (await kit.service.admin("GET", `/admin/orders/${ctx.paid.id}`)).payment_status === "refunded");
    await page.reload({ waitUntil: "load" });
    await waitForText(page, "Refunded");
    await checkScreen(page, "a refunded order's page");
    await page.close();
  });

  step("the event's exports: the orders CSV is fetched with the session's header and saved", async () => {
    const page = await newPage(kit.browser);
    const dir = mkdtempSync(join(tmpdir(), "ticketing-console-downloads-"));
    await downloadsTo(page, dir);
    await signIn(page, kit, { hash: `/events/${ctx.on.id}/exports` });
    await waitForText(page, "One row per order");
    await checkScreen(page, "the event's exports");
    const answered = page.waitForResponse((r) => r.url().endsWith(`/admin/events/${ctx.on.id}/exports/orders.csv`));
    await click(page, "button", "Download the orders");
    const response = await answered;
    assert.equal(response.status(), 200);
    assert.match(response.headers()["content-type"], /^text\/csv/);
    await waitForText(page, "Downloaded.");
    const name = `event-${ctx.on.id}-orders.csv`;
    await eventually("the download", async () => readdirSync(dir).includes(name), 10_000);
    const file = readFileSync(join(dir, name));
    assert.deepEqual([...file.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const lines = file.subarray(3).toString("utf8").split("\r\n");
    assert.match(lines[0], /^order_id,created_at,payment_status,custom_status,name,email,num_tickets,total,discount,currency,coupon,Company$/);
    assert.ok(lines.some((l) => l.includes("grace@example.com")));
    await checkScreen(page, "the event's exports after a download");
    await page.close();
  });
});
