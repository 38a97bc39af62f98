// `npm run test:browser`: the personalisation page (`GET /tickets/<uid>/personalise`) in a real headless Chromium,
// against the service started by `wrangler dev` (scripts/local-service.mjs) with a state dir of its own.
//
// Not part of `npm test` (vitest only picks up `*.test.ts`). Needs Debian's `chromium`: installed here with apt-get
// when missing and running as root, otherwise the run fails saying what to install. Driven by puppeteer-core, which
// downloads no browser. Screenshots go to the temp dir printed at the end (kept; the state dir is removed after a
// passing run, kept after a failing one).
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { startService } from "../../scripts/local-service.mjs";
import { endRun, launchChromium, stopAfterSixMinutes, stepsNotingFailure } from "./chromium.mjs";

const STEP_MS = 15_000; // any one wait inside the page
const root = mkdtempSync(join(tmpdir(), "ticketing-browser-"));
const stateDir = join(root, "state");
let service;
let browser;
let page;
let failed = false;

stopAfterSixMinutes("the browser test", () => ({ browser, service }));

/** The order of the scenario, filled in by the set-up. */
const ctx = {};

async function publicGet(path) {
  const res = await fetch(`${service.url}${path}`, { signal: AbortSignal.timeout(60_000) });
  return res;
}

async function personalisation() {
  const res = await publicGet(`/tickets/${ctx.uid}/personalisation`);
  assert.equal(res.status, 200);
  return res.json();
}

const formSel = (ticketId) => `form[data-ticket="${ticketId}"]`;
const inputSel = (ticketId, fieldId) => `${formSel(ticketId)} input[name="${fieldId}"]`;

/** A test that also notes its failure, so that the state dir is kept for a look. */
const step = stepsNotingFailure(() => {
  failed = true;
});

/** What the page shows for one ticket's form. */
function formState(ticketId) {
  return page.$eval(formSel(ticketId), (form) => ({
    values: Object.fromEntries([...form.querySelectorAll("input")].map((i) => [i.name, i.value])),
    disabled: [...form.querySelectorAll("input")].map((i) => i.disabled),
    required: Object.fromEntries([...form.querySelectorAll("input")].map((i) => [i.name, i.required])),
    button: form.querySelector("button") ? { disabled: form.querySelector("button").disabled } : null,
    status: form.querySelector(".result")?.textContent ?? "",
    text: form.textContent,
  }));
}

describe("the personalisation page in Chromium", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      failed = true; // until the set-up is through
      service = await startService({ persistTo: stateDir });
      console.log(`# service at ${service.url}, state in ${stateDir}`);

      const event = await service.admin("POST", "/admin/events", { event_name: "Browser test concert", add_dashboard_orders_needed: true });
      ctx.attendee = await service.admin("POST", `/admin/events/${event.id}/input-fields`, {
        name: "Attendee",
        type: "text",
        is_personalised: true,
        is_required: true,
      });
      ctx.nickname = await service.admin("POST", `/admin/events/${event.id}/input-fields`, {
        name: "Nickname",
        type: "text",
        is_personalised: true,
        is_required: false,
        max: "10",
      });
      const type = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, {
        name: "Named",
        price: 10,
        personalise: "Attendee,Nickname",
        layout: "Attendee,Name",
      });
      const order = await service.admin("POST", "/admin/orders", {
        event_id: event.id,
        name: "Ada Lovelace",
        email: "ada@example.com",
        tickets: [{ [type.id]: 2 }],
      });
      ctx.uid = order.uid;
      const view = await personalisation();
      ctx.ticketIds = view.tickets.map((t) => t.ticket_id);
      assert.equal(ctx.ticketIds.length, 2, JSON.stringify(view));

      browser = await launchChromium();
      page = await browser.newPage();
      page.setDefaultTimeout(STEP_MS);
      await page.setViewport({ width: 800, height: 900 });
      ctx.puts = [];
      page.on("request", (req) => {
        if (req.method() === "PUT") ctx.puts.push(req.url());
      });
      ctx.pageErrors = [];
      page.on("pageerror", (err) => ctx.pageErrors.push(String(err)));
      failed = false;
    },
    { timeout: 4 * 60_000 },
  );

  after(() => endRun({ browser, service, stateDir, failed, screenshots: root }), { timeout: 30_000 });

  step("shows one form per ticket with the personalised fields, the required one marked", async () => {
    const res = await page.goto(`${service.url}/tickets/${ctx.uid}/personalise`, { waitUntil: "load", timeout: 30_000 });
    assert.equal(res.status(), 200);
    assert.equal(await page.title(), "Personalise your tickets");
    const forms = await page.$$eval("form[data-ticket]", (all) => all.map((f) => f.dataset.ticket));
    assert.deepEqual([...forms].sort(), [...ctx.ticketIds].sort());
    for (const id of ctx.ticketIds) {
      const state = await formState(id);
      assert.deepEqual(state.values, { [ctx.attendee.id]: "", [ctx.nickname.id]: "" });
      assert.deepEqual(state.required, { [ctx.attendee.id]: true, [ctx.nickname.id]: false });
      assert.deepEqual(state.disabled, [false, false]);
      assert.deepEqual(state.button, { disabled: false });
      assert.match(state.text, /Attendee \*/);
    }
    // Nothing to download yet: the way to the order's page waits for the last save.
    assert.equal(await page.$eval("#ready", (p) => p.hidden), true);
  });

  step("a form with the required field empty is not sent: the browser blocks it", async () => {
    const [first] = ctx.ticketIds;
    await page.type(inputSel(first, ctx.nickname.id), "Nick");
    await page.click(`${formSel(first)} button[type="submit"]`);
    // Give a request every chance to leave.
    await new Promise((r) => setTimeout(r, 750));
    const blocked = await page.$eval(inputSel(first, ctx.attendee.id), (input) => ({
      valueMissing: input.validity.valueMissing,
      formValid: input.form.checkValidity(),
    }));
    assert.deepEqual(blocked, { valueMissing: true, formValid: false });
    assert.deepEqual(ctx.puts, []);
    const state = await formState(first);
    assert.equal(state.status, "");
    assert.deepEqual(state.disabled, [false, false]);
    for (const t of (await personalisation()).tickets) assert.equal(t.personalised, false);
  });

  step("each filled-in form saves, says Saved. and disables its inputs", async () => {
    const [first, second] = ctx.ticketIds;
    // The first form keeps "Nick" from the blocked attempt; the second leaves the optional field empty.
    await page.type(inputSel(first, ctx.attendee.id), "Łukasz Wróbel");
    await page.type(inputSel(second, ctx.attendee.id), "Ελένη Παπαδοπούλου");
    for (const id of [first, second]) {
      await page.click(`${formSel(id)} button[type="submit"]`);
      await page.waitForFunction((sel) => document.querySelector(`${sel} .result`)?.textContent === "Saved.", { timeout: STEP_MS }, formSel(id));
      const state = await formState(id);
      assert.equal(state.status, "Saved.");
      assert.deepEqual(state.disabled, [true, true]);
      assert.deepEqual(state.button, { disabled: true });
    }
    assert.equal(ctx.puts.length, 2);
    // The last save shows the way on, without a reload.
    assert.equal(await page.$eval("#ready", (p) => p.hidden), false);
    await page.screenshot({ path: join(root, "personalise-saved.png"), fullPage: true });
  });

  step("the values are stored", async () => {
    const [first, second] = ctx.ticketIds;
    const view = await personalisation();
    const byId = Object.fromEntries(view.tickets.map((t) => [t.ticket_id, t]));
    const values = (id) => Object.fromEntries(byId[id].fields.map((f) => [f.id, f.value]));
    assert.equal(byId[first].personalised, true);
    assert.equal(byId[second].personalised, true);
    assert.deepEqual(values(first), { [ctx.attendee.id]: "Łukasz Wróbel", [ctx.nickname.id]: "Nick" });
    assert.deepEqual(values(second), { [ctx.attendee.id]: "Ελένη Παπαδοπούλου", [ctx.nickname.id]: "" });
  });

  step("after a reload the saved values show and cannot be changed", async () => {
    const [first, second] = ctx.ticketIds;
    const res = await page.reload({ waitUntil: "load", timeout: 30_000 });
    assert.equal(res.status(), 200);
    const one = await formState(first);
    assert.deepEqual(one.values, { [ctx.attendee.id]: "Łukasz Wróbel", [ctx.nickname.id]: "Nick" });
    assert.deepEqual(one.disabled, [true, true]);
    assert.equal(one.button, null);
    assert.match(one.text, /Saved\./);
    const two = await formState(second);
    assert.deepEqual(two.values, { [ctx.attendee.id]: "Ελένη Παπαδοπούλου", [ctx.nickname.id]: "" });
    assert.deepEqual(two.disabled, [true, true]);
    await page.screenshot({ path: join(root, "personalise-reloaded.png"), fullPage: true });
    assert.deepEqual(ctx.pageErrors, []);
  });

  step("once all are saved the page points to the order's page, which links the download", async () => {
    const ready = await page.$eval("#ready", (p) => ({ hidden: p.hidden, text: p.textContent, href: p.querySelector("a").href }));
    assert.deepEqual(ready, { hidden: false, text: "Your tickets are ready: download them", href: `${service.url}/shop/orders/${ctx.uid}` });
    await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: 30_000 }), page.click("#ready a")]);
    const links = await page.$$eval("main a", (as) => as.map((a) => ({ text: a.textContent.trim(), href: a.href })));
    assert.ok(
      links.some((l) => l.text === "Download your tickets" && l.href === `${service.url}/tickets/${ctx.uid}`),
      JSON.stringify(links),
    );
    await page.goBack({ waitUntil: "load", timeout: 30_000 });
  });

  step("the e-tickets can now be downloaded as a PDF", async () => {
    const res = await publicGet(`/tickets/${ctx.uid}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.status, 200, new TextDecoder().decode(bytes.slice(0, 300)));
    assert.equal(res.headers.get("content-type"), "application/pdf");
    assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-");
  });
});
