// What the console's browser tests share (test/browser/console*.browser.mjs; docs/console.md): the service started
// by `wrangler dev` (scripts/local-service.mjs), Chromium, a signed-in page, and the ways a person finds things on a
// screen: by their label and role (puppeteer's ARIA selectors), never by CSS classes.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startService } from "../../scripts/local-service.mjs";
import { endRun, expectNoAxeViolations, launchChromium, stepsNotingFailure, stopAfterSixMinutes } from "./chromium.mjs";

export const STEP_MS = 20_000;

/**
 * One file's run: `kit.start(vars)` starts the service and the browser; `kit.step(name, fn)` is a test that keeps the
 * state and a screenshot when it fails; `kit.end()` stops everything. Screenshots go to `<name>_SCREENSHOTS` or a
 * temp dir.
 */
export function consoleKit(name) {
  const root = mkdtempSync(join(tmpdir(), `ticketing-${name}-`));
  const stateDir = join(root, "state");
  const shots = resolve(process.env.CONSOLE_SCREENSHOTS ?? join(root, "screenshots"));
  mkdirSync(shots, { recursive: true });
  const kit = { service: undefined, browser: undefined, failed: false, shots };
  stopAfterSixMinutes(`the ${name} test`, () => kit);
  kit.step = stepsNotingFailure(
    () => {
      kit.failed = true;
    },
    async (stepName) => {
      for (const page of (await kit.browser?.pages()) ?? []) await page.screenshot({ path: join(shots, `failed-${stepName.replace(/\W+/g, "-")}.png`), fullPage: true });
    },
  );
  kit.start = async (vars = {}) => {
    kit.service = await startService({ persistTo: stateDir, vars });
    kit.browser = await launchChromium();
    console.log(`# service at ${kit.service.url}, state in ${stateDir}`);
    return kit.service;
  };
  kit.end = () => endRun({ browser: kit.browser, service: kit.service, stateDir, failed: kit.failed, screenshots: shots });
  kit.shot = (page, file, { fullPage = true } = {}) => page.screenshot({ path: join(shots, `${file}.png`), fullPage });
  kit.consoleUrl = (hash = "", lang = "en") => `${kit.service.origin}/ticketing/v1/console/?lang=${lang}${hash ? `#${hash}` : ""}`;
  return kit;
}

/**
 * A page of a browser context of its own (a person on a device of their own: no cookie, no kept session), that
 * fails the test on any script error or refused resource (the CSP allows scripts from 'self' only).
 */
export async function newPage(browser, viewport = { width: 1280, height: 900 }) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.setViewport(viewport);
  page.errors = [];
  page.on("pageerror", (err) => page.errors.push(String(err)));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/.test(msg.text())) page.errors.push(msg.text());
  });
  return page;
}

/** Lets the page's downloads land in `dir` (Chromium's DevTools protocol; headless Chromium refuses them otherwise). */
export async function downloadsTo(page, dir) {
  const cdp = await page.browser().target().createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: dir, browserContextId: page.browserContext().id });
}

/** The element of `role` named `name` (its label, its text), as assistive technology finds it. */
export function byRole(page, role, name) {
  return page.waitForSelector(`::-p-aria([name=${JSON.stringify(name)}][role=${JSON.stringify(role)}])`, { timeout: STEP_MS });
}

/** The element named `label` (a control by its label, a link by its text), as assistive technology finds it. */
export async function byLabel(page, label) {
  const handle = await page.waitForSelector(`::-p-aria(${JSON.stringify(label)})`, { timeout: STEP_MS });
  assert.ok(handle, `nothing is labelled ${label}`);
  return handle;
}

/**
 * The form control whose <label> reads `label` (the label's own control, as a click on the label reaches it): an
 * ARIA name alone could find a term of a description list that reads the same.
 */
export async function controlLabelled(page, label) {
  const handle = await page.waitForFunction(
    (text) => [...document.querySelectorAll("label")].find((l) => l.textContent.trim() === text && l.control)?.control,
    { timeout: STEP_MS },
    label,
  );
  const element = handle.asElement();
  assert.ok(element, `no control is labelled ${label}`);
  return element;
}

/** Types `value` into the control labelled `label`, replacing what it held. */
export async function fillLabel(page, label, value) {
  const input = await controlLabelled(page, label);
  await input.evaluate((el) => {
    el.value = "";
  });
  await input.type(String(value));
}

/** Chooses the option whose text is `optionText` in the select labelled `label`. */
export async function selectLabel(page, label, optionText) {
  const select = await controlLabelled(page, label);
  const value = await select.evaluate((el, text) => [...el.options].find((o) => o.textContent.trim() === text)?.value, optionText);
  assert.ok(value !== undefined, `${label} has no option ${optionText}`);
  await select.select(value);
}

export async function click(page, role, name) {
  await (await byRole(page, role, name)).click();
}

/** Waits until the main heading reads `text` (a screen opened). */
export async function waitForHeading(page, text) {
  await page.waitForFunction((t) => document.querySelector("main h1")?.textContent?.trim() === t, { timeout: STEP_MS }, text);
}

/** Waits until the page shows `text` somewhere. */
export async function waitForText(page, text) {
  await page.waitForFunction((t) => document.body.textContent.includes(t), { timeout: STEP_MS }, text);
}

/**
 * Opens the console and signs in as the service's administrator (or `username`/`password`), in a page of newPage's
 * (the console keeps its session for the whole browser context, src/console-app/session.ts).
 */
export async function signIn(page, kit, { username = kit.service.username, password = kit.service.password, lang = "en", hash = "" } = {}) {
  await page.goto(kit.consoleUrl(hash, lang), { waitUntil: "load" });
  await fillLabel(page, labelsOf(lang).username, username);
  await fillLabel(page, labelsOf(lang).password, password);
  await click(page, "button", labelsOf(lang).signIn);
  await page.waitForSelector("::-p-aria([name=" + JSON.stringify(labelsOf(lang).signOut) + "][role=button])");
}

/** axe-core over the screen, and no script error or refused resource so far. */
export async function checkScreen(page, label) {
  await expectNoAxeViolations(page, label);
  assert.deepEqual(page.errors, [], `script errors on ${label}`);
}

// The sign-in words the kit itself uses, per language (src/console-app/messages/common.ts).
const SIGN_IN_LABELS = {
  en: { username: "Username or email", password: "Application password", signIn: "Sign in", signOut: "Sign out" },
  nl: { username: "Gebruikersnaam of e-mailadres", password: "Applicatiewachtwoord", signIn: "Aanmelden", signOut: "Afmelden" },
};
const labelsOf = (lang) => SIGN_IN_LABELS[lang] ?? SIGN_IN_LABELS.en;

/** The service's error shown beside the control labelled `label` (its `aria-describedby` error), once it is there. */
export async function errorBeside(page, label) {
  const control = await controlLabelled(page, label);
  await page.waitForFunction((el) => el.getAttribute("aria-invalid") === "true", { timeout: STEP_MS }, control);
  return control.evaluate((el) => {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(" ");
    return ids.map((id) => document.getElementById(id)).find((p) => p?.classList.contains("error"))?.textContent ?? "";
  });
}

/** Presses Tab until the focus is on the control labelled (or the button reading) `name`: the keyboard alone. */
export async function tabTo(page, name, limit = 80) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    const here = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return "";
      if (el.tagName === "BUTTON") return el.textContent.trim();
      return el.labels?.[0]?.textContent.trim() ?? "";
    });
    if (here === name) return;
  }
  assert.fail(`Tab never reached ${name}`);
}

/** Waits until `check()` holds, polling (a refund or a scan reaches D1 a moment after the answer). */
export async function eventually(label, check, ms = 30_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) if (await check()) return;
  assert.fail(`${label} did not happen within ${ms} ms`);
}

/** A scan at the door: `POST /scans` with the scan key, which must admit the ticket. */
export async function scanTicket(service, key, ticketId) {
  const res = await fetch(`${service.url}/scans`, {
    method: "POST",
    headers: { "X-EVT-API-KEY": key, "Content-Type": "application/json" },
    body: JSON.stringify({ id: ticketId }),
  });
  const body = await res.json();
  assert.equal(body.status, true, JSON.stringify(body));
}

/** A customer's order through the API with the publishable ordering key, paid through the test checkout. */
export async function paidOrder(service, orderingKey, eventId, order) {
  const res = await fetch(`${service.url}/events/${eventId}/orders`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-EVT-API-KEY": orderingKey },
    body: JSON.stringify(order),
  });
  const placed = await res.json();
  assert.equal(res.status, 201, JSON.stringify(placed));
  const paid = await fetch(placed.payment.checkout_url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "action=pay",
    redirect: "manual",
  });
  assert.equal(paid.status, 303);
  return placed;
}
