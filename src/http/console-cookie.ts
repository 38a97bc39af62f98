/**
 * The console's session cookie (decisions.md 15 "The organiser console"): `__Host-ticketing-session`, which a
 * browser keeps only when it is `Secure`, `Path=/` and without `Domain`, so no sibling host can plant or overwrite it.
 * A browser refuses `Secure` cookies from plain http, so on a developer's `http://127.0.0.1` or `http://localhost`
 * (any port) the cookie is `ticketing-session` without `Secure`; each origin reads only its own name.
 */

const SECURE_NAME = "__Host-ticketing-session";
const LOCAL_NAME = "ticketing-session";

function isLocalHttp(url: URL): boolean {
  return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost");
}

function cookieName(url: URL): string {
  return isLocalHttp(url) ? LOCAL_NAME : SECURE_NAME;
}

/** The session token the request's cookie carries for its origin, or undefined. */
export function sessionCookieOf(requestUrl: string, cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const name = cookieName(new URL(requestUrl));
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (value !== "") return value;
  }
  return undefined;
}

function attributes(url: URL): string {
  return `Path=/; HttpOnly; SameSite=Strict${isLocalHttp(url) ? "" : "; Secure"}`;
}

/** `Set-Cookie` for a new session: no `Max-Age`, so it ends with the browser; the server ends it after 12 idle hours. */
export function sessionCookie(requestUrl: string, token: string): string {
  const url = new URL(requestUrl);
  return `${cookieName(url)}=${token}; ${attributes(url)}`;
}

/** `Set-Cookie` that removes the session cookie (signing out). */
export function clearedSessionCookie(requestUrl: string): string {
  const url = new URL(requestUrl);
  return `${cookieName(url)}=; Max-Age=0; ${attributes(url)}`;
}
