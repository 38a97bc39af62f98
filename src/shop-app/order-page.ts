// The order page's part of the shop script (decisions.md 15 "The box office"): while the server marks something
// pending (`<main id="main" data-refresh="<seconds>">`), look at the page again after that many seconds and put the
// new `<main>` in place of the old, without a reload and without a meta refresh. A change of the order's state is
// read out politely by screen readers. Without this script the page's own "refresh" link does the same by hand.

/** The order's state as the page words it: the texts of its `[data-order-state]` paragraphs. */
function stateText(main: Element): string {
  return Array.from(main.querySelectorAll("[data-order-state]"), (p) => p.textContent?.trim() ?? "").join(" ");
}

/** A polite live region outside `<main>` (whose content is replaced), visually hidden, for the state's changes. */
function liveRegion(): HTMLElement {
  const region = document.createElement("div");
  region.setAttribute("role", "status");
  region.setAttribute("aria-live", "polite");
  region.className = "visually-hidden";
  document.body.append(region);
  return region;
}

/** The pending delay `main` asks for, in milliseconds; null when nothing is pending. */
function delayOf(main: HTMLElement | null): number | null {
  const seconds = Number(main?.dataset.refresh);
  return main?.dataset.refresh && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

/** Starts the order page's self-refresh; stops once the page marks nothing pending or no longer finds the order. */
export function refreshOrderPage(): void {
  const announce = liveRegion();
  const schedule = () => {
    const delay = delayOf(document.getElementById("main"));
    if (delay !== null) setTimeout(look, delay);
  };
  const look = async () => {
    try {
      const res = await fetch(location.href, { headers: { Accept: "text/html" }, cache: "no-store" });
      // An order that is gone (404) is not looked at again; a busy or failing service is, on the same schedule.
      if (res.status === 404) return;
      if (res.ok) swapMain(new DOMParser().parseFromString(await res.text(), "text/html"), announce);
    } catch {
      // Offline for a moment: the next look may succeed.
    }
    schedule();
  };
  schedule();
}

/** Puts the fetched page's `<main>` content and refresh mark in place, announcing a changed state. */
function swapMain(fetched: Document, announce: HTMLElement): void {
  const current = document.getElementById("main");
  const next = fetched.getElementById("main");
  if (!current || !next) return;
  const before = stateText(current);
  current.replaceChildren(...Array.from(next.childNodes, (n) => document.importNode(n, true)));
  const refresh = next.getAttribute("data-refresh");
  if (refresh === null) current.removeAttribute("data-refresh");
  else current.setAttribute("data-refresh", refresh);
  const after = stateText(current);
  if (after !== before) announce.textContent = after;
}
