import { useEffect, useState } from "hono/jsx/dom";

/**
 * The console's one polite live region: what a change did ("Saved.", "Deleted.") is read out by screen readers and
 * shown for a few seconds, wherever the focus is.
 */
let show: (text: string) => void = () => {};

export function announce(text: string): void {
  show(text);
}

export function StatusRegion() {
  const [text, setText] = useState("");
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    show = (next) => {
      setText("");
      // A fresh text in a fresh task, so the same words twice are read twice.
      setTimeout(() => setText(next), 50);
      clearTimeout(timer);
      timer = setTimeout(() => setText(""), 6000);
    };
    // What a change did belongs to its screen: another screen starts without it.
    const leave = () => setText("");
    addEventListener("hashchange", leave);
    return () => {
      show = () => {};
      removeEventListener("hashchange", leave);
    };
  }, []);
  return (
    <p class="status" role="status" aria-live="polite">
      {text}
    </p>
  );
}
