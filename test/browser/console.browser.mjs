// `npm run test:browser`: the organiser console (decisions.md 15 "The organiser console"; docs/console.md) in a real
// headless Chromium. Signing in and out, the session's end, the language, and the keyboard.
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { byLabel, checkScreen, click, consoleKit, fillLabel, newPage, signIn, waitForHeading, waitForText } from "./console-kit.mjs";

const kit = consoleKit("console");
const { step } = kit;

describe("the console in Chromium: signing in and out", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      await kit.start();
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("a wrong password is refused in the summary, and nothing signs in", async () => {
    const page = await newPage(kit.browser);
    await page.goto(kit.consoleUrl(), { waitUntil: "load" });
    await waitForHeading(page, "Sign in to the console");
    await checkScreen(page, "the sign-in form");
    await fillLabel(page, "Username or email", kit.service.username);
    await fillLabel(page, "Application password", "not-the-password");
    await click(page, "button", "Sign in");
    const alert = await page.waitForSelector(".error-summary");
    assert.match(await alert.evaluate((el) => el.textContent), /There is a problem/);
    assert.equal(await page.evaluate(() => document.activeElement?.className), "error-summary");
    await checkScreen(page, "the sign-in form with its error");
    await page.close();
  });

  step("signs in from the keyboard, lands on the events, and signs out", async () => {
    const page = await newPage(kit.browser);
    await page.goto(kit.consoleUrl(), { waitUntil: "load" });
    await (await byLabel(page, "Username or email")).focus();
    await page.keyboard.type(kit.service.username);
    await page.keyboard.press("Tab");
    await page.keyboard.type(kit.service.password);
    await page.keyboard.press("Enter");
    await page.waitForSelector('::-p-aria([name="Sign out"][role=button])');
    await kit.shot(page, "console-signed-in");
    await checkScreen(page, "the first screen");
    await click(page, "button", "Sign out");
    await waitForText(page, "You are signed out.");
    // The session is over at the service too: the cookie no longer opens /admin.
    const status = await page.evaluate(async () => (await fetch("/ticketing/v1/admin/events", { headers: { "X-Ticketing-CSRF": "x" } })).status);
    assert.equal(status, 401);
    await page.close();
  });

  step("speaks Dutch with ?lang=nl", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { lang: "nl" });
    assert.equal(await page.evaluate(() => document.documentElement.lang), "nl");
    await byLabel(page, "Taal");
    await checkScreen(page, "the console in Dutch");
    await page.close();
  });
});
