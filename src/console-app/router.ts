import { useEffect, useState } from "hono/jsx/dom";
import type { Child } from "hono/jsx/dom";

/**
 * The console's screens live in the URL's fragment (`#/events/12/types`), so the static assets serve one page for
 * every screen, a reload keeps the screen, and the browser's back button works. A screen's address is its pattern
 * with `:name` parts (`/events/:id`), which the screen receives as params.
 */
export interface Route {
  pattern: string;
  /** Administrators only (users and their application passwords): an organiser's menu omits it. */
  adminOnly?: boolean;
  screen: (params: Readonly<Record<string, string>>) => Child;
}

function currentPath(): string {
  const hash = location.hash.replace(/^#/, "");
  return hash.startsWith("/") ? hash : "/";
}

/** The path of the fragment, re-rendered on every change of it. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const changed = () => setPath(currentPath());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return path;
}

/**
 * The route whose pattern matches `path`, with its params (decoded), or undefined. Where several match, the one with
 * the most literal parts wins (`/events/:id/keys-sheet` over `/events/:id/:tab`), whatever the order of the list.
 */
export function matchRoute(routes: readonly Route[], path: string): { route: Route; params: Record<string, string> } | undefined {
  let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
  for (const route of routes) {
    const found = matchOne(route, path);
    const literals = route.pattern.split("/").filter((p) => p !== "" && !p.startsWith(":")).length;
    if (found && (best === undefined || literals > best.literals)) best = { ...found, literals };
  }
  return best && { route: best.route, params: best.params };
}

function matchOne(route: Route, path: string): { route: Route; params: Record<string, string> } | undefined {
  const [pathname = "/"] = path.split("?");
  const parts = pathname.split("/").filter(Boolean);
  const pattern = route.pattern.split("/").filter(Boolean);
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  const matches = pattern.every((p, i) => {
    const part = parts[i] ?? "";
    if (p.startsWith(":")) {
      params[p.slice(1)] = decodeURIComponent(part);
      return part !== "";
    }
    return p === part;
  });
  return matches ? { route, params } : undefined;
}

/** The query of the fragment (`#/orders?search=ada`): screens keep their filters there, so a reload keeps them. */
export function fragmentQuery(): URLSearchParams {
  return new URLSearchParams(currentPath().split("?")[1] ?? "");
}

/** A link target inside the console: `href("/events", 12)` is `#/events/12`. */
export function href(...parts: (string | number)[]): string {
  return `#${parts.map((p, i) => (i === 0 ? String(p) : encodeURIComponent(String(p)))).join("/")}`;
}

export function navigate(target: string): void {
  location.hash = target.replace(/^#/, "");
}
