/**
 * The door app's screen (docs/door-app.md): the key, then the camera, each answer big and coloured, the counters,
 * and the conflicts the replay found. Works offline once loaded: the service worker keeps the app, IndexedDB the rest.
 */
import { errorText, format } from "../domain/messages";
import { Door, type ScanShown, scanErrorText } from "./door";
import { KeyRefused, ServiceRefused, Unreachable } from "./door-api";
import { applyDoorLanguage, doorLanguage, doorText, fillLanguageSelect } from "./door-language";
import { DoorStore } from "./door-store";
import { readImage, startCamera } from "./scanner";

const SYNC_EVERY_MS = 60_000;
const REPLAY_EVERY_MS = 15_000;
const KEY = /^[A-Za-z0-9]{16}$/;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

let store: DoorStore;
let door: Door | null = null;
let stopCamera: (() => void) | null = null;
let busy = Promise.resolve();
/** Answers shown so far: the page's `data-shown`, which tells a watcher (the browser test) that a new answer is up. */
let shown = 0;
/** The service answered 401 to the key (deleted or replaced by the organiser): the badge says so until it accepts it again. */
let keyRefused = false;

/** A key from the scan key's QR code (`.../door/#key=<key>`) or typed; null when it is not one. */
function keyFrom(text: string): string | null {
  const trimmed = text.trim();
  if (KEY.test(trimmed)) return trimmed;
  const fragment = /#key=([A-Za-z0-9]{16})$/.exec(trimmed);
  return fragment ? fragment[1]! : null;
}

/** An error as the screen says it: a refusal by its code in the door's language (decisions.md 15 "Languages"). */
function said(error: unknown): string {
  return error instanceof ServiceRefused ? errorText(doorLanguage(), error.code, error.message) : String(error);
}

async function useKey(key: string): Promise<void> {
  const t = doorText();
  $("setup-message").textContent = t.checkingKey;
  try {
    door = await Door.start(store, key);
  } catch (error) {
    $("setup-message").textContent = error instanceof KeyRefused ? t.keyUnknown : error instanceof Unreachable ? t.setupUnreachable : said(error);
    return;
  }
  $("setup-message").textContent = "";
  showDoor();
  await syncNow();
}

function showSetup(): void {
  $("door").hidden = true;
  $("setup").hidden = false;
}

function showDoor(): void {
  if (!door) return;
  const { config } = door.settings;
  $("setup").hidden = true;
  $("door").hidden = false;
  $("event-name").textContent = config.event_name;
  $("key-label").textContent = `${config.location || doorText().title} · ${levelName(config.level)}`;
  void refresh();
}

function levelName(level: number): string {
  const names = doorText().levels;
  const byLevel: Record<number, string> = { 0: names.entrance, 1: names.checkpoint, 6: names.reset, 7: names.leave, 8: names.reenter, 9: names.exit };
  return byLevel[level] ?? format(names.other, { level });
}

function show(answer: ScanShown | { kind: "working" | "idle"; title: string }): void {
  const box = $("answer");
  box.className = `answer ${answer.kind}`;
  $("answer-title").textContent = answer.title;
  $("answer-name").textContent = "name" in answer ? answer.name : "";
  $("answer-type").textContent = "type" in answer ? answer.type : "";
  $("answer-detail").textContent =
    "detail" in answer ? [answer.detail, answer.offline && answer.kind !== "admitted" ? doorText().decidedOffline : ""].filter(Boolean).join(" ") : "";
  box.dataset.offline = "offline" in answer && answer.offline ? "true" : "false";
  if (answer.kind !== "working") box.dataset.shown = String(++shown);
}

/** One code read by the camera, a photo or typed. Scans go one after another, in the order they were read. */
function scan(code: string): Promise<void> {
  busy = busy.then(async () => {
    if (!door) {
      const key = keyFrom(code);
      if (key) await useKey(key);
      return;
    }
    const t = doorText();
    show({ kind: "working", title: t.checking });
    try {
      show(await door.scan(code.trim()));
    } catch (error) {
      const keyGone = error instanceof KeyRefused;
      show({ kind: "refused", title: keyGone ? t.keyRefused : t.refused, name: "", type: "", detail: keyGone ? t.keyNoLongerKnown : said(error), offline: false });
    }
    await refresh();
  });
  return busy;
}

/** The queued scans first (what the service must learn), then the list; either may fail alone. */
async function syncNow(): Promise<void> {
  if (!door) return;
  for (const work of [() => door?.replay(), () => door?.sync()]) {
    try {
      await work();
      keyRefused = false;
    } catch (error) {
      if (error instanceof KeyRefused) keyRefused = true;
      else if (!(error instanceof Unreachable)) console.warn("sync", error);
    }
  }
  await refresh();
}

/**
 * The browser says the network is back, which may be a moment early (or wrong, behind a captive portal): the queue
 * is tried at once and again after 1, 2, 4 and 8 s while scans wait, before the every-15-s replay takes over.
 */
async function backOnline(): Promise<void> {
  for (const wait of [0, 1000, 2000, 4000, 8000]) {
    await new Promise((r) => setTimeout(r, wait));
    await syncNow();
    if (!door || (await door.counters()).queued === 0) return;
  }
}

async function refresh(): Promise<void> {
  if (!door) return;
  const c = await door.counters();
  $("count-scanned").textContent = String(c.scanned);
  $("count-admitted").textContent = String(c.admitted);
  $("count-refused").textContent = String(c.refused);
  $("count-queued").textContent = String(c.queued);
  const t = doorText();
  const { lastSync, syncToken } = door.settings;
  $("last-sync").textContent = lastSync ? new Date(lastSync).toLocaleTimeString(doorLanguage()) : t.never;
  $("list-size").textContent = format(syncToken === null ? t.listIncomplete : t.listed, { count: c.listed });
  const list = $("conflict-list");
  list.replaceChildren(
    ...c.conflicts.map((s) => {
      const li = document.createElement("li");
      const { date, location } = s.answer ?? {};
      const where = date ? ` (${location ? format(t.whenAt, { when: date, where: location }) : date})` : "";
      li.textContent = `${s.name || s.ticketId}, ${s.type}: ${scanErrorText(s.answer?.error ?? "")}${where}`;
      return li;
    }),
  );
  $("conflicts").hidden = c.conflicts.length === 0;
  const network = $("network");
  network.textContent = keyRefused ? t.keyRefused : navigator.onLine ? t.online : t.offline;
  network.className = `badge ${keyRefused ? "refused" : navigator.onLine ? "online" : "offline"}`;
}

async function toggleCamera(): Promise<void> {
  const button = $<HTMLButtonElement>("camera-toggle");
  if (stopCamera) {
    stopCamera();
    stopCamera = null;
    button.textContent = doorText().startCamera;
    return;
  }
  try {
    stopCamera = await startCamera($<HTMLVideoElement>("video"), scan);
    button.textContent = doorText().stopCamera;
  } catch (error) {
    show({ kind: "refused", title: doorText().noCamera, name: "", type: "", detail: String(error), offline: false });
  }
}

async function main(): Promise<void> {
  applyDoorLanguage();
  fillLanguageSelect($<HTMLSelectElement>("language-select"), () => void refresh());
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("sw.js").catch((error) => console.warn("service worker", error));
  store = await DoorStore.open();
  const fromLink = keyFrom(location.hash);
  // The key leaves the address bar (and the history) at once: it is a secret.
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  const kept = await store.settings();
  if (fromLink && fromLink !== kept?.key) await useKey(fromLink);
  else if (kept) {
    door = new Door(store, kept);
    showDoor();
    void syncNow();
  }
  if (!door) showSetup();

  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = keyFrom($<HTMLInputElement>("key-input").value);
    if (key) void useKey(key);
    else $("setup-message").textContent = doorText().keyMalformed;
  });
  $("key-camera").addEventListener("click", () => void readKeyWithCamera());
  $("key-photo-input").addEventListener("change", async (e) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    const key = file ? keyFrom((await readImage(file)) ?? "") : null;
    if (key) await useKey(key);
    else $("setup-message").textContent = doorText().noKeyInPhoto;
  });
  $("code-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $<HTMLInputElement>("code-input");
    const code = input.value.trim();
    input.value = "";
    if (code) void scan(code);
  });
  $("photo-input").addEventListener("change", async (e) => {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    const code = await readImage(file);
    if (code) await scan(code);
    else show({ kind: "refused", title: doorText().noQrFound, name: "", type: "", detail: doorText().noQrHint, offline: false });
  });
  $("camera-toggle").addEventListener("click", () => void toggleCamera());
  $("sync-now").addEventListener("click", () => void syncNow());
  $("change-key").addEventListener("click", async () => {
    const queued = door ? (await door.counters()).queued : 0;
    if (queued > 0 && !confirm(format(doorText().forgetQueued, { count: queued }))) return;
    stopCamera?.();
    stopCamera = null;
    await store.clear();
    door = null;
    showSetup();
  });
  addEventListener("online", () => void backOnline());
  addEventListener("offline", () => void refresh());
  setInterval(() => void syncNow(), SYNC_EVERY_MS);
  setInterval(() => void door?.replay().then(refresh, () => undefined), REPLAY_EVERY_MS);
}

/** The scan key's QR code read with the camera of the set-up screen; the camera stops at the first key. */
async function readKeyWithCamera(): Promise<void> {
  const video = $<HTMLVideoElement>("key-video");
  video.hidden = false;
  let stop: (() => void) | null = null;
  try {
    stop = await startCamera(video, async (code) => {
      const key = keyFrom(code);
      if (!key) return;
      stop?.();
      video.hidden = true;
      await useKey(key);
    });
  } catch (error) {
    video.hidden = true;
    $("setup-message").textContent = format(doorText().noCameraDetail, { error: String(error) });
  }
}

void main();
