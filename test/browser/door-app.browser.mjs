// `npm run test:browser`: the door app (`/ticketing/v1/door/`, docs/door-app.md) in a real headless Chromium against
// the service started by `wrangler dev` (scripts/local-service.mjs), with ticket codes signed by a key made for the
// run, as in production.
//
// A door phone's evening: the set-up screen switches to Dutch and back (decisions.md 15 "Languages"), the app is set
// up from the scan key's QR code (its link, or a photo of the image the admin API prints), syncs the offline list,
// admits a ticket read from a photo and one from the camera (Chromium's fake camera playing a video of the ticket's QR
// code), shows a second scan as already scanned (when and where), another type's ticket as wrong for this entrance
// and a refusal by the service in its words for the error code; then the network goes
// (devtools' offline emulation), the app decides from its list, queues, reopens from its service worker, and when the
// network is back replays its scans and shows the one another door admitted meanwhile as a conflict.
//
// Screenshots go to the temp dir printed at the end, or to DOOR_SCREENSHOTS (docs/door-app uses them:
// `DOOR_SCREENSHOTS=docs/door-app npm run test:browser`).
import assert from "node:assert/strict";
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe } from "node:test";
import qrcode from "qrcode-generator";
import { startService } from "../../scripts/local-service.mjs";
import { endRun, expectNoAxeViolations, launchChromium, stepsNotingFailure, stopAfterSixMinutes } from "./chromium.mjs";

const STEP_MS = 20_000;
const root = mkdtempSync(join(tmpdir(), "ticketing-door-"));
const stateDir = join(root, "state");
const shots = resolve(process.env.DOOR_SCREENSHOTS ?? join(root, "screenshots"));
mkdirSync(shots, { recursive: true });
let service;
let browser;
let page;
let failed = false;

stopAfterSixMinutes("the door app test", () => ({ browser, service }));

const ctx = {};

// A signing key of the run's own, as `node scripts/signing-key.mjs` makes them.
const signingKey = (() => {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { kid: "door", ...jwk, _private: privateKey };
})();

/** A ticket's signed code, as its PDF's QR code carries it (docs/scanning.md "Signed ticket codes"). */
function codeOf(ticketId) {
  const message = `${signingKey.kid}.${ctx.eventId}.${ticketId}`;
  return `${message}.${sign(null, Buffer.from(message), signingKey._private).toString("base64url")}`;
}

/** The same code signed by a key the service does not have. */
function forgedCodeOf(ticketId) {
  const { privateKey } = generateKeyPairSync("ed25519");
  const message = `${signingKey.kid}.${ctx.eventId}.${ticketId}`;
  return `${message}.${sign(null, Buffer.from(message), privateKey).toString("base64url")}`;
}

function qr(text) {
  const q = qrcode(0, "M");
  q.addData(text);
  q.make();
  return q;
}

/** A photo of a QR code: a GIF (qrcode-generator's own image), written to the run's dir. */
function qrImage(text, name) {
  const file = join(root, `${name}.gif`);
  writeFileSync(file, Buffer.from(qr(text).createDataURL(8, 4).split(",")[1], "base64"));
  return file;
}

/**
 * A video for Chromium's fake camera (`--use-file-for-fake-video-capture`): one Y4M frame, 640x480, the QR code in
 * the middle, which Chromium shows over and over.
 */
function qrVideo(text, name) {
  const [width, height, cell] = [640, 480, 8];
  const q = qr(text);
  const size = (q.getModuleCount() + 8) * cell;
  const left = Math.floor((width - size) / 2);
  const top = Math.floor((height - size) / 2);
  const luma = Buffer.alloc(width * height, 235);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const r = Math.floor(y / cell) - 4;
      const c = Math.floor(x / cell) - 4;
      const dark = r >= 0 && c >= 0 && r < q.getModuleCount() && c < q.getModuleCount() && q.isDark(r, c);
      if (dark) luma[(top + y) * width + left + x] = 16;
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const file = join(root, `${name}.y4m`);
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\nFRAME\n`), luma, chroma]));
  return file;
}

async function scanAtOtherDoor(ticketId) {
  const res = await fetch(`${service.url}/scans`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-EVT-API-KEY": ctx.southKey },
    body: JSON.stringify({ id: codeOf(ticketId) }),
  });
  assert.equal(res.status, 200);
  return res.json();
}

/** What the page shows. */
function screen() {
  return page.evaluate(() => {
    const text = (id) => document.getElementById(id)?.textContent ?? "";
    const answer = document.getElementById("answer");
    return {
      kind: answer.className.replace("answer", "").trim(),
      shown: Number(answer.dataset.shown ?? 0),
      offline: answer.dataset.offline === "true",
      title: text("answer-title"),
      name: text("answer-name"),
      type: text("answer-type"),
      detail: text("answer-detail"),
      counters: {
        scanned: text("count-scanned"),
        admitted: text("count-admitted"),
        refused: text("count-refused"),
        queued: text("count-queued"),
      },
      lastSync: text("last-sync"),
      listSize: text("list-size"),
      network: text("network"),
      conflicts: [...document.querySelectorAll("#conflict-list li")].map((li) => li.textContent),
      conflictsShown: !document.getElementById("conflicts").hidden,
    };
  });
}

/** Runs `act` and waits for the next answer on the screen. */
async function nextAnswer(act) {
  const before = (await screen()).shown;
  await act();
  await page.waitForFunction((n) => Number(document.getElementById("answer").dataset.shown ?? 0) > n, { timeout: STEP_MS }, before);
  return screen();
}

async function photo(ticketId, name) {
  const input = await page.$("#photo-input");
  return nextAnswer(() => input.uploadFile(qrImage(codeOf(ticketId), name)));
}

const step = stepsNotingFailure(
  () => {
    failed = true;
  },
  (name) => page?.screenshot({ path: join(shots, `failed-${name.slice(0, 40).replace(/\W+/g, "-")}.png`) }),
);

describe("the door app in Chromium", { timeout: 5 * 60_000 }, () => {
  before(
    async () => {
      failed = true;
      const { _private, ...jwk } = signingKey;
      service = await startService({ persistTo: stateDir, vars: { TICKET_SIGNING_KEYS: JSON.stringify([jwk]) } });
      console.log(`# service at ${service.url}, state in ${stateDir}`);

      const event = await service.admin("POST", "/admin/events", { event_name: "Door test concert", add_dashboard_orders_needed: true });
      ctx.eventId = event.id;
      const general = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "General", price: 10 });
      const vip = await service.admin("POST", `/admin/events/${event.id}/ticket-types`, { name: "VIP", price: 50 });
      ctx.northKey = (await service.admin("POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "North gate", tickets: "General" })).key;
      ctx.southKey = (await service.admin("POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "South gate" })).key;
      await service.admin("POST", "/admin/orders", { event_id: event.id, name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [general.id]: 4, [vip.id]: 0 }] });
      await service.admin("POST", "/admin/orders", { event_id: event.id, name: "Grace Hopper", email: "grace@example.com", tickets: [{ [general.id]: 0, [vip.id]: 1 }] });
      ctx.turing = await service.admin("POST", "/admin/orders", {
        event_id: event.id,
        name: "Alan Turing",
        email: "alan@example.com",
        tickets: [{ [general.id]: 1, [vip.id]: 0 }],
      });
      // The tickets, from the list a door syncs (the other door's key sees every type); a dashboard order reaches its
      // event object's list a moment after its answer (docs/stock.md).
      let list;
      for (let tries = 0; tries < 50; tries++) {
        list = await (await fetch(`${service.url}/scans/tickets?per_page=100`, { headers: { "X-EVT-API-KEY": ctx.southKey } })).json();
        if (list.tickets?.length === 6) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      ctx.general = list.tickets.filter((t) => t.ticket_type === "General" && t.order_id !== ctx.turing.id).map((t) => t.ticket_id);
      ctx.vip = list.tickets.filter((t) => t.ticket_type === "VIP").map((t) => t.ticket_id);
      ctx.revoked = list.tickets.find((t) => t.order_id === ctx.turing.id)?.ticket_id;
      assert.equal(ctx.general.length, 4, JSON.stringify(list));
      assert.ok(ctx.revoked);
      assert.equal(ctx.vip.length, 1);

      // The phone's language is English (the app follows navigator.languages): the machine's locale plays no part.
      browser = await launchChromium([
        "--lang=en-US",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        `--use-file-for-fake-video-capture=${qrVideo(codeOf(ctx.general[1]), "camera")}`,
      ]);
      page = await browser.newPage();
      page.setDefaultTimeout(STEP_MS);
      await page.setViewport({ width: 420, height: 900, deviceScaleFactor: 1 });
      ctx.pageErrors = [];
      page.on("pageerror", (err) => ctx.pageErrors.push(String(err)));
      page.on("console", (msg) => {
        // Requests the network emulation refuses are expected while offline, 401s once the key is deleted; anything
        // else is a fault.
        const expected =
          /Failed to load resource: net::ERR_INTERNET_DISCONNECTED/.test(msg.text()) ||
          (ctx.keyDeleted && /status of 401/.test(msg.text())) ||
          (ctx.refusalAsked && /status of 400/.test(msg.text()));
        if (msg.type() === "error" && !expected) ctx.pageErrors.push(msg.text());
      });
      failed = false;
    },
    { timeout: 4 * 60_000 },
  );

  after(() => endRun({ browser, service, stateDir, failed, screenshots: shots }), { timeout: 30_000 });

  step("a scan key's QR link opens the app with the key set, and the key leaves the address bar", async () => {
    // A phone of its own (an empty browser context): what a door person gets by pointing the camera at the key's sheet.
    const phone = await browser.createBrowserContext();
    try {
      const other = await phone.newPage();
      await other.goto(`${service.origin}/ticketing/v1/door/#key=${ctx.southKey}`, { waitUntil: "load" });
      await other.waitForFunction(() => /tickets on this phone/.test(document.getElementById("list-size")?.textContent ?? ""), { timeout: STEP_MS });
      assert.equal(await other.evaluate(() => location.hash), "");
      assert.match(await other.$eval("#key-label", (e) => e.textContent), /South gate · entrance/);
    } finally {
      await phone.close();
    }
  });

  step("speaks Dutch when chosen on the set-up screen, keeps the choice, and goes back to English (decisions.md 15 'Languages')", async () => {
    await page.goto(`${service.url}/door/`, { waitUntil: "load" });
    await page.waitForFunction(() => !document.getElementById("setup").hidden);
    const words = () =>
      page.evaluate(() => ({
        lang: document.documentElement.lang,
        title: document.title,
        heading: document.querySelector("#setup h1")?.textContent,
        language: document.querySelector('label[for="language-select"]')?.textContent,
        keyLabel: document.querySelector('label[for="key-input"]')?.textContent,
        placeholder: document.getElementById("key-input")?.getAttribute("placeholder"),
        useKey: document.querySelector('#key-form button[type="submit"]')?.textContent,
        chosen: document.getElementById("language-select")?.value,
      }));
    assert.deepEqual(await words(), {
      lang: "en",
      title: "Door",
      heading: "Door",
      language: "Language",
      keyLabel: "Scan key",
      placeholder: "16 letters and digits",
      useKey: "Use this key",
      chosen: "en",
    });
    const dutch = {
      lang: "nl",
      title: "Deur",
      heading: "Deur",
      language: "Taal",
      keyLabel: "Scansleutel",
      placeholder: "16 letters en cijfers",
      useKey: "Deze sleutel gebruiken",
      chosen: "nl",
    };
    await page.select("#language-select", "nl");
    assert.deepEqual(await words(), dutch);
    // A malformed key is refused in Dutch too.
    await page.type("#key-input", "too short");
    await page.click('#key-form button[type="submit"]');
    assert.equal(await page.$eval("#setup-message", (e) => e.textContent), "Een scansleutel bestaat uit 16 letters en cijfers.");
    await page.screenshot({ path: join(shots, "setup-nl.png") });
    await expectNoAxeViolations(page, "the door app's set-up screen in Dutch");
    // The phone keeps the choice.
    await page.reload({ waitUntil: "load" });
    await page.waitForFunction(() => !document.getElementById("setup").hidden);
    assert.deepEqual(await words(), dutch);
    await page.select("#language-select", "en");
    assert.equal((await words()).useKey, "Use this key");
    assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
  });

  step("sets up from a photo of the key's QR code (GET /admin/events/<id>/scan-keys/<key>/qr) and syncs the list", async () => {
    // The bare address: Cloudflare's router sends it on to the app's folder.
    await page.goto(`${service.url}/door`, { waitUntil: "load" });
    assert.match(await page.evaluate(() => location.pathname), /\/ticketing\/v1\/door\/$/);
    await page.waitForFunction(() => !document.getElementById("setup").hidden);
    await page.screenshot({ path: join(shots, "setup.png") });
    await expectNoAxeViolations(page, "the door app's set-up screen");
    const res = await fetch(`${service.url}/admin/events/${ctx.eventId}/scan-keys/${ctx.northKey}/qr?format=png`, {
      headers: { "X-EVT-API-KEY": service.apiKey, Authorization: service.auth },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Type"), "image/png");
    const sheet = join(root, "north-key.png");
    writeFileSync(sheet, Buffer.from(await res.arrayBuffer()));
    await (await page.$("#key-photo-input")).uploadFile(sheet);
    await page.waitForFunction(() => /6 tickets on this phone/.test(document.getElementById("list-size")?.textContent ?? ""));
    assert.equal(await page.$eval("#event-name", (e) => e.textContent), "Door test concert");
    assert.match(await page.$eval("#key-label", (e) => e.textContent), /North gate · entrance/);
    assert.notEqual((await screen()).lastSync, "never");
    // The service worker holds the app before the network goes.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.screenshot({ path: join(shots, "ready.png") });
    await expectNoAxeViolations(page, "the door app, ready to scan");
  });

  step("admits a ticket read from a photo of its QR code, with the name and ticket type", async () => {
    const shown = await photo(ctx.general[0], "general-0");
    assert.equal(shown.kind, "admitted", JSON.stringify(shown));
    assert.equal(shown.title, "Admitted");
    assert.equal(shown.name, "Ada Lovelace");
    assert.equal(shown.type, "General");
    assert.equal(shown.offline, false);
  });

  step("shows the same ticket again as already scanned, with when and where", async () => {
    const shown = await photo(ctx.general[0], "general-0-again");
    assert.equal(shown.kind, "repeat", JSON.stringify(shown));
    assert.equal(shown.title, "Already scanned");
    assert.match(shown.detail, /Scanned \d{4}-\d\d-\d\d \d\d:\d\d:\d\d at North gate/);
    await page.screenshot({ path: join(shots, "already-scanned.png") });
  });

  step("refuses another type's ticket at this entrance", async () => {
    const shown = await photo(ctx.vip[0], "vip");
    assert.equal(shown.kind, "refused", JSON.stringify(shown));
    assert.equal(shown.title, "Wrong ticket for this entrance");
    await page.screenshot({ path: join(shots, "wrong-ticket.png") });
  });

  step("shows a refusal by the service in the door's words for its error code", async () => {
    // POST /scans refuses an id of more than 300 characters with 400 rest_invalid_param (decisions.md 3).
    ctx.refusalAsked = true;
    const shown = await nextAnswer(async () => {
      await page.$eval("#code-input", (input) => {
        input.value = "x".repeat(301);
      });
      await page.click('#code-form button[type="submit"]');
    });
    assert.equal(shown.kind, "refused", JSON.stringify(shown));
    assert.equal(shown.title, "Refused");
    assert.equal(shown.detail, "Some of the values entered are not valid.");
    ctx.refusalAsked = false;
  });

  step("reads a ticket from the camera", async () => {
    const shown = await nextAnswer(() => page.click("#camera-toggle"));
    assert.equal(shown.kind, "admitted", JSON.stringify(shown));
    assert.equal(shown.name, "Ada Lovelace");
    await page.screenshot({ path: join(shots, "camera.png") });
    await page.click("#camera-toggle");
    assert.deepEqual((await screen()).counters, { scanned: "4", admitted: "2", refused: "2", queued: "0" });
  });

  step("learns at the next sync that a ticket was revoked (its order deleted)", async () => {
    await service.admin("DELETE", `/admin/orders/${ctx.turing.id}`);
    await page.click("#sync-now");
    await page.waitForFunction(() => /5 tickets on this phone/.test(document.getElementById("list-size")?.textContent ?? ""));
  });

  step("offline: decides from the kept list, refuses what the list says, and queues the admission", async () => {
    await page.setOfflineMode(true);
    await page.waitForFunction(() => document.getElementById("network")?.textContent === "Offline");
    const admitted = await photo(ctx.general[2], "general-2");
    assert.equal(admitted.kind, "admitted", JSON.stringify(admitted));
    assert.equal(admitted.offline, true);
    assert.equal(admitted.name, "Ada Lovelace");
    assert.match(admitted.detail, /Offline/);
    await page.screenshot({ path: join(shots, "offline.png") });
    const again = await photo(ctx.general[0], "general-0-offline");
    assert.equal(again.kind, "repeat", JSON.stringify(again));
    assert.match(again.detail, /^Scanned \d{4}-\d\d-\d\d \d\d:\d\d:\d\d at North gate \(decided offline\)$/);
    const vip = await photo(ctx.vip[0], "vip-offline");
    assert.equal(vip.kind, "refused");
    assert.equal(vip.title, "Wrong ticket for this entrance");
    assert.equal(vip.detail, "(decided offline)");
    const revoked = await photo(ctx.revoked, "revoked-offline");
    assert.equal(revoked.kind, "refused", JSON.stringify(revoked));
    assert.equal(revoked.title, "Not on this phone's list");
    assert.match(revoked.detail, /new or cancelled/);
    // A code of the right shape whose signature is not the service's: a forgery, refused as no ticket of this event.
    const forged = await nextAnswer(async () => (await page.$("#photo-input")).uploadFile(qrImage(forgedCodeOf(ctx.general[3]), "forged")));
    assert.equal(forged.kind, "refused", JSON.stringify(forged));
    assert.equal(forged.title, "Not a ticket for this event");
    assert.equal((await screen()).counters.queued, "1");
  });

  step("reopens offline from its service worker, with its list and queue", async () => {
    // Meanwhile the ticket admitted offline comes in at the south gate.
    const south = await scanAtOtherDoor(ctx.general[2]);
    assert.equal(south.status, true, JSON.stringify(south));
    await page.reload({ waitUntil: "load" });
    await page.waitForFunction(() => !document.getElementById("door").hidden);
    const shown = await screen();
    assert.equal(shown.network, "Offline");
    assert.equal(shown.counters.queued, "1");
    assert.match(shown.listSize, /5 tickets on this phone/);
    const admitted = await photo(ctx.general[3], "general-3-offline");
    assert.equal(admitted.kind, "admitted", JSON.stringify(admitted));
    // The counters are read back from the phone's store after the answer is shown (src/door-app/main.ts refresh()):
    // wait for them rather than read them in the same instant.
    await page.waitForFunction(() => document.getElementById("count-queued")?.textContent === "2", { timeout: 5_000 }).catch(() => {});
    assert.equal((await screen()).counters.queued, "2");
  });

  step("back online: replays the queue and shows the ticket another door admitted meanwhile as a conflict", async () => {
    await page.setOfflineMode(false);
    await page.waitForFunction(() => document.getElementById("count-queued")?.textContent === "0", { timeout: 30_000 });
    await page.waitForFunction(() => !document.getElementById("conflicts").hidden);
    const shown = await screen();
    assert.equal(shown.network, "Online");
    assert.equal(shown.conflicts.length, 1, JSON.stringify(shown.conflicts));
    assert.match(shown.conflicts[0], /Ada Lovelace, General: This scan has already been done \(.* at South gate\)/);
    // The other queued admission reached the service: a scan there now is a repeat at the north gate.
    const check = await scanAtOtherDoor(ctx.general[3]);
    assert.equal(check.status, false);
    assert.equal(check.location, "North gate");
    await page.screenshot({ path: join(shots, "conflict.png"), fullPage: true });
  });

  step("says so when the organiser deletes the key", async () => {
    await service.admin("DELETE", `/admin/events/${ctx.eventId}/scan-keys/${ctx.northKey}`);
    ctx.keyDeleted = true;
    await page.click("#sync-now");
    await page.waitForFunction(() => document.getElementById("network")?.textContent === "Key refused");
    const shown = await nextAnswer(() => page.$("#photo-input").then((input) => input.uploadFile(qrImage(codeOf(ctx.general[1]), "after-delete"))));
    assert.equal(shown.title, "Key refused", JSON.stringify(shown));
  });

  step("logged no page error", async () => {
    assert.deepEqual(ctx.pageErrors, []);
  });
});
