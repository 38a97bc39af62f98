// The event page's waiting list in the console (decisions.md 15 "Selling like the peers"; docs/console.md "Waiting
// list") in a real headless Chromium: the entries joined through the public API with their states (one offered when
// a unit came back), a delete that asks first and one the service refuses, the flag switched in the settings and the
// line that says it is off, axe on each state, and the delete button reached with the Tab key.
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { checkScreen, click, consoleKit, controlLabelled, eventually, newPage, signIn, tabTo, waitForHeading, waitForText } from "./console-kit.mjs";

const kit = consoleKit("console-waiting-list");
const { step } = kit;
const run = Date.now().toString(36);
const ctx = { eventName: `Waiting gala ${run}` };
const FLAG = "Waiting list (buyers join when a ticket type is sold out)";

/** Joins the event's waiting list as a buyer does: the public route with the API key (docs/ordering.md "Waiting list"). */
async function join(service, eventId, body) {
  const res = await fetch(`${service.url}/events/${eventId}/waiting-list`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-EVT-API-KEY": service.apiKey },
    body: JSON.stringify(body),
  });
  const joined = await res.json();
  assert.equal(res.status, 201, JSON.stringify(joined));
  return joined;
}

/** The rows of the waiting list's table as the page shows them, one array of cell texts a row. */
const rows = (page) =>
  page.evaluate(() => {
    const table = [...document.querySelectorAll("table")].find((t) => t.caption?.textContent.startsWith("Entries of the waiting list"));
    return [...(table?.querySelectorAll("tbody tr") ?? [])].map((tr) => [...tr.children].map((cell) => cell.textContent.trim()));
  });

describe("the console's waiting list in Chromium", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      const service = await kit.start();
      const event = await service.admin("POST", "/admin/events", { event_name: ctx.eventName, waiting_list_needed: true, add_dashboard_orders_needed: true });
      ctx.eventId = event.id;
      const type = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "Standing", price: 0, stock_control: true, stock: 1 });
      // Sold out by one dashboard order; its delete later gives the unit back, which the line's first gets offered.
      ctx.early = await service.admin("POST", "/admin/orders", { event_id: event.id, name: "Early Bird", email: "early@example.com", tickets: [{ [type.id]: 1 }] });
      ctx.entries = {};
      for (const name of ["Ada", "Grace", "Linus"]) {
        ctx.entries[name] = await join(service, event.id, { name, email: `${name.toLowerCase()}@example.com`, ticket_type_id: type.id, count: 1 });
      }
      await service.admin("DELETE", `/admin/orders/${ctx.early.id}`);
      await eventually("the unit that came back offered to Ada", async () => {
        const list = await service.admin("GET", `/admin/events/${event.id}/waiting-list`);
        return list[0]?.state === "offered";
      });
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("lists the entries in the order they joined, with their states in words and the count", async () => {
    const page = await newPage(kit.browser);
    ctx.page = page;
    await signIn(page, kit, { hash: `/events/${ctx.eventId}/waiting-list` });
    await waitForHeading(page, ctx.eventName);
    await waitForText(page, "Waiting list (3)");
    const shown = await rows(page);
    assert.deepEqual(
      shown.map((r) => r.slice(0, 5)),
      [
        ["Ada", "ada@example.com", "Standing", "1", "Offered"],
        ["Grace", "grace@example.com", "Standing", "1", "Waiting"],
        ["Linus", "linus@example.com", "Standing", "1", "Waiting"],
      ],
    );
    const [ada, grace] = shown;
    assert.match(ada[5], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, "joined");
    assert.match(ada[6], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, "the offer's end");
    assert.equal(grace[6], "–", "no offer yet");
    assert.equal(grace[7], "–", "no order");
    assert.equal(await page.evaluate(() => document.querySelector("nav.tabs a[aria-current=page]")?.textContent), "Waiting list");
    assert.equal(await page.evaluate(() => document.querySelector(".notice")), null, "the flag is on");
    await checkScreen(page, "the waiting list with entries");
  });

  step("deletes an entry from the keyboard after asking, and it is gone", async () => {
    const page = ctx.page;
    const questions = [];
    const answer = (dialog) => {
      questions.push(dialog.message());
      dialog.accept();
    };
    page.on("dialog", answer);
    await page.evaluate(() => document.querySelector("main h1").focus());
    await tabTo(page, "Delete the entry of Grace");
    await page.keyboard.press("Enter");
    await waitForText(page, "Waiting list (2)");
    page.off("dialog", answer);
    assert.deepEqual(questions, ["Delete Grace (grace@example.com)? This cannot be undone."]);
    assert.deepEqual(
      (await rows(page)).map((r) => r[0]),
      ["Ada", "Linus"],
    );
    const list = await kit.service.admin("GET", `/admin/events/${ctx.eventId}/waiting-list`);
    assert.deepEqual(
      list.map((e) => e.name),
      ["Ada", "Linus"],
    );
    await checkScreen(page, "the waiting list after a delete");
  });

  step("a delete the service refuses (the entry went meanwhile) is shown beside the button", async () => {
    const page = ctx.page;
    await kit.service.admin("DELETE", `/admin/events/${ctx.eventId}/waiting-list/${ctx.entries.Linus.id}`);
    page.once("dialog", (dialog) => dialog.accept());
    await click(page, "button", "Delete the entry of Linus");
    const problem = await page.waitForSelector(".problem");
    assert.equal(await problem.evaluate((el) => el.textContent), "Something went wrong: This entry is no longer on the waiting list.");
    await checkScreen(page, "the waiting list with a delete refused");
  });

  step("the flag is switched off in the settings, and the section says the list is off", async () => {
    const page = ctx.page;
    await click(page, "link", "Settings");
    await waitForText(page, "Save settings");
    const flag = await controlLabelled(page, FLAG);
    assert.equal(await flag.evaluate((el) => el.checked), true);
    const hint = await flag.evaluate((el) =>
      (el.getAttribute("aria-describedby") ?? "")
        .split(" ")
        .map((id) => document.getElementById(id)?.textContent ?? "")
        .join(" "),
    );
    assert.match(hint, /offered to the line .* WAITING_LIST_HOURS/);
    await flag.click();
    await click(page, "button", "Save settings");
    await waitForText(page, "Saved.");
    assert.equal((await kit.service.admin("GET", `/admin/events/${ctx.eventId}`)).waiting_list_needed, false);
    await checkScreen(page, "the settings with the waiting list's flag");

    await click(page, "link", "Waiting list");
    await waitForText(page, "The waiting list is off for this event");
    // Who joined before stays listed (and deletable).
    await waitForText(page, "Waiting list (1)");
    await checkScreen(page, "the waiting list with the flag off");

    await click(page, "link", "Open the settings");
    await (await controlLabelled(page, FLAG)).click();
    await click(page, "button", "Save settings");
    await waitForText(page, "Saved.");
    assert.equal((await kit.service.admin("GET", `/admin/events/${ctx.eventId}`)).waiting_list_needed, true);
  });

  step("an event nobody waits for says so, in another language too", async () => {
    const page = ctx.page;
    const empty = await kit.service.admin("POST", "/admin/events", { event_name: `Quiet ${run}` });
    await page.goto(kit.consoleUrl(`/events/${empty.id}/waiting-list`), { waitUntil: "load" });
    await waitForHeading(page, `Quiet ${run}`);
    await waitForText(page, "Nobody is on the waiting list.");
    await waitForText(page, "The waiting list is off for this event");
    await checkScreen(page, "an empty waiting list with the flag off");
    await page.goto(kit.consoleUrl(`/events/${empty.id}/waiting-list`, "fr"), { waitUntil: "load" });
    await waitForText(page, "Personne n’est sur la liste d’attente.");
    await waitForText(page, "La liste d’attente est désactivée pour cet événement\u00a0:");
    await checkScreen(page, "an empty waiting list in French");
    await page.close();
  });
});
