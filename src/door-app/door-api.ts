/**
 * The service as the door phone speaks to it: the scan paths with the scan key in `X-EVT-API-KEY` (docs/scanning.md).
 * Every call has a deadline: at a door a slow answer is as bad as none, and the app decides offline instead.
 */
import type { KeyConfig, ListEntry, ListPage, PublicKey, ScanAnswer } from "./door-types";

/** The service could not be reached in time: decide offline. */
export class Unreachable extends Error {}

/** The service refused the key (deleted or mistyped): nothing offline can fix that. */
export class KeyRefused extends Error {}

/** Any other refusal, with the service's error code (decisions.md 3), which the screen shows in its language. */
export class ServiceRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A scan waits this long for its answer before the phone decides it offline. */
const SCAN_DEADLINE_MS = 2500;
const SYNC_DEADLINE_MS = 15_000;
// The app lives at <base>/door/ and the scan paths at <base>/ (`/ticketing/v1/` in production).
const API = new URL(location.pathname.replace(/door(\/.*)?$/, ""), location.origin).href;

async function call(key: string, path: string, init: RequestInit, deadlineMs: number): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(new URL(path, API), {
      ...init,
      cache: "no-store",
      headers: { ...(init.headers as Record<string, string> | undefined), "X-EVT-API-KEY": key },
      signal: AbortSignal.timeout(deadlineMs),
    });
  } catch (error) {
    throw new Unreachable(error instanceof Error ? error.message : String(error));
  }
  if (res.status === 401) throw new KeyRefused("The service does not know this scan key.");
  if (res.status >= 500 || res.status === 429) throw new Unreachable(`the service answered ${res.status}`);
  return res;
}

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
    const message = typeof body?.message === "string" ? body.message : `${what}: the service answered ${res.status}`;
    throw new ServiceRefused(typeof body?.code === "string" ? body.code : "", message);
  }
  return (await res.json()) as T;
}

export async function fetchKeyConfig(key: string): Promise<KeyConfig> {
  return json(await call(key, "scan-keys/self", {}, SYNC_DEADLINE_MS), "the scan key");
}

export async function fetchPublicKeys(key: string): Promise<PublicKey[]> {
  const body = await json<{ keys: PublicKey[] }>(await call(key, "scan-keys/public-keys", {}, SYNC_DEADLINE_MS), "the public keys");
  return body.keys;
}

/**
 * One page of the offline list: `url` is a first page (`scans/tickets?...`) or a `next` link. With `etag`, an unchanged
 * list answers `null` (304, nothing to read).
 */
export async function fetchListPage(key: string, url: string, etag: string | null = null): Promise<ListPage | null> {
  const res = await call(key, url, etag ? { headers: { "If-None-Match": etag } } : {}, SYNC_DEADLINE_MS);
  if (res.status === 304) return null;
  const body = await json<{ tickets: ListEntry[]; revoked?: { ticket_id: string }[]; sync_token: string; _links?: { next?: { href: string }[] } }>(
    res,
    "the ticket list",
  );
  return { tickets: body.tickets, revoked: body.revoked, sync_token: body.sync_token, next: body._links?.next?.[0]?.href ?? null, etag: res.headers.get("ETag") };
}

export async function postScan(key: string, code: string, deadlineMs = SCAN_DEADLINE_MS): Promise<ScanAnswer> {
  const res = await call(key, "scans", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ id: code }) }, deadlineMs);
  return json(res, "the scan");
}
