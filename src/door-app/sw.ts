/**
 * The door app's service worker: keeps the app's own files (the build lists them in APP_FILES with a version from
 * their contents), so the app opens with no network once it was loaded. Requests to the service (scans, the list)
 * are never answered from here: the app itself decides what to do offline.
 */

// The build defines these (scripts/build-door-app.mjs).
declare const APP_FILES: string[];
declare const APP_VERSION: string;

// The few service-worker types used, declared here: the DOM library the app is checked with has none of them.
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Promise<Response>): void;
}
interface WorkerScope {
  location: Location;
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: "install" | "activate", listener: (e: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (e: FetchEvent) => void): void;
}

const worker = self as unknown as WorkerScope;
const CACHE = `door-${APP_VERSION}`;
const scope = new URL(worker.registration.scope);
const appUrls = new Set(APP_FILES.map((f) => new URL(f, scope).href));

worker.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll([...appUrls]))
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("door-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  url.hash = "";
  url.search = "";
  // The page itself at any address in the app's scope is the app's index.html.
  const appFile = request.mode === "navigate" && url.href.startsWith(scope.href) ? new URL("./", scope).href : url.href;
  if (!appUrls.has(appFile)) return;
  event.respondWith(caches.match(appFile, { cacheName: CACHE }).then((cached) => cached ?? fetch(request)));
});
