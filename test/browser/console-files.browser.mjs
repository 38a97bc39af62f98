// The console's files area (decisions.md 15 "The organiser console"; docs/console.md) in a real headless
// Chromium: a PDF template uploaded, previewed (the service's sample ticket in a frame) and changed; an event's email
// list uploaded with a bad line (the line's error shown), then a good file; axe-core on every screen and state.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { PDFDocument, PageSizes } from "pdf-lib";
import { byRole, checkScreen, click, consoleKit, controlLabelled, fillLabel, newPage, selectLabel, signIn, waitForHeading, waitForText } from "./console-kit.mjs";

const kit = consoleKit("console-files");
const { step } = kit;
const files = mkdtempSync(join(tmpdir(), "console-files-"));

/**
 * A page in a browser context of its own, so the step signs in afresh: a new tab of the same context is already
 * signed in (the console keeps its session in localStorage beside the cookie, docs/console.md).
 */
/** A one-page A4 PDF, as an organiser's template would be. */
async function templatePdf() {
  const doc = await PDFDocument.create();
  doc.addPage(PageSizes.A4).drawText("Console files test template", { x: 50, y: 780, size: 18 });
  const path = join(files, "template.pdf");
  writeFileSync(path, await doc.save());
  return path;
}

function csv(name, text) {
  const path = join(files, name);
  writeFileSync(path, text);
  return path;
}

const state = {};

describe("the console in Chromium: PDF templates and email lists", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      kit.failed = true;
      await kit.start();
      state.event = await kit.service.admin("POST", "/admin/events", { event_name: "Files test night" });
      kit.failed = false;
    },
    { timeout: 180_000 },
  );
  after(() => kit.end());

  step("uploads a PDF template: the list shows it", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/pdf-templates" });
    await waitForHeading(page, "PDF templates");
    await checkScreen(page, "the PDF templates without one");
    await fillLabel(page, "Title", "Door ticket");
    await (await controlLabelled(page, "PDF file")).uploadFile(await templatePdf());
    await click(page, "button", "Upload");
    await waitForText(page, "Uploaded. Door ticket");
    await byRole(page, "link", "Door ticket");
    await byRole(page, "button", "Download Door ticket");
    await checkScreen(page, "the PDF templates with one");
    await page.close();
  });

  step("a refused upload names the field beside it", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/pdf-templates" });
    await waitForHeading(page, "PDF templates");
    await fillLabel(page, "Title", "Not a PDF");
    await (await controlLabelled(page, "PDF file")).uploadFile(csv("not-a-pdf.pdf", "hello, this is text"));
    await click(page, "button", "Upload");
    await page.waitForSelector(".field.has-error input[type=file]");
    assert.equal(await page.evaluate(() => document.activeElement?.className), "error-summary");
    await checkScreen(page, "the upload form with the service's error");
    await page.close();
  });

  step("previews the template: a frame of the service's PDF, and a link to open it", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/pdf-templates" });
    await click(page, "link", "Door ticket");
    await waitForHeading(page, "Door ticket");
    await checkScreen(page, "a PDF template");
    await selectLabel(page, "Layout", "Ticket settings of Files test night");
    const answered = page.waitForResponse((r) => r.url().includes("/preview"));
    await click(page, "button", "Show the preview");
    const response = await answered;
    assert.equal(response.status(), 200);
    assert.equal(response.headers()["content-type"], "application/pdf");
    assert.match(response.url(), new RegExp(`event_id=${state.event.id}$`));
    const frame = await page.waitForSelector("iframe[title='Preview of Door ticket']");
    assert.match(await frame.evaluate((el) => el.src), /^blob:/);
    await byRole(page, "link", "Open the preview in a new tab");
    await kit.shot(page, "console-files-preview");
    await checkScreen(page, "a PDF template with its preview");
    await page.close();
  });

  step("changes the template's title", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/pdf-templates" });
    await click(page, "link", "Door ticket");
    await waitForHeading(page, "Door ticket");
    await fillLabel(page, "Title", "Door ticket 2031");
    await click(page, "button", "Save");
    await waitForHeading(page, "Door ticket 2031");
    await page.close();
  });

  step("an email list: a bad line is shown by its number, a good file is taken", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: `/events/${state.event.id}/list` });
    await waitForText(page, "This event has no email list yet.");
    await checkScreen(page, "an event without an email list");

    await (await controlLabelled(page, "CSV file")).uploadFile(csv("bad.csv", "name,email,cap\nAda Lovelace,ada@example.com,2\nBad Row,not-an-address,1\n"));
    await click(page, "button", "Upload");
    await waitForText(page, "Refused lines");
    const items = await page.$$eval(".refused-lines li", (lis) => lis.map((li) => li.textContent));
    assert.deepEqual(items, ['Line 3: "not-an-address" is not a valid email address']);
    await page.waitForSelector(".field.has-error input[type=file]");
    await checkScreen(page, "the email list upload with a refused line");

    await (await controlLabelled(page, "CSV file")).uploadFile(csv("good.csv", "Ada Lovelace,ada@example.com,2\nGrace Hopper,grace@example.com,0\n"));
    await click(page, "button", "Upload");
    await waitForText(page, "Uploaded: the list holds 2 addresses.");
    assert.equal(await page.$(".refused-lines"), null);
    await waitForText(page, "Addresses on the list");
    await checkScreen(page, "an event with its email list");
    await page.close();
  });

  step("lists the email lists, and deletes one after asking", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/email-lists" });
    await waitForHeading(page, "Email lists");
    await byRole(page, "link", "Files test night");
    await checkScreen(page, "the email lists");
    await click(page, "link", "Files test night");
    await waitForText(page, "Addresses on the list");
    page.once("dialog", (dialog) => dialog.accept());
    await click(page, "button", "Delete the email list");
    await waitForText(page, "This event has no email list yet.");
    await page.close();
  });

  step("speaks Dutch on both screens", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/pdf-templates", lang: "nl" });
    await waitForHeading(page, "PDF-sjablonen");
    await byRole(page, "button", "Door ticket 2031 downloaden");
    await checkScreen(page, "the PDF templates in Dutch");
    await page.goto(kit.consoleUrl(`/events/${state.event.id}/list`, "nl"), { waitUntil: "load" });
    await waitForText(page, "Dit evenement heeft nog geen e-maillijst.");
    await checkScreen(page, "an event's email list in Dutch");
    await page.close();
  });

  step("deletes the template after asking", async () => {
    const page = await newPage(kit.browser);
    await signIn(page, kit, { hash: "/pdf-templates" });
    await click(page, "link", "Door ticket 2031");
    await waitForHeading(page, "Door ticket 2031");
    page.once("dialog", (dialog) => dialog.accept());
    await click(page, "button", "Delete the template");
    await waitForHeading(page, "PDF templates");
    await waitForText(page, "No PDF templates yet.");
    await page.close();
  });
});
