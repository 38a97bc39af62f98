// `npm run test:browser`: the box office (decisions.md 15 "The box office"; docs/shop.md) in a real headless
// Chromium against the service started by `wrangler dev` (scripts/local-service.mjs). A customer buys through the
// shop page: with the page's script and without it, from the keyboard only, in every language, inside the embed on
// an organiser's page of another origin (listed in CORS_ORIGINS), and a page of a third origin cannot frame the shop.
// axe-core checks every state the customer passes through.
//
// Screenshots go to the temp dir printed at the end, or to SHOP_SCREENSHOTS (docs/shop.md uses some of them:
// `SHOP_SCREENSHOTS=/tmp/shop-shots ./node_modules/.bin/node --test test/browser/shop.browser.mjs`).
import assert from "node:assert/strict";
import { readFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe } from "node:test";
import { freePort, ROOT, startService } from "../../scripts/local-service.mjs";
import { endRun, expectNoAxeViolations, launchChromium, stopAfterSixMinutes, stepsNotingFailure } from "./chromium.mjs";

const STEP_MS = 20_000;
const LANGUAGES = ["en", "nl", "de", "fr", "es"];
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const root = mkdtempSync(join(tmpdir(), "ticketing-shop-"));
const stateDir = join(root, "state");
const shots = resolve(process.env.SHOP_SCREENSHOTS ?? join(root, "screenshots"));
mkdirSync(shots, { recursive: true });
let service;
let browser;
let failed = false;
const servers = [];

stopAfterSixMinutes("the shop test", () => ({ browser, service }));

const ctx = {};

/** A service word of the shop page in `lang`, read from its catalogue (src/domain/messages/<lang>.ts). */
function word(lang, key) {
  const text = readFileSync(join(ROOT, "src", "domain", "messages", `${lang}.ts`), "utf8");
  const shop = text.slice(text.indexOf("shop: {"));
  const found = new RegExp(`\\n\\s+${key}: "([^"]*)"`).exec(shop);
  assert.ok(found, `no shop.${key} in ${lang}.ts`);
  return found[1];
}

/** A word of the waiting list's section of the catalogue in `lang` (src/domain/messages/<lang>.ts). */
function waitingWord(lang, key) {
  const text = readFileSync(join(ROOT, "src", "domain", "messages", `${lang}.ts`), "utf8");
  const section = text.slice(text.indexOf("waitingList: {"));
  const found = new RegExp(`\\n\\s+${key}: "([^"]*)"`).exec(section);
  assert.ok(found, `no waitingList.${key} in ${lang}.ts`);
  return found[1];
}

/** A test that also notes its failure, so that the state dir is kept for a look. */
const step = stepsNotingFailure(() => {
  failed = true;
});

/**
 * A page of `viewport` that fails the test on any script error. Without `javaScript` the page's own script is never
 * loaded: the page is what a browser without JavaScript gets. (Chromium's own switch, setJavaScriptEnabled(false),
 * also stops the DevTools evaluation this test and axe-core run in the page.)
 */
async function newPage({ viewport = PHONE, javaScript = true } = {}) {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewport(viewport);
  if (!javaScript) {
    await page.setRequestInterception(true);
    page.on("request", (req) => (req.resourceType() === "script" ? req.abort() : req.continue()));
  }
  page.errors = [];
  page.on("pageerror", (err) => page.errors.push(String(err)));
  return page;
}

const shopUrl = (eventId, lang = "en") => `${service.url}/shop/${eventId}?lang=${lang}`;

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/** Types into the field named `name` (replacing what it held). */
async function fill(page, name, value) {
  const input = await page.$(`[name="${name}"]`);
  assert.ok(input, `no field ${name}`);
  // Emptied first: a triple click selects nothing in a number input.
  await input.evaluate((el) => {
    el.value = "";
  });
  await input.type(value);
}

/** What the form holds and shows. */
function formState(page) {
  return page.evaluate(() => {
    const form = document.getElementById("order-form");
    const summary = document.getElementById("form-errors");
    return {
      values: form
        ? Object.fromEntries([...form.querySelectorAll("input:not([type=hidden]), select")].map((i) => [i.name, i.type === "checkbox" ? i.checked : i.value]))
        : null,
      invalid: [...document.querySelectorAll('[aria-invalid="true"]')].map((i) => i.name),
      fieldErrors: Object.fromEntries([...document.querySelectorAll(".field-error")].map((p) => [p.id, p.textContent.trim()])),
      summary: summary && !summary.hidden ? summary.textContent.trim() : null,
      focused: document.activeElement?.id ?? "",
      total: document.getElementById("order-total")?.textContent ?? null,
    };
  });
}

/** Presses Tab until the field named `name` has the focus (the keyboard's way there). */
async function tabTo(page, name) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((n) => document.activeElement?.getAttribute("name") === n, name)) return;
  }
  assert.fail(`Tab never reached ${name}`);
}

/** Serves one HTML page on a loopback port of its own: another origin than the service. */
async function servePage(html) {
  const port = await freePort();
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise((done) => server.listen(port, "127.0.0.1", done));
  servers.push(server);
  return `http://127.0.0.1:${port}/`;
}

describe("the shop page in Chromium", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      failed = true; // until the set-up is through
      // The organiser's site: its origin is known before the service starts, which lists it in CORS_ORIGINS.
      ctx.sitePort = await freePort();
      ctx.siteOrigin = `http://127.0.0.1:${ctx.sitePort}`;
      service = await startService({ persistTo: stateDir, vars: { CORS_ORIGINS: ctx.siteOrigin, ORDERING_KEY: "shop-browser-test" } });
      console.log(`# service at ${service.url}, state in ${stateDir}`);

      const paid = await service.admin("POST", "/admin/events", {
        event_name: "Open-air concert",
        coupons_needed: true,
        terms: "<p>Tickets are <strong>not refundable</strong>.</p>",
      });
      ctx.paid = paid.id;
      ctx.regular = await service.admin("POST", `/admin/events/${paid.id}/ticket-types`, { name: "Regular", price: 12.5, vat: 21, volume_price: [{ 4: 10 }] });
      ctx.size = await service.admin("POST", `/admin/events/${paid.id}/input-fields`, { name: "T-shirt size", type: "select", value: "S,M,L", is_required: true });
      await service.admin("POST", "/admin/coupons", { code: "FRIENDS", type: "fixed", amount: 2.5, events: String(paid.id) });

      const free = await service.admin("POST", "/admin/events", { event_name: "Free talk" });
      ctx.free = free.id;
      ctx.seat = await service.admin("POST", `/admin/events/${free.id}/ticket-types`, { name: "Seat", price: 0 });

      const ended = await service.admin("POST", "/admin/events", { event_name: "Last year's fair", end_date: "2020-01-01 00:00:00" });
      ctx.ended = ended.id;
      await service.admin("POST", `/admin/events/${ended.id}/ticket-types`, { name: "Entry", price: 5 });

      // Sold out, with a waiting list: its one unit went to a dashboard order the organiser deletes later.
      const club = await service.admin("POST", "/admin/events", { event_name: "Club night", waiting_list_needed: true, add_dashboard_orders_needed: true });
      ctx.club = club.id;
      ctx.standing = await service.admin("POST", `/admin/events/${club.id}/ticket-types`, { name: "Standing", price: 0, stock_control: true, stock: 1 });
      ctx.clubOrder = await service.admin("POST", "/admin/orders", {
        event_id: club.id,
        name: "Early Bird",
        email: "early@example.org",
        tickets: [{ [ctx.standing.id]: 1 }],
      });

      // The organiser's page: embed.js twice (it mounts once), one div now and one added later.
      const embed = `${service.url}/shop/embed.js`;
      const site = createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Organiser</title>
<script src="${embed}" async></script><script src="${embed}" async></script></head>
<body><h1>Our festival</h1><div data-ticketing-event="${ctx.free}" data-title="Tickets: Free talk"></div>
<script>setTimeout(() => { const d = document.createElement("div"); d.dataset.ticketingEvent = "${ctx.paid}"; d.dataset.lang = "de"; document.body.append(d); }, 300);</script>
</body></html>`);
      });
      await new Promise((done) => site.listen(ctx.sitePort, "127.0.0.1", done));
      servers.push(site);
      // A third origin, not in CORS_ORIGINS, framing the shop page directly.
      ctx.strangerUrl = await servePage(
        `<!doctype html><html lang="en"><head><title>Stranger</title></head><body><iframe title="shop" src="${shopUrl(ctx.free)}"></iframe></body></html>`,
      );

      browser = await launchChromium();
      failed = false;
    },
    { timeout: 180_000 },
  );

  after(async () => {
    for (const s of servers) s.close();
    await endRun({ browser, service, stateDir, failed, screenshots: shots });
  });

  step("the fresh form speaks each language: <html lang>, the service's words, the organiser's as written", async () => {
    const page = await newPage();
    for (const lang of LANGUAGES) {
      await page.goto(shopUrl(ctx.paid, lang));
      const seen = await page.evaluate(() => ({
        lang: document.documentElement.lang,
        title: document.title,
        h1: document.querySelector("h1")?.textContent,
        button: document.querySelector("#order-form button[type=submit], #order-form button:not([type])")?.textContent?.trim(),
        labels: [...document.querySelectorAll("label")].map((l) => l.textContent.trim()),
      }));
      assert.equal(seen.lang, lang);
      assert.equal(seen.h1, "Open-air concert");
      assert.match(seen.title, /Open-air concert/);
      assert.equal(seen.button, word(lang, "submit"), lang);
      assert.ok(seen.labels.includes("Regular"), `${lang}: the type's name labels its count: ${seen.labels}`);
      assert.ok(seen.labels.includes("T-shirt size"), `${lang}: the field's name labels it`);
      if (lang === "en") {
        for (const label of ["Name", "Email", "Coupon code"]) assert.ok(seen.labels.includes(label), `no label ${label}: ${seen.labels}`);
      }
      await shot(page, `shop-fresh-${lang}`);
    }
    await page.goto(shopUrl(ctx.paid));
    assert.equal((await formState(page)).total, "€0.00");
    await expectNoAxeViolations(page, "the fresh form");
    await shot(page, "shop-phone");
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  step("the script totals live and refuses inline what the rules refuse, keeping what was typed; the service's refusal swaps in without a reload", async () => {
    const page = await newPage();
    await page.goto(shopUrl(ctx.paid));
    const requests = [];
    page.on("request", (r) => r.method() === "POST" && requests.push(r.url()));
    await fill(page, `ticket_${ctx.regular.id}`, "2");
    assert.equal((await formState(page)).total, "€25.00");
    await fill(page, `ticket_${ctx.regular.id}`, "4");
    assert.equal((await formState(page)).total, "€40.00", "4 or more at the volume price of 10.00");
    await fill(page, "name", "Ann Example");
    await fill(page, "email", "ann@example");
    await page.click("#order-form button");
    let state = await formState(page);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(requests, [], "nothing is sent while the page knows it is wrong");
    assert.equal(state.focused, "form-errors", JSON.stringify(state));
    assert.ok(state.invalid.includes("email") && state.invalid.includes(`field_${ctx.size.id}`) && state.invalid.includes("terms_accepted"), JSON.stringify(state));
    assert.ok(state.fieldErrors["email-error"], JSON.stringify(state.fieldErrors));
    assert.equal(state.values.name, "Ann Example");
    await expectNoAxeViolations(page, "the form with the script's errors");
    await shot(page, "shop-errors-inline");

    // Corrected, but with a coupon code only the service can refuse: a 422 whose <main> replaces the page's.
    await fill(page, "email", "ann@example.org");
    await page.select(`[name="field_${ctx.size.id}"]`, "M");
    await page.click("#terms_accepted");
    await fill(page, "coupon", "NO-SUCH-CODE");
    const url = page.url();
    await page.click("#order-form button");
    await page.waitForFunction(() => document.activeElement?.id === "form-errors");
    state = await formState(page);
    assert.equal(page.url(), url, "no navigation: the answer was swapped in");
    assert.equal(requests.length, 1);
    assert.ok(state.invalid.includes("coupon"), JSON.stringify(state));
    assert.equal(state.values.name, "Ann Example");
    assert.equal(state.values.email, "ann@example.org");
    assert.equal(state.values[`ticket_${ctx.regular.id}`], "4");
    assert.equal(state.values.coupon, "NO-SUCH-CODE");
    await expectNoAxeViolations(page, "the form with the service's errors");
    await shot(page, "shop-errors");
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  step("a paid order with a coupon and an input field goes through the test provider to its PDF", async () => {
    const page = await newPage();
    await page.goto(shopUrl(ctx.paid));
    await fill(page, `ticket_${ctx.regular.id}`, "2");
    await fill(page, "name", "Bo Buyer");
    await fill(page, "email", "bo@example.org");
    await page.select(`[name="field_${ctx.size.id}"]`, "L");
    await fill(page, "coupon", "FRIENDS");
    await page.click("#terms_accepted");
    // Double-clicked: one order all the same (the page sends once; the form_token is the idempotency key).
    await Promise.all([page.waitForNavigation(), page.click("#order-form button", { clickCount: 2 })]);
    assert.match(page.url(), /\/pay\/test\/[0-9A-Za-z]{40}$/);
    ctx.paidUid = page.url().split("/").pop();
    assert.match(await page.evaluate(() => document.body.textContent), /22[.,]50/, "2 x 12.50 less the 2.50 coupon");
    await Promise.all([page.waitForNavigation(), page.click('button[value="pay"]')]);
    assert.ok(page.url().startsWith(`${service.url}/shop/orders/${ctx.paidUid}`), page.url());
    await expectNoAxeViolations(page, "the order page, paid");
    await shot(page, "order-paid");
    const download = await page.$eval(`a[href*="/tickets/${ctx.paidUid}"]`, (a) => a.href);
    const res = await fetch(download);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.status, 200);
    assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-");
    const orders = await service.admin("GET", `/admin/orders?event_id=${ctx.paid}`);
    assert.equal(orders.filter((o) => o.email === "bo@example.org").length, 1, "the double click made one order");
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  step("a free order from the keyboard only (Tab, arrow keys, typing, Enter)", async () => {
    const page = await newPage();
    await page.goto(shopUrl(ctx.free));
    await tabTo(page, `ticket_${ctx.seat.id}`);
    await page.keyboard.press("ArrowUp");
    await tabTo(page, "name");
    await page.keyboard.type("Kay Board");
    await tabTo(page, "email");
    await page.keyboard.type("kay@example.org");
    await page.keyboard.press("Tab");
    const onButton = await page.evaluate(() => document.activeElement?.closest("#order-form button") !== null);
    assert.ok(onButton, "the order button is next in the Tab order");
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    assert.match(page.url(), /\/shop\/orders\/[0-9A-Za-z]{40}/);
    await expectNoAxeViolations(page, "the order page of a free order");
    await shot(page, "order-free");
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  step("without JavaScript the same purchase posts the form: 422 keeps the values, 303 to the order page", async () => {
    const page = await newPage({ javaScript: false });
    await page.goto(shopUrl(ctx.free));
    await fill(page, `ticket_${ctx.seat.id}`, "1");
    await fill(page, "name", "Noah Script");
    await fill(page, "email", "not-an-address");
    await Promise.all([page.waitForNavigation(), page.click("#order-form button")]);
    let state = await formState(page);
    assert.ok(state.summary, "the error summary is shown");
    assert.ok(state.invalid.includes("email"), JSON.stringify(state));
    assert.equal(state.values.name, "Noah Script");
    await expectNoAxeViolations(page, "the errors without JavaScript");
    await fill(page, "email", "noah@example.org");
    await Promise.all([page.waitForNavigation(), page.click("#order-form button")]);
    assert.match(page.url(), /\/shop\/orders\/[0-9A-Za-z]{40}/);
    state = await formState(page);
    assert.equal(state.values, null, "the order page, not the form");
    await page.close();
  });

  step("a closed sale says so", async () => {
    const page = await newPage();
    await page.goto(shopUrl(ctx.ended));
    assert.equal(await page.$("#order-form"), null);
    await expectNoAxeViolations(page, "a closed sale");
    await shot(page, "shop-closed");
    await page.close();
  });

  step("embed.js on the organiser's own site (another origin, in CORS_ORIGINS): one frame per div, sized to its page", async () => {
    const page = await newPage({ viewport: DESKTOP });
    ctx.sitePage = page;
    await page.goto(`${ctx.siteOrigin}/`);
    await page.waitForFunction(() => document.querySelectorAll("iframe").length === 2);
    const frames = await page.$$eval("iframe", (list) => list.map((f) => ({ src: f.src, title: f.title, allow: f.allow })));
    assert.equal(frames[0].src, `${service.url}/shop/${ctx.free}?lang=nl`, "the page's <html lang>");
    assert.equal(frames[0].title, "Tickets: Free talk");
    assert.equal(frames[0].allow, "payment");
    assert.equal(frames[1].src, `${service.url}/shop/${ctx.paid}?lang=de`, "the div added later, with its data-lang");
    const handle = await page.$("iframe");
    const frame = await handle.contentFrame();
    await frame.waitForSelector("h1");
    // The frame takes its page's height (ticketing:height messages); it starts at 40rem.
    let sizes;
    for (const started = Date.now(); Date.now() - started < STEP_MS; await new Promise((r) => setTimeout(r, 200))) {
      sizes = { frame: (await handle.boundingBox()).height, page: await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height)) };
      if (Math.abs(sizes.frame - sizes.page) <= 2) break;
    }
    assert.ok(Math.abs(sizes.frame - sizes.page) <= 2, JSON.stringify(sizes));
    await shot(page, "embed-desktop");
    assert.deepEqual(page.errors, []);
  });

  step("a purchase inside the embed stays in the frame, on the organiser's page", async () => {
    const page = ctx.sitePage;
    const frame = await (await page.$("iframe")).contentFrame();
    await frame.waitForSelector("#order-form");
    const field = async (name, value) => {
      const input = await frame.$(`[name="${name}"]`);
      await input.evaluate((el) => {
        el.value = "";
      });
      await input.type(value);
    };
    await field(`ticket_${ctx.seat.id}`, "2");
    await field("name", "Emma Bedded");
    await field("email", "emma@example.org");
    await Promise.all([frame.waitForNavigation(), frame.click("#order-form button")]);
    assert.match(frame.url(), /\/shop\/orders\/[0-9A-Za-z]{40}/, "the order page, inside the frame");
    assert.equal(page.url(), `${ctx.siteOrigin}/`, "the organiser's page stays");
    await shot(page, "embed-ordered");
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  step("the waiting list: joined from the keyboard, a unit freed, the offer's email link opened and the tickets bought through it", async () => {
    const page = await newPage();
    await page.goto(shopUrl(ctx.club));
    assert.equal(await page.$("#order-form"), null, "sold out: no order form");
    assert.equal(await page.$eval("#waiting-list-heading", (h) => h.textContent), waitingWord("en", "heading"));
    await expectNoAxeViolations(page, "the waiting list's form");
    await tabTo(page, "waiting_name");
    await page.keyboard.type("Wanda Wait");
    await tabTo(page, "waiting_email");
    await page.keyboard.type("not-an-address");
    await tabTo(page, "waiting_count");
    await page.keyboard.press("Tab");
    const onButton = await page.evaluate(() => document.activeElement?.closest("#waiting-list button") !== null);
    assert.ok(onButton, "the join button is next in the Tab order");
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    let state = await formState(page);
    assert.ok(state.invalid.includes("waiting_email"), JSON.stringify(state));
    assert.ok(state.fieldErrors["waiting_email-error"], JSON.stringify(state));
    assert.equal(await page.$eval("#waiting_name", (i) => i.value), "Wanda Wait");
    await expectNoAxeViolations(page, "the waiting list's errors");
    await fill(page, "waiting_email", "wanda@example.org");
    await page.focus("#waiting_count");
    await page.keyboard.press("Tab");
    await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    assert.match(page.url(), /[?&]joined=1/);
    assert.equal(await page.$eval("#waiting-list-joined-heading", (h) => h.textContent), waitingWord("en", "joinedTitle"));
    await expectNoAxeViolations(page, "the waiting list's confirmation");
    await shot(page, "waiting-list-joined");

    // The organiser frees the unit; the first in line gets it, by email with a personal link.
    await service.admin("DELETE", `/admin/orders/${ctx.clubOrder.id}`);
    let link = null;
    for (let i = 0; i < 60 && link === null; i++) {
      const sent = await service.admin("GET", `/admin/emails?event_id=${ctx.club}&per_page=100`);
      const mail = sent.find((e) => e.to === "wanda@example.org");
      const found = mail ? /\/shop\/(\d+\?offer=[A-Za-z0-9]{32}&amp;lang=en)/.exec(mail.body) : null;
      if (found) link = `${service.url}/shop/${found[1].replace("&amp;", "&")}`;
      else await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(link, "the offer's email reached the outbox");
    await page.goto(link);
    assert.equal(await page.$eval("#offer-heading", (h) => h.textContent), waitingWord("en", "offerTitle"));
    const email = await page.$eval("#email", (i) => ({ value: i.value, readOnly: i.readOnly }));
    assert.deepEqual(email, { value: "wanda@example.org", readOnly: true });
    assert.equal(await page.$eval("#name", (i) => i.value), "Wanda Wait");
    await expectNoAxeViolations(page, "the offer's page");
    await shot(page, "waiting-list-offer");
    await fill(page, `ticket_${ctx.standing.id}`, "1");
    await Promise.all([page.waitForNavigation(), page.click("#order-form button")]);
    assert.match(page.url(), /\/shop\/orders\/[0-9A-Za-z]{40}/);
    state = await formState(page);
    assert.equal(state.values, null, "the order page, not the form");
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  step("a page of an origin not in CORS_ORIGINS cannot frame the shop (frame-ancestors)", async () => {
    const page = await newPage({ viewport: DESKTOP });
    const refused = [];
    page.on("console", (m) => refused.push(m.text()));
    await page.goto(ctx.strangerUrl);
    const frame = await (await page.$("iframe")).contentFrame();
    await new Promise((r) => setTimeout(r, 1000));
    const shown = await frame.evaluate(() => document.getElementById("order-form") !== null).catch(() => false);
    assert.equal(shown, false, "the shop's form is not shown in a stranger's frame");
    assert.ok(
      refused.some((t) => /frame-ancestors/.test(t)),
      refused.join("\n"),
    );
    await page.close();
  });
});
