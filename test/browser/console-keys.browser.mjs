// `npm run test:browser`: the console's scan keys, their printable sheet and the coupons (docs/console.md;
// decisions.md 15 "The organiser console") in a real headless Chromium, every screen checked by axe-core.
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { byLabel, checkScreen, click, consoleKit, fillLabel, newPage, selectLabel, signIn, waitForHeading, waitForText } from "./console-kit.mjs";

const kit = consoleKit("console-keys");
const { step } = kit;
const ctx = {};

/**
 * A page in a browser context of its own: the console keeps its session in localStorage, which every page of one
 * context shares (src/console-app/session.ts), so a second page of the same context would already be signed in and
 * `signIn` would find no sign-in form.
 */
/** Waits until the QR code of the key for `location` is shown, loaded: the image the service drew, not a broken one. */
async function waitForQr(page, location) {
  const alt = `QR code of the scan key for ${location}`;
  await page.waitForFunction((a) => [...document.querySelectorAll("img")].some((i) => i.alt === a && i.complete && i.naturalWidth > 0), {}, alt);
}

describe("the console in Chromium: scan keys and coupons", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      const service = await kit.start();
      const event = await service.admin("POST", "/admin/events", { event_name: "Keys test festival" });
      await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "General", price: 10 });
      await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "VIP", price: 50 });
      ctx.eventId = event.id;
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("creates a scan key in the event's keys section and shows its QR code", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: `/events/${ctx.eventId}/keys` });
    await waitForHeading(page, "Keys test festival");
    await byLabel(page, "Location");
    await checkScreen(page, "the scan keys without keys");
    await fillLabel(page, "Location", "North gate");
    await selectLabel(page, "Level", "1 · Checkpoint: needs an entrance scan first; once per location.");
    await click(page, "checkbox", "VIP");
    await click(page, "button", "Create scan key");
    await waitForQr(page, "North gate");
    const row = await page.evaluate(() => document.querySelector("tbody tr")?.textContent ?? "");
    assert.match(row, /North gate/);
    assert.match(row, /1 · Checkpoint/);
    assert.match(row, /VIP/);
    await checkScreen(page, "the scan keys with one key");
    await kit.shot(page, "console-keys-section");

    // A date format the service refuses: its text beside that field; then a good one.
    await fillLabel(page, "Location", "South gate");
    await fillLabel(page, "Date format", "Y-m-d %Q");
    await click(page, "button", "Create scan key");
    const error = await page.waitForSelector(".field.has-error .error");
    assert.equal(await page.evaluate(() => document.querySelector(".field.has-error input")?.getAttribute("name")), "date_format");
    assert.ok((await error.evaluate((el) => el.textContent)).length > 0);
    await checkScreen(page, "the new key's form with the service's error");
    await fillLabel(page, "Date format", "d-m-Y H:i");
    await click(page, "button", "Create scan key");
    await waitForQr(page, "South gate");
    // A second key at the same location: the service's conflict, beside the location.
    await fillLabel(page, "Location", "South gate");
    await click(page, "button", "Create scan key");
    await waitForText(page, "This event already has a scan key for this location.");
    assert.equal(await page.evaluate(() => document.querySelector(".field.has-error input")?.getAttribute("name")), "location");

    // A change: the level of the north gate.
    await click(page, "button", "Edit scan key North gate");
    await waitForText(page, "Change the scan key for North gate");
    await selectLabel(page, "Level", "0 · Entrance: admits a ticket once.");
    await checkScreen(page, "a key being changed");
    await click(page, "button", "Save scan key");
    await page.waitForFunction(() => document.querySelector("tbody tr td")?.textContent === "0 · Entrance");
    await page.close();
  });

  step("the printable sheet lists each location with one QR code per key, and prints without the menu", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: `/events/${ctx.eventId}/keys` });
    await click(page, "link", "Printable sheet of the QR codes");
    await waitForHeading(page, "Scan keys of Keys test festival");
    await waitForText(page, "Anyone who has this sheet can scan tickets");
    await page.waitForFunction(
      () => [...document.querySelectorAll("img.qr")].length === 2 && [...document.querySelectorAll("img.qr")].every((i) => i.complete && i.naturalWidth > 0),
    );
    const blocks = await page.evaluate(() =>
      [...document.querySelectorAll(".sheet-location")].map((s) => ({ name: s.querySelector("h2")?.textContent, codes: s.querySelectorAll("img.qr").length })),
    );
    assert.deepEqual(blocks.map((b) => b.name).sort(), ["North gate", "South gate"]);
    assert.ok(blocks.every((b) => b.codes === 1));
    await byLabel(page, "Print");
    await checkScreen(page, "the printable sheet");
    await page.emulateMediaType("print");
    const hidden = await page.evaluate(() => ({
      nav: getComputedStyle(document.querySelector("header.top")).display,
      print: getComputedStyle(document.querySelector(".keys-sheet .no-print")).display,
      codes: [...document.querySelectorAll("img.qr")].map((i) => getComputedStyle(i).display),
    }));
    assert.equal(hidden.nav, "none");
    assert.equal(hidden.print, "none");
    assert.ok(hidden.codes.every((d) => d !== "none"));
    await kit.shot(page, "console-keys-sheet-print");
    await page.emulateMediaType(null);
    await page.close();
  });

  step("a coupon with a refused value shows the error beside its field; a good one is created and listed", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/coupons" });
    await waitForHeading(page, "Coupons");
    await checkScreen(page, "the coupons");
    await click(page, "link", "New coupon");
    await waitForHeading(page, "New coupon");
    await fillLabel(page, "Code", "SPRING");
    await selectLabel(page, "Kind of discount", "A percentage off");
    await fillLabel(page, "Discount", "150");
    await click(page, "checkbox", "Keys test festival");
    await click(page, "button", "Create coupon");
    const error = await page.waitForSelector(".field.has-error .error");
    assert.match(await error.evaluate((el) => el.textContent), /at most 100/);
    assert.equal(await page.evaluate(() => document.querySelector(".field.has-error input")?.getAttribute("name")), "amount");
    await checkScreen(page, "the new coupon with the service's error");

    await fillLabel(page, "Discount", "15");
    await click(page, "button", "Create coupon");
    await waitForHeading(page, "Coupon SPRING");
    await checkScreen(page, "a coupon");
    await click(page, "link", "Back to the coupons");
    await waitForHeading(page, "Coupons");
    await page.waitForSelector('::-p-aria([name="Edit coupon SPRING"][role=link])');
    const row = await page.evaluate(() => document.querySelector("tbody tr")?.textContent ?? "");
    assert.match(row, /15\s?%/);
    assert.match(row, /Keys test festival/);
    await checkScreen(page, "the coupons with one");
    await page.close();
  });

  step("a coupon is changed, its counters reset and it is deleted, each asking first where it cannot be undone", async () => {
    const page = await newPage(kit.browser);
    const questions = [];
    page.on("dialog", (dialog) => {
      questions.push(dialog.message());
      dialog.accept();
    });
    await signIn(page, kit, { hash: "/coupons" });
    await click(page, "link", "Edit coupon SPRING");
    await waitForHeading(page, "Coupon SPRING");
    await fillLabel(page, "Discount", "20");
    await fillLabel(page, "Uses in all", "5");
    await click(page, "button", "Save coupon");
    await waitForText(page, "Saved.");
    await waitForText(page, "0 of 5");
    await click(page, "button", "Reset the counters");
    await waitForText(page, "Counters reset.");
    await click(page, "button", "Delete coupon");
    await waitForHeading(page, "Coupons");
    await waitForText(page, "No coupons yet.");
    assert.deepEqual(questions, ["Reset the use counters of SPRING? Its uses start again from 0.", "Delete SPRING? This cannot be undone."]);
    await page.close();
  });
});
