/**
 * The console's session in this tab (decisions.md 15 "The organiser console"). The session itself is the HttpOnly
 * cookie the service set at sign-in, which scripts cannot read; what the tab keeps is the CSRF token every `/admin`
 * request must carry and who signed in. They live in sessionStorage: a reload keeps them, another tab or a closed
 * browser signs in again (the service keeps only the token's hash, so it cannot hand the token out a second time).
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
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Session | null;
    return value && typeof value.csrf === "string" && typeof value.user?.id === "number" ? value : null;
  } catch {
    return null;
  }
}

export function storeSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

export const isAdministrator = (user: ConsoleUser) => user.role === "administrator";
