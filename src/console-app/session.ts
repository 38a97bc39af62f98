/**
 * The console's session in this browser (decisions.md 15 "The organiser console"). The session itself is the
 * HttpOnly cookie the service set at sign-in, which scripts cannot read; what the console keeps is the CSRF token
 * every `/admin` request must carry and who signed in. They live in localStorage beside the cookie, which every tab
 * of the browser shares: a link opened in a new tab works, and signing in again in one tab (a new cookie) gives
 * every tab the new token rather than leaving the others with one the new cookie refuses. The service keeps only the
 * token's hash, so it cannot hand the token out a second time; when the cookie is gone (signed out, expired, the
 * browser closed), the first request answers 401 and the console asks to sign in.
 */
export interface ConsoleUser {
  id: number;
  username: string;
  name: string;
  role: string;
}

export interface Session {
  csrf: string;
  user: ConsoleUser;
}

const KEY = "ticketing-console-session";

export function storedSession(): Session | null {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "null") as Session | null;
    return value && typeof value.csrf === "string" && typeof value.user?.id === "number" ? value : null;
  } catch {
    return null;
  }
}

export function storeSession(session: Session | null): void {
  if (session) localStorage.setItem(KEY, JSON.stringify(session));
  else localStorage.removeItem(KEY);
}

export const isAdministrator = (user: ConsoleUser) => user.role === "administrator";
