// /ticketing/v1/shop/embed.js (decisions.md 15 "Embedding"; docs/shop.md): turns each `<div data-ticketing-event="<id>">`
// of the organiser's page into the shop of that event in an iframe that sizes itself to its content. Built as an IIFE
// (scripts/build-door-app.mjs) and kept tiny: it runs on somebody else's page.
//
//   <script src="<base>/ticketing/v1/shop/embed.js" async></script>
//   <div data-ticketing-event="42"></div>            (optional: data-lang="nl", data-title="Tickets for ...")
import { LANGUAGES } from "../domain/messages";

type Marked = Window & { ticketingEmbed?: boolean };

// Included twice, it runs once: one listener, one frame per div.
if (!(window as Marked).ticketingEmbed) {
  (window as Marked).ticketingEmbed = true;
  // The service is where this script came from (the <script> running now; else the first that loads embed.js).
  const script = (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>('script[src*="/ticketing/v1/shop/embed.js"]');
  const shop = new URL("./", script?.src ?? location.href);
  const frames: HTMLIFrameElement[] = [];

  const mount = (div: HTMLElement) => {
    const id = div.dataset.ticketingEvent ?? "";
    if (div.dataset.ticketingMounted || !/^\d{1,15}$/.test(id)) return;
    div.dataset.ticketingMounted = "true";
    const url = new URL(id, shop);
    const lang = (div.dataset.lang || document.documentElement.lang).slice(0, 2).toLowerCase();
    if ((LANGUAGES as readonly string[]).includes(lang)) url.searchParams.set("lang", lang);
    const frame = document.createElement("iframe");
    frame.src = url.href;
    // The frame's accessible name: the organiser's own words when given.
    frame.title = div.dataset.title || "Tickets";
    // Payment Request and the like, for providers that use them inside the frame.
    frame.allow = "payment";
    frame.style.cssText = "width:100%;height:40rem;border:0;display:block";
    frames.push(frame);
    // Whatever the div held (e.g. a plain link to the shop for pages without script) gives way to the frame.
    div.replaceChildren(frame);
  };
  const scan = () => {
    for (const div of document.querySelectorAll<HTMLElement>("div[data-ticketing-event]")) mount(div);
  };

  // Only a height from one of our frames' own windows, sent from the service's origin, sizes that frame.
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.origin !== shop.origin || data?.type !== "ticketing:height" || typeof data.height !== "number") return;
    const frame = frames.find((f) => f.contentWindow === event.source);
    if (frame) frame.style.height = `${Math.min(Math.max(Math.ceil(data.height), 100), 20000)}px`;
  });
  scan();
  // Divs added later (a page that renders after load) are picked up too.
  new MutationObserver(scan).observe(document.documentElement, { childList: true, subtree: true });
}
