// `npm run test:browser`: the box office's order page (`GET /ticketing/v1/shop/orders/<uid>`, docs/ordering.md "The
// order page") in a real headless Chromium, against the service started by `wrangler dev` (scripts/local-service.mjs)
// with a state dir of its own.
//
// An order placed through the API with the publishable ordering key waits for payment: its page says so and offers
// a refresh link; the order is paid through the test checkout in another request, and the open page updates itself
// without a reload (its script re-fetches `<main>` while `data-refresh` says something is pending), announcing the
// new state politely; the paid page's download answers a PDF; the same page in Dutch; an unknown order's 404 page.
// With Google Wallet configured (a throwaway service account), the paid page lists each ticket's "Add to Google
// Wallet" link, named for its ticket and reached from the keyboard, and each leads to Google's save page (docs/wallet.md).
// axe-core's WCAG 2.0/2.1 A and AA rules find no violation in any of these states (decisions.md 15 "Accessibility").
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { startService } from "../../scripts/local-service.mjs";
import { endRun, expectNoAxeViolations, launchChromium, stopAfterSixMinutes, stepsNotingFailure } from "./chromium.mjs";

const STEP_MS = 20_000;
const ORDERING_KEY = "order-page-browser-ordering-key";
/** A throwaway service account's JSON key, as Google's console downloads it. */
const GOOGLE_WALLET_SERVICE_ACCOUNT = JSON.stringify({
  type: "service_account",
  client_email: "wallet@order-page-test.iam.gserviceaccount.com",
  private_key: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }),
});
const root = mkdtempSync(join(tmpdir(), "ticketing-order-page-"));
const stateDir = join(root, "state");
let service;
let browser;
let page;
let failed = false;

stopAfterSixMinutes("the order page test", () => ({ browser, service }));

const ctx = {};

/** A test that also notes its failure, so that the state dir is kept for a look. */
const step = stepsNotingFailure(() => {
  failed = true;
});

/** What the order page shows now. */
function shown() {
  return page.evaluate(() => {
    const main = document.getElementById("main");
    return {
      lang: document.documentElement.lang,
      refresh: main?.dataset.refresh ?? null,
      state: Array.from(document.querySelectorAll("[data-order-state]"), (p) => p.textContent.trim()).join(" "),
      links: Array.from(document.querySelectorAll("main a"), (a) => ({ text: a.textContent.trim(), href: a.href })),
      announced: document.querySelector('[aria-live="polite"]')?.textContent ?? "",
    };
  });
}

describe("the order page in Chromium", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      failed = true; // until the set-up is through
      service = await startService({ persistTo: stateDir, vars: { ORDERING_KEY, GOOGLE_WALLET_SERVICE_ACCOUNT, GOOGLE_WALLET_ISSUER_ID: "3388000000012345678" } });
      console.log(`# service at ${service.url}, state in ${stateDir}`);
      const event = await service.admin("POST", "/admin/events", { event_name: "Order page concert" });
      const type = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "Standing", price: 12.5, maximum_to_order: 0 });
      const res = await fetch(`${service.url}/events/${event.id}/orders`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-EVT-API-KEY": ORDERING_KEY },
        body: JSON.stringify({ name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [type.id]: 2 }] }),
      });
      const order = await res.json();
      assert.equal(res.status, 201, JSON.stringify(order));
      ctx.order = order;
      ctx.pageUrl = `${service.url}/shop/orders/${order.uid}`;

      browser = await launchChromium();
      page = await browser.newPage();
      page.setDefaultTimeout(STEP_MS);
      await page.setViewport({ width: 800, height: 900 });
      ctx.pageErrors = [];
      page.on("pageerror", (err) => ctx.pageErrors.push(String(err)));
      failed = false;
    },
    { timeout: 4 * 60_000 },
  );

  after(() => endRun({ browser, service, stateDir, failed, screenshots: root }), { timeout: 30_000 });

  step("waiting for payment: the checkout link, a refresh link, refreshing by script; no axe violation", async () => {
    const res = await page.goto(ctx.pageUrl, { waitUntil: "load", timeout: 30_000 });
    assert.equal(res.status(), 200);
    const now = await shown();
    assert.equal(now.lang, "en");
    assert.equal(now.state, "Waiting for payment.");
    assert.ok(Number(now.refresh) > 0, `data-refresh: ${now.refresh}`);
    assert.ok(
      now.links.some((l) => l.text === "Refresh"),
      JSON.stringify(now.links),
    );
    assert.ok(
      now.links.some((l) => l.href === ctx.order.payment.checkout_url),
      JSON.stringify(now.links),
    );
    assert.ok(!now.links.some((l) => l.href.includes("/tickets/")));
    await page.screenshot({ path: join(root, "1-waiting.png"), fullPage: true });
    await expectNoAxeViolations(page, "the order page waiting for payment");
  });

  step("paid through the test checkout in another request: the open page updates itself without a reload", async () => {
    // A mark on the window: a reload would lose it.
    await page.evaluate(() => {
      globalThis.notReloaded = true;
    });
    const paid = await fetch(ctx.order.payment.checkout_url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "action=pay",
      redirect: "manual",
    });
    assert.equal(paid.status, 303);
    await page.waitForFunction(() => document.querySelector("[data-order-state]")?.textContent.startsWith("Paid"), { timeout: 30_000 });
    assert.equal(await page.evaluate(() => globalThis.notReloaded), true);
    const now = await shown();
    assert.equal(now.refresh, null);
    assert.match(now.announced, /^Paid\./);
    assert.ok(!now.links.some((l) => l.text === "Refresh"));
    const download = now.links.find((l) => l.href.endsWith(`/tickets/${ctx.order.uid}`));
    assert.ok(download, JSON.stringify(now.links));
    const pdf = await fetch(download.href);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get("content-type"), "application/pdf");
    assert.equal(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      "%PDF-",
    );
    await page.screenshot({ path: join(root, "2-paid.png"), fullPage: true });
    await expectNoAxeViolations(page, "the paid order page");
  });

  step("the paid page's wallet links: one per ticket, named for it, reached by Tab, each to Google's save page", async () => {
    const names = await page.$$eval(".order-wallet a", (links) => links.map((a) => a.getAttribute("aria-label")));
    assert.deepEqual(names, ["Add to Google Wallet: ticket 1, Standing", "Add to Google Wallet: ticket 2, Standing"]);
    // From the top of the page, Tab reaches each wallet link after the download link.
    await page.evaluate(() => document.activeElement?.blur());
    const reached = [];
    for (let i = 0; i < 12 && reached.length < 2; i++) {
      await page.keyboard.press("Tab");
      const name = await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
      if (name.startsWith("Add to Google Wallet")) reached.push(name);
    }
    assert.deepEqual(reached, names);
    const hrefs = await page.$$eval(".order-wallet a", (links) => links.map((a) => a.href));
    for (const href of hrefs) {
      const res = await fetch(href, { redirect: "manual" });
      assert.equal(res.status, 302, href);
      assert.match(res.headers.get("location"), /^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/);
    }
    await page.screenshot({ path: join(root, "2b-wallet.png"), fullPage: true });
  });

  step("in Dutch: the service's words translated, the organiser's as written; no axe violation", async () => {
    const res = await page.goto(`${ctx.pageUrl}?lang=nl`, { waitUntil: "load", timeout: 30_000 });
    assert.equal(res.status(), 200);
    const now = await shown();
    assert.equal(now.lang, "nl");
    assert.match(now.state, /^Betaald\./);
    assert.ok(now.links.some((l) => l.text === "Download je tickets"));
    assert.equal(now.links.filter((l) => l.text === "Toevoegen aan Google Wallet").length, 2);
    assert.match(await page.$eval("main h2", (h) => h.textContent), /Order page concert/);
    await page.screenshot({ path: join(root, "3-paid-nl.png"), fullPage: true });
    await expectNoAxeViolations(page, "the paid order page in Dutch");
  });

  step("an unknown order: a 404 page; no axe violation; no script error anywhere", async () => {
    const res = await page.goto(`${service.url}/shop/orders/${"x".repeat(40)}`, { waitUntil: "load", timeout: 30_000 });
    assert.equal(res.status(), 404);
    assert.equal(await page.$eval("h1", (h) => h.textContent), "Order not found");
    await expectNoAxeViolations(page, "the order page of an unknown order");
    assert.deepEqual(ctx.pageErrors, []);
  });
});
