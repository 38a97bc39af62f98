// The console's events area (decisions.md 15 "The organiser console"; docs/console.md) in a real headless
// Chromium: the list and its search, a new event, its settings with the service's refusals beside their fields,
// ticket types (one created from the keyboard alone) and input fields, and deleting an event.
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import {
  byRole,
  checkScreen,
  click,
  consoleKit,
  controlLabelled,
  errorBeside,
  fillLabel,
  newPage,
  selectLabel,
  signIn,
  tabTo,
  waitForHeading,
  waitForText,
} from "./console-kit.mjs";

const kit = consoleKit("console-events");
const { step } = kit;
const run = Date.now().toString(36);
const state = { page: undefined, eventId: 0, eventName: `Console gala ${run}` };

/**
 * A page in a browser context of its own, so the step signs in afresh: a new tab of the same context is already
 * signed in (the console keeps its session in localStorage beside the cookie, docs/console.md).
 */
describe("the console in Chromium: events, their settings, ticket types and input fields", { timeout: 6 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      await kit.start();
      await kit.service.admin("POST", "/admin/events", { event_name: `Listed ${run}`, group_type: 1, event_group: `Tour ${run}`, stock: 40 });
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("the events list shows the events with their group, and searches by name", async () => {
    const page = await newPage(kit.browser);
    state.page = page;
    await signIn(page, kit, { hash: "/events" });
    await waitForHeading(page, "Events");
    await waitForText(page, `Listed ${run}`);
    await kit.shot(page, "console-events-list");
    await checkScreen(page, "the events list");
    await fillLabel(page, "Search events by name", `listed ${run}`);
    await click(page, "button", "Search");
    await page.waitForFunction(() => location.hash.includes("search="));
    await waitForText(page, "Events you may manage (1)");
    const row = await page.evaluate(() => [...document.querySelectorAll("tbody tr")].map((tr) => tr.textContent));
    assert.equal(row.length, 1);
    assert.match(row[0], new RegExp(`Tour ${run} \\(one date\\)`));
    assert.match(row[0], /0 \/ 40/);
    await fillLabel(page, "Search events by name", `nothing-like-this-${run}`);
    await click(page, "button", "Search");
    await waitForText(page, "No event's name contains");
    await checkScreen(page, "the events list, nothing found");
  });

  step("creates an event through #/events/new and lands on its settings", async () => {
    const page = state.page;
    await click(page, "link", "New event");
    await waitForHeading(page, "New event");
    await checkScreen(page, "the new event form");
    await fillLabel(page, "Event name", state.eventName);
    await fillLabel(page, "Event stock", "250");
    await click(page, "button", "Create event");
    await waitForHeading(page, state.eventName);
    await page.waitForFunction(() => /^#\/events\/\d+\/settings$/.test(location.hash));
    state.eventId = Number((await page.evaluate(() => location.hash)).split("/")[2]);
    const event = await kit.service.admin("GET", `/admin/events/${state.eventId}`);
    assert.equal(event.event_name, state.eventName);
    assert.equal(event.stock, 250);
    await byRole(page, "button", "Save settings");
    await checkScreen(page, "the event's settings");
  });

  step("changes settings: only what changed is sent, and it holds", async () => {
    const page = state.page;
    await fillLabel(page, "Order button label", "Buy now");
    await selectLabel(page, "Event type", "Select multiple dates: the customer picks one or several dates of the group");
    await fillLabel(page, "Event group", `Weekend ${run}`);
    await fillLabel(page, "Body of the order email", "<p>Hello {%NAME%}</p>");
    await click(page, "button", "Save settings");
    await waitForText(page, "Saved.");
    const event = await kit.service.admin("GET", `/admin/events/${state.eventId}`);
    assert.equal(event.order_submit_text, "Buy now");
    assert.equal(event.group_type, 2);
    assert.equal(event.event_group, `Weekend ${run}`);
    assert.equal(event.email.body, "<p>Hello {%NAME%}</p>");
    assert.equal(event.stock, 250, "a setting not touched keeps its value");
    // The body is text in a textarea, never markup on the page.
    assert.equal(await page.$$eval("main p", (ps) => ps.filter((p) => p.textContent === "Hello {%NAME%}").length), 0);
  });

  step("a refused value shows the service's error beside its field and changes nothing", async () => {
    const page = state.page;
    // The browser's maxlength would stop this; the service's rule is what is tested.
    const name = await controlLabelled(page, "Event name");
    await name.evaluate((el) => el.removeAttribute("maxlength"));
    await fillLabel(page, "Event name", "x".repeat(60));
    await click(page, "button", "Save settings");
    assert.equal(await errorBeside(page, "Event name"), "Must be at most 50 characters");
    assert.equal(await page.evaluate(() => document.activeElement?.className), "error-summary");
    await checkScreen(page, "the settings with the service's error");
    const event = await kit.service.admin("GET", `/admin/events/${state.eventId}`);
    assert.equal(event.event_name, state.eventName);

    // A nested setting's rule ("email": "subject must not be blank ...") lands beside that nested control.
    await fillLabel(page, "Event name", state.eventName);
    const send = await controlLabelled(page, "Send the order email");
    if (!(await send.evaluate((el) => el.checked))) await send.click();
    await fillLabel(page, "Subject of the order email", "");
    await click(page, "button", "Save settings");
    assert.match(await errorBeside(page, "Subject of the order email"), /must not be blank while emails_needed is on/i);
    await kit.shot(page, "console-events-settings-refused");
    await checkScreen(page, "the settings with a nested setting refused");
  });

  step("creates a ticket type from the keyboard alone", async () => {
    const page = state.page;
    await page.goto(kit.consoleUrl(`/events/${state.eventId}/types`), { waitUntil: "load" });
    await waitForText(page, "This event has no ticket types yet.");
    await checkScreen(page, "the ticket types, none yet");
    await tabTo(page, "Name");
    await page.keyboard.type("Regular");
    await tabTo(page, "Price");
    await page.keyboard.type("12.50");
    await tabTo(page, "Volume prices");
    await page.keyboard.type("10: 11");
    await page.keyboard.press("Enter");
    await page.keyboard.type("20: 10");
    await tabTo(page, "Create ticket type");
    await page.keyboard.press("Enter");
    await waitForText(page, "Created.");
    await byRole(page, "button", "Change Regular");
    const [type] = await kit.service.admin("GET", `/admin/events/${state.eventId}/ticket-types`);
    assert.equal(type.name, "Regular");
    assert.equal(type.price, 12.5);
    assert.deepEqual(type.volume_price, [{ 10: 11 }, { 20: 10 }]);
    await kit.shot(page, "console-events-types");
    await checkScreen(page, "the ticket types with one");
  });

  step("changes a ticket type, and a refused one shows the error beside its field", async () => {
    const page = state.page;
    await click(page, "button", "Change Regular");
    await waitForText(page, "Save ticket type");
    await (await controlLabelled(page, "Limit the stock of this type")).click();
    await fillLabel(page, "Stock", "100");
    await fillLabel(page, "Price", "15");
    await click(page, "button", "Save ticket type");
    await waitForText(page, "Saved.");
    const [type] = await kit.service.admin("GET", `/admin/events/${state.eventId}/ticket-types`);
    assert.equal(type.price, 15);
    assert.equal(type.stock_control, true);
    assert.equal(type.stock, 100);

    await fillLabel(page, "Name", "VIP");
    await fillLabel(page, "Price", "20");
    await fillLabel(page, "Volume prices", "1: 5");
    await click(page, "button", "Create ticket type");
    assert.match(await errorBeside(page, "Volume prices"), /must be a whole number of at least 2/);
    await checkScreen(page, "a ticket type refused");
  });

  step("creates, changes and deletes an input field", async () => {
    const page = state.page;
    await page.goto(kit.consoleUrl(`/events/${state.eventId}/fields`), { waitUntil: "load" });
    await waitForText(page, "This event has no input fields yet.");
    await checkScreen(page, "the input fields, none yet");
    await fillLabel(page, "Name", "Company");
    await selectLabel(page, "Type", "Choice from a list");
    await fillLabel(page, "Value", "Acme,Globex");
    await (await controlLabelled(page, "Required")).click();
    await click(page, "button", "Create input field");
    await byRole(page, "button", "Change Company");
    let [field] = await kit.service.admin("GET", `/admin/events/${state.eventId}/input-fields`);
    assert.deepEqual([field.name, field.type, field.value, field.is_required], ["Company", "select", "Acme,Globex", true]);
    await kit.shot(page, "console-events-fields");
    await checkScreen(page, "the input fields with one");

    await click(page, "button", "Change Company");
    await fillLabel(page, "Value", "Acme,Globex,Initech");
    await click(page, "button", "Save input field");
    await waitForText(page, "Saved.");
    [field] = await kit.service.admin("GET", `/admin/events/${state.eventId}/input-fields`);
    assert.equal(field.value, "Acme,Globex,Initech");

    // The service's rule on a reserved name, beside the name.
    await fillLabel(page, "Name", "Email");
    await click(page, "button", "Create input field");
    assert.match(await errorBeside(page, "Name"), /must not be Order-id, Name, Email/i);
    await checkScreen(page, "an input field refused");

    page.once("dialog", (dialog) => dialog.accept());
    await click(page, "button", "Delete Company");
    await waitForText(page, "This event has no input fields yet.");
    assert.deepEqual(await kit.service.admin("GET", `/admin/events/${state.eventId}/input-fields`), []);
  });

  step("deleting an event with orders is refused beside the button, and with its orders it goes", async () => {
    const page = state.page;
    const doomed = await kit.service.admin("POST", "/admin/events", { event_name: `Doomed ${run}`, add_dashboard_orders_needed: true });
    const type = await kit.service.admin("POST", `/admin/events/${doomed.id}/ticket-types`, { name: "Door", price: 5 });
    await kit.service.admin("POST", "/admin/orders", { event_id: doomed.id, name: "Ada", email: "ada@example.com", tickets: [{ [type.id]: 1 }] });
    await page.goto(kit.consoleUrl(`/events/${doomed.id}/settings`), { waitUntil: "load" });
    await waitForHeading(page, `Doomed ${run}`);
    page.once("dialog", (dialog) => dialog.accept());
    await click(page, "button", "Delete event");
    await page.waitForSelector(".problem");
    await checkScreen(page, "the settings with the delete refused");
    await kit.service.admin("GET", `/admin/events/${doomed.id}`);

    await (await controlLabelled(page, "Also delete its orders and tickets")).click();
    page.once("dialog", (dialog) => dialog.accept());
    await click(page, "button", "Delete event");
    await waitForHeading(page, "Events");
    await kit.service.admin("GET", `/admin/events/${doomed.id}`, undefined, 404);
    await page.close();
  });

  // In a context of its own, so signing in in Dutch leaves the first page's session alone.
  step("speaks Dutch on the new event form and the settings", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { lang: "nl", hash: "/events/new" });
    await waitForHeading(page, "Nieuw evenement");
    await controlLabelled(page, "Naam van het evenement");
    await checkScreen(page, "the new event form in Dutch");
    await page.goto(kit.consoleUrl(`/events/${state.eventId}/settings`, "nl"), { waitUntil: "load" });
    await waitForHeading(page, state.eventName);
    await byRole(page, "button", "Instellingen opslaan");
    await checkScreen(page, "the settings in Dutch");
    await page.close();
  });
});
