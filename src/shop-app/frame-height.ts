/**
 * A box-office page inside an organiser's iframe (embed.js, decisions.md 15 "Embedding") tells its parent how tall
 * it is, on load and whenever its height changes, so the frame shows the whole page without a scroll bar of its own.
 * The message holds only a height, so it goes to any parent ('*'): embed.js accepts it only from its own frame's
 * window and the service's origin.
 */
export function reportFrameHeight(): void {
  if (window.parent === window) return;
  let last = -1;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "ticketing:height", height }, "*");
  };
  // <html> is as tall as its content (no height set in shop.css), so it resizes whenever the content does.
  new ResizeObserver(send).observe(document.documentElement);
  window.addEventListener("load", send);
  send();
}
