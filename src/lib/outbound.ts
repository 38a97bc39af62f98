import type { RecordedExchange } from "../db/schema";
import { resolvedHostProblem } from "./outbound-dns";
import { outboundUrlProblem } from "./outbound-url";

/** How long a name's lookup may take before the call is refused (and retried later, like any failed call). */
const RESOLVE_TIMEOUT_MS = 2000;

/** Bodies kept in a recorded exchange are cut here: enough to diagnose, never a stored copy of someone's site. */
const KEPT_BODY = 4096;

export interface OutboundOptions {
  allowHttp: boolean;
  timeoutMs: number;
  /**
   * A DNS-over-HTTPS resolver (OUTBOUND_DNS_URL) through which a name is resolved before the call, refused when it
   * resolves to a refused address (decisions.md 15); none: names are judged by their spelling only.
   */
  resolverUrl?: string | null;
  /**
   * How much of the answer's body is kept (4096 characters unless set): a caller that reads the answer as a whole
   * (a payment provider's JSON resource) keeps more than a recorded exchange needs.
   */
  answerChars?: number;
}

/**
 * Address literals are judged as written (URL parsing wrote any IPv4 notation as dotted decimal); a name is looked
 * up, except `localhost`, which only local work may call (ALLOW_HTTP_OUTBOUND) and the literal rule already judged.
 */
function isName(hostname: string): boolean {
  return !(hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname) || hostname === "localhost");
}

function headersOf(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * One outbound HTTP call under the outbound rule (decisions.md 12), with a timeout. It never throws: a refused
 * URL, a network error or a timeout is reported in `error`, so callers record and retry instead of crashing.
 */
export async function exchange(
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
  options: OutboundOptions,
): Promise<RecordedExchange> {
  const request = { method: init.method, url, headers: init.headers, body: init.body.slice(0, KEPT_BODY) };
  let problem = outboundUrlProblem(url, options.allowHttp);
  if (!problem && options.resolverUrl) {
    const { hostname } = new URL(url);
    if (isName(hostname)) problem = await resolvedHostProblem(hostname, options.resolverUrl, Math.min(options.timeoutMs, RESOLVE_TIMEOUT_MS));
  }
  if (problem) return { request, response: null, durationMs: 0, error: `URL ${problem}` };
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.method === "GET" ? undefined : init.body,
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const body = await res.text();
    return {
      request,
      response: { code: res.status, message: res.statusText, headers: headersOf(res.headers), body: body.slice(0, options.answerChars ?? KEPT_BODY) },
      durationMs: Date.now() - started,
      error: null,
    };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    return { request, response: null, durationMs: Date.now() - started, error: timedOut ? `no answer within ${options.timeoutMs} ms` : String(err) };
  }
}

export function succeeded(x: RecordedExchange): boolean {
  return x.response !== null && x.response.code >= 200 && x.response.code < 300;
}
