import createClient from "openapi-fetch";
import type { components, paths } from "./openapi";
import { storedSession } from "./session";

/**
 * The admin API as the console speaks it: a client generated from the service's own interface (docs/openapi.json,
 * typed by openapi-typescript into ./openapi.d.ts), so a renamed field fails the console's type check. The session
 * cookie goes with every same-origin request by itself; the CSRF header the console adds here (decisions.md 15).
 * Nothing here bypasses the API: every rule, limit and authority check is the service's.
 */
export type Schemas = components["schemas"];
export type ApiErrorBody = Schemas["Error"];

/** The service lives at the console's parent path: `<base>/console/` talks to `<base>/admin/...`. */
const API_ORIGIN = location.origin;

const CSRF_HEADER = "X-Ticketing-CSRF";

/** Told when the service says the session is over (`401`): the app goes back to the sign-in form. */
let onSignedOut: () => void = () => {};
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export const api = createClient<paths>({ baseUrl: API_ORIGIN, credentials: "same-origin" });
api.use({
  onRequest({ request }) {
    const session = storedSession();
    if (session) request.headers.set(CSRF_HEADER, session.csrf);
    return request;
  },
  onResponse({ response, request }) {
    if (response.status === 401 && new URL(request.url).pathname.includes("/admin/")) onSignedOut();
    return response;
  },
});

/** A refusal of the service, in its documented shape (decisions.md 3): the code, its text, and per-field texts. */
export class ApiFailure extends Error {
  readonly code: string;
  readonly params: Readonly<Record<string, string>>;
  constructor(
    readonly status: number,
    body: Partial<ApiErrorBody> | undefined,
  ) {
    super(typeof body?.message === "string" ? body.message : `HTTP ${status}`);
    this.code = typeof body?.code === "string" ? body.code : "";
    this.params = body?.data?.params ?? {};
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ApiFailure for any refusal: `await ok(api.GET(...))`. */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiFailure(response.status, error as Partial<ApiErrorBody> | undefined);
  return data as T;
}

/** A collection page with its paging headers (X-WP-Total, X-WP-TotalPages). */
export interface Page<T> {
  items: T[];
  total: number;
  pages: number;
}

export async function okPage<T>(call: Promise<Answer<T[]>>): Promise<Page<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiFailure(response.status, error as Partial<ApiErrorBody> | undefined);
  return {
    items: data ?? [],
    total: Number(response.headers.get("X-WP-Total") ?? data?.length ?? 0),
    pages: Number(response.headers.get("X-WP-TotalPages") ?? 1),
  };
}

/**
 * Fetches a file the API serves (a CSV export, a PDF) with the session's header and hands it to the browser as a
 * download: a plain link would carry the cookie without the CSRF header, which the service refuses (decisions.md 15).
 */
export async function download(path: string, filename: string): Promise<void> {
  const blob = await fetchFile(path);
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A file of the API as a Blob, with the session's header. */
export async function fetchFile(path: string): Promise<Blob> {
  const session = storedSession();
  const res = await fetch(new URL(path, API_ORIGIN), { headers: session ? { [CSRF_HEADER]: session.csrf } : {}, credentials: "same-origin" });
  if (!res.ok) {
    if (res.status === 401) onSignedOut();
    throw new ApiFailure(res.status, (await res.json().catch(() => undefined)) as Partial<ApiErrorBody> | undefined);
  }
  return res.blob();
}

/** Signs in: the cookie is set by the answer; the CSRF token and the user are what the tab keeps. */
export async function signIn(username: string, password: string) {
  return ok(api.POST("/ticketing/v1/console/session", { body: { username, password } }));
}

export async function signOut(): Promise<void> {
  await api.DELETE("/ticketing/v1/console/session");
}
