// The console's messaging and users screens (decisions.md 13, 15 "The organiser console"; docs/console.md)
// in a real headless Chromium: a webhook to a receiver this test runs, its ping and its delivery log; the outbox;
// the logs; users and their application passwords, and an organiser signing in with one. Whatever a receiver, a
// customer or a mail wrote stays text: markup in it shows as characters and never becomes an element.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe } from "node:test";
import { freePort } from "../../scripts/local-service.mjs";
import {
  byRole,
  checkScreen,
  click,
  consoleKit,
  controlLabelled,
  errorBeside,
  eventually,
  fillLabel,
  newPage,
  selectLabel,
  signIn,
  waitForHeading,
  waitForText,
} from "./console-kit.mjs";

const kit = consoleKit("console-messaging");
const { step } = kit;
const ORDERING_KEY = "console-messaging-browser-test";
const HOSTILE = "<img src=x onerror=alert(1)>";
const ctx = {};

/** No element came from the markup in the data: no <img> anywhere, and no alert ran (pageerror would tell). */
async function noMarkupRendered(page) {
  assert.equal(await page.evaluate(() => document.querySelectorAll("img").length), 0, "an <img> element was created");
}

/** The texts of the <pre> elements of the screen. */
const preTexts = (page) => page.evaluate(() => [...document.querySelectorAll("main pre")].map((p) => p.textContent));

describe("the console in Chromium: webhooks, outbox, logs, users", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      ctx.received = [];
      const port = await freePort();
      ctx.receiver = createServer((req, res) => {
        let body = "";
        req.on("data", (chunk) => {
          body += chunk;
        });
        req.on("end", () => {
          ctx.received.push({ headers: req.headers, body });
          res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
          res.end(`${HOSTILE} received`);
        });
      });
      await new Promise((done) => ctx.receiver.listen(port, "127.0.0.1", done));
      ctx.hookUrl = `http://127.0.0.1:${port}/hook`;
      const service = await kit.start({ ORDERING_KEY });
      ctx.event = await service.admin("POST", "/admin/events", {
        event_name: "Messaging console fair",
        webhooks_needed: true,
        emails_needed: true,
        email: { subject: "Your <b>tickets</b>", body: "<p>Hello {%NAME%}, <b>welcome</b></p>" },
      });
      ctx.type = await service.admin("POST", `/admin/events/${ctx.event.id}/ticket-types`, { name: "Free entry", price: 0, maximum_to_order: 0 });
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(async () => {
    ctx.receiver?.close();
    await kit.end();
  });

  step("webhooks: an empty list, a refused URL beside its field, a new webhook", async () => {
    const page = await newPage(kit.browser);
    ctx.page = page;
    page.on("dialog", (dialog) => dialog.accept());
    await signIn(page, kit, { hash: "/webhooks" });
    await waitForHeading(page, "Webhooks");
    await checkScreen(page, "the webhooks");
    await fillLabel(page, "Name", "Order hook");
    await fillLabel(page, "URL", "http://10.1.2.3/hook");
    await fillLabel(page, "Secret", "s3cret-for-the-hook");
    await selectLabel(page, "Topic", "order.created");
    await (await controlLabelled(page, "Enable it at once")).click();
    await click(page, "button", "Create");
    assert.match(await errorBeside(page, "URL"), /private or local address/);
    await checkScreen(page, "the new webhook form with the API's error");
    await fillLabel(page, "URL", ctx.hookUrl);
    await click(page, "button", "Create");
    await waitForHeading(page, "Webhook Order hook");
    ctx.hookHash = new URL(page.url()).hash;
    await checkScreen(page, "a webhook");
  });

  step("ping: the receiver's answer, markup and all, is shown as text", async () => {
    const { page } = ctx;
    await click(page, "button", "Ping the webhook");
    await waitForText(page, "Outcome of the ping");
    await waitForText(page, HOSTILE);
    assert.ok((await preTexts(page)).some((t) => t.includes(`${HOSTILE} received`)));
    await noMarkupRendered(page);
    assert.ok(ctx.received.length >= 1, "the receiver got the ping");
    await checkScreen(page, "a webhook with the ping's outcome");
  });

  step("an order's delivery appears in the log; its detail shows the response as text", async () => {
    const { page } = ctx;
    const res = await fetch(`${kit.service.url}/events/${ctx.event.id}/orders`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-EVT-API-KEY": ORDERING_KEY },
      body: JSON.stringify({ name: `Ada ${HOSTILE}`, email: "ada@example.com", tickets: [{ [ctx.type.id]: 1 }] }),
    });
    ctx.order = await res.json();
    assert.equal(res.status, 201, JSON.stringify(ctx.order));
    // The delivery goes through the queue: refresh the log until it is there.
    let link;
    await eventually("a delivery in the log", async () => {
      await click(page, "button", "Refresh the delivery log");
      await new Promise((r) => setTimeout(r, 1000));
      link = await page.$("main table a[href*='/deliveries/']");
      return link;
    });
    assert.ok(link, "no delivery in the log");
    await checkScreen(page, "a webhook with its delivery log");
    await link.click();
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent?.startsWith("Delivery "));
    await page.waitForFunction((h) => document.body.textContent.includes(h), {}, HOSTILE);
    const pres = await preTexts(page);
    assert.ok(
      pres.some((t) => t.includes(`${HOSTILE} received`)),
      JSON.stringify(pres),
    );
    await noMarkupRendered(page);
    await checkScreen(page, "a delivery");
    await kit.shot(page, "messaging-delivery");
  });

  step("a delivery again; the webhook changed, its counters reset, and deleted", async () => {
    const { page } = ctx;
    const before = await page.$eval("main h1", (h) => h.textContent);
    await click(page, "button", "Deliver again");
    await page.waitForFunction(
      (old) => document.querySelector("main h1")?.textContent?.startsWith("Delivery ") && document.querySelector("main h1")?.textContent !== old,
      {},
      before,
    );
    await checkScreen(page, "a delivery sent again");
    await page.goto(kit.consoleUrl(ctx.hookHash.slice(1)), { waitUntil: "load" });
    await waitForHeading(page, "Webhook Order hook");
    await fillLabel(page, "Name", "Order hook renamed");
    await click(page, "button", "Save");
    await waitForHeading(page, "Webhook Order hook renamed");
    await kit.shot(page, "messaging-webhook");
    await click(page, "button", "Reset the counters");
    await waitForText(page, "The counters were reset.");
    await checkScreen(page, "a changed webhook");
    await click(page, "button", "Delete the webhook");
    await waitForHeading(page, "Webhooks");
    await waitForText(page, "Nothing here yet.");
    // Its address now answers 404: the screen keeps a heading and says so.
    await page.goto(kit.consoleUrl(ctx.hookHash.slice(1)), { waitUntil: "load" });
    await waitForHeading(page, `Webhook ${ctx.hookHash.split("/").pop()}`);
    await waitForText(page, "This page does not exist.");
    await checkScreen(page, "a deleted webhook's address");
  });

  step("the outbox: the order's email, its HTML source as text", async () => {
    const { page } = ctx;
    await page.goto(kit.consoleUrl("/outbox"), { waitUntil: "load" });
    await waitForHeading(page, "Email outbox");
    await fillLabel(page, "Order", ctx.order.id);
    await click(page, "button", "Search");
    await page.waitForFunction(() => location.hash.includes("order_id="));
    const link = await page.waitForSelector("main table a[href^='#/outbox/']");
    await checkScreen(page, "the outbox, filtered");
    await link.click();
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent?.startsWith("Email "));
    await page.waitForSelector("main pre");
    const pres = await preTexts(page);
    assert.ok(
      pres.some((t) => /<\/?[a-z]+[\s>]/i.test(t)),
      `the body's HTML source is not shown as text: ${JSON.stringify(pres)}`,
    );
    await noMarkupRendered(page);
    await checkScreen(page, "an email");
  });

  step("logs: the list, one entry, and deleting it", async () => {
    const { page } = ctx;
    // Deleting a webhook is logged (ticketing-api.md "Error logs").
    const doomed = await kit.service.admin("POST", "/admin/webhooks", { name: "Doomed", url: ctx.hookUrl, secret: "doomed-secret", topic: "event.updated" });
    await kit.service.admin("DELETE", `/admin/webhooks/${doomed.id}`);
    await page.goto(kit.consoleUrl("/logs"), { waitUntil: "load" });
    await waitForHeading(page, "Logs");
    const link = await page.waitForSelector("main table a[href^='#/logs/']");
    await checkScreen(page, "the logs");
    await link.click();
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent?.startsWith("Log entry "));
    await page.waitForSelector("main pre");
    await checkScreen(page, "a log entry");
    await click(page, "button", "Delete the entry");
    await waitForHeading(page, "Logs");
  });

  step("users: a refused user beside its field, a new organiser with an event, an application password shown once", async () => {
    const { page } = ctx;
    await page.goto(kit.consoleUrl("/users"), { waitUntil: "load" });
    await waitForHeading(page, "Users");
    await checkScreen(page, "the users");
    await fillLabel(page, "Username", kit.service.username);
    await fillLabel(page, "Email", "someone@example.com");
    await click(page, "button", "Create");
    await page.waitForSelector(".error-summary");
    await checkScreen(page, "the new user form with the API's error");
    await fillLabel(page, "Username", "door-organiser");
    await fillLabel(page, "Email", "door@example.com");
    await fillLabel(page, "Name", "Door <b>Organiser</b>");
    await (await controlLabelled(page, `Messaging console fair (${ctx.event.id})`)).click();
    await click(page, "button", "Create");
    await waitForText(page, "The first application password of door-organiser");
    await waitForText(page, "it will not be shown again");
    await checkScreen(page, "the users with a first password");
    await click(page, "link", "Open door-organiser");
    await waitForHeading(page, "User door-organiser");
    assert.equal(await (await controlLabelled(page, `Messaging console fair (${ctx.event.id})`)).evaluate((el) => el.checked), true);
    await fillLabel(page, "Name of the password", "door laptop");
    await click(page, "button", "Create the password");
    await waitForText(page, "The new application password door laptop");
    ctx.password = await (await controlLabelled(page, "Password")).evaluate((el) => el.value);
    assert.ok(ctx.password.length >= 16, ctx.password);
    await byRole(page, "button", "Revoke door laptop");
    await noMarkupRendered(page);
    await checkScreen(page, "a user with a new application password");
  });

  step("the organiser signs in with it in a fresh context: no Users in the menu, its event's logs only", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { username: "door-organiser", password: ctx.password, hash: "/logs" });
    await waitForHeading(page, "Logs");
    const menu = await page.$$eval("nav[aria-label='Main menu'] a", (links) => links.map((a) => a.textContent.trim()));
    assert.ok(menu.includes("Logs"), JSON.stringify(menu));
    for (const hidden of ["Users", "Webhooks", "Email outbox"]) assert.ok(!menu.includes(hidden), JSON.stringify(menu));
    await checkScreen(page, "the logs as an organiser");
    await page.goto(kit.consoleUrl("/users"), { waitUntil: "load" });
    await waitForHeading(page, "This page does not exist.");
    // The API refuses the organiser anyway.
    const status = await page.evaluate(async () => {
      // The organiser's own CSRF token (src/console-app/session.ts): a valid session, refused for what it asks.
      const csrf = JSON.parse(localStorage.getItem("ticketing-console-session") ?? "{}").csrf;
      if (typeof csrf !== "string") return "no session kept";
      return (await fetch("/ticketing/v1/admin/users", { headers: { "X-Ticketing-CSRF": csrf } })).status;
    });
    assert.equal(status, 403);
    await page.browserContext().close();
  });
  step("a user changed, its application password revoked, and the user deleted", async () => {
    const { page } = ctx;
    const user = await kit.service.admin("POST", "/admin/users", { username: "short-lived", email: "short@example.com", role: "organizer" });
    await kit.service.admin("POST", `/admin/users/${user.id}/application-passwords`, { name: "spare" });
    await page.goto(kit.consoleUrl(`/users/${user.id}`), { waitUntil: "load" });
    await waitForHeading(page, "User short-lived");
    await fillLabel(page, "Name", "Short Lived");
    await click(page, "button", "Save");
    await waitForText(page, "Saved.");
    await click(page, "button", "Revoke spare");
    await waitForText(page, "The application password was revoked.");
    await page.waitForFunction(() => !document.body.textContent.includes("Revoke spare"));
    await checkScreen(page, "a changed user with a revoked password");
    await click(page, "button", "Delete the user");
    await waitForHeading(page, "Users");
    await page.waitForFunction(() => !document.body.textContent.includes("short-lived"));
  });
});
