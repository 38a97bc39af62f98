import { outboundUrlProblem } from "./outbound-url";

/**
 * Names that resolve to a refused address (decisions.md 15), where the platform can resolve names. Workers have no
 * DNS API; a resolver speaking DNS over HTTPS in its JSON form (`GET <url>?name=<host>&type=A|AAAA` with
 * `Accept: application/dns-json`, as Cloudflare's and Google's public resolvers answer) is asked instead, when the
 * deployment names one (OUTBOUND_DNS_URL). Every A and AAAA address of the name, through any CNAME, must pass the
 * same rule as a literal address (outbound-url.ts). It fails closed: a resolver that errs, times out or answers
 * nonsense refuses the call, which the caller records and retries like any failed call.
 *
 * What it cannot close: the runtime resolves the name again when it connects, so a name whose answers change
 * between the two lookups (DNS rebinding) may still get through; answers are therefore kept no longer than their
 * TTL, and a Worker's outbound connections leave from Cloudflare's network, not from a host with a private network.
 */

const A = 1;
const AAAA = 28;
/** Answers are kept for their TTL, at most this long, and only this many names per isolate. */
const MAX_TTL_S = 300;
const MAX_CACHED = 1000;

interface DnsJson {
  Status?: unknown;
  Answer?: { type?: unknown; data?: unknown; TTL?: unknown }[];
}

class Unresolved extends Error {}

const cache = new Map<string, { problem: string | null; untilMs: number }>();

async function query(resolverUrl: string, host: string, type: "A" | "AAAA", timeoutMs: number): Promise<DnsJson> {
  const url = new URL(resolverUrl);
  url.searchParams.set("name", host);
  url.searchParams.set("type", type);
  let answer: unknown;
  try {
    const res = await fetch(url, { headers: { Accept: "application/dns-json" }, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Unresolved(`the resolver answered HTTP ${res.status}`);
    answer = await res.json();
  } catch (err) {
    if (err instanceof Unresolved) throw err;
    throw new Unresolved(err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError") ? `no answer within ${timeoutMs} ms` : "no readable answer");
  }
  if (typeof answer !== "object" || answer === null || typeof (answer as DnsJson).Status !== "number") throw new Unresolved("no readable answer");
  return answer as DnsJson;
}

/** The literal form URL parsing reads of one resolved address. */
function asUrl(type: number, address: string): string {
  return type === AAAA ? `https://[${address}]/` : `https://${address}/`;
}

/**
 * Why `host` may not be called, judged by the addresses it resolves to through `resolverUrl`, or null when every
 * one of them may. `host` is a name (not an address literal) as URL parsing wrote it.
 */
export async function resolvedHostProblem(host: string, resolverUrl: string, timeoutMs: number): Promise<string | null> {
  const key = `${resolverUrl} ${host}`;
  const now = Date.now();
  const kept = cache.get(key);
  if (kept && kept.untilMs > now) return kept.problem;
  let answers: DnsJson[];
  try {
    answers = await Promise.all([query(resolverUrl, host, "A", timeoutMs), query(resolverUrl, host, "AAAA", timeoutMs)]);
  } catch (err) {
    return `could not be resolved (${err instanceof Error ? err.message : "no answer"})`;
  }
  // NOERROR (0) and NXDOMAIN (3) are answers; anything else (SERVFAIL, REFUSED, ...) is the resolver failing.
  if (answers.some((a) => a.Status !== 0 && a.Status !== 3)) return "could not be resolved (the resolver failed)";
  let problem: string | null = null;
  let addresses = 0;
  let ttl = MAX_TTL_S;
  for (const record of answers.flatMap((a) => a.Answer ?? [])) {
    if ((record.type !== A && record.type !== AAAA) || typeof record.data !== "string") continue;
    addresses += 1;
    if (typeof record.TTL === "number") ttl = Math.min(ttl, Math.max(0, record.TTL));
    if (problem === null && outboundUrlProblem(asUrl(record.type, record.data), false) !== null) {
      problem = `must not resolve to a private or local address (${record.data})`;
    }
  }
  if (addresses === 0) problem = "does not resolve to any address";
  if (ttl > 0) {
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, { problem, untilMs: now + ttl * 1000 });
  }
  return problem;
}
