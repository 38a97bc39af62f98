import type { Context } from "hono";
import { API_BASE } from "../config";

export interface Link {
  href: string;
  embeddable?: boolean;
}

export type Links = Record<string, Link[]>;

/**
 * What links are built from: the request (a Hono context is one), or, where there is no request (webhook payloads
 * built in a queue consumer), the service's address.
 */
export interface LinkBase {
  req: { url: string };
}

export function linkBaseOf(origin: string): LinkBase {
  return { req: { url: origin } };
}

/** Absolute address of an API path, built from the request's own origin. */
export function apiUrl(c: LinkBase, path: string): string {
  return `${originOf(c.req.url)}${API_BASE}${path}`;
}

/** The origin of an address; "" (relative links) where there is none, e.g. no PUBLIC_URL outside a request. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

export function selfAndCollection(c: LinkBase, self: string, collection: string): Links {
  return { self: [{ href: apiUrl(c, self) }], collection: [{ href: apiUrl(c, collection) }] };
}

export type EmbedRequest = "all" | ReadonlySet<string> | null;

/**
 * `_embed` as WordPress reads it: present and empty (or `1`, `true`) embeds every embeddable link; `_embed=a,b`
 * embeds those relations only.
 */
export function embedRequest(c: Context): EmbedRequest {
  const raw = c.req.query("_embed");
  if (raw === undefined) return null;
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0 || (names.length === 1 && (names[0] === "1" || names[0] === "true"))) return "all";
  return new Set(names);
}

export function wantsEmbed(request: EmbedRequest, rel: string): boolean {
  return request === "all" || (request?.has(rel) ?? false);
}

/** A resource without its `_links`, as delete answers and webhook payloads show it. */
export function withoutLinks<T extends { _links?: unknown }>(resource: T): Omit<T, "_links"> {
  const { _links: _, ...rest } = resource;
  return rest;
}
