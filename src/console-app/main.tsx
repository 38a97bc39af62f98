import { render } from "hono/jsx/dom";
import { App } from "./app";

// The organiser console (decisions.md 15 "The organiser console"; docs/console.md).
const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
