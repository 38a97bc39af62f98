/**
 * The outbound rule (decisions.md section 12): calls leave only for `https` URLs, never for loopback, private or
 * link-local address literals. `allowHttp` (ALLOW_HTTP_OUTBOUND, local development and tests only) also admits
 * `http` and the loopback hosts; private and link-local literals stay refused.
 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function isPrivateOrLocalIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    a! >= 224
  );
}

function isPrivateOrLocalIpv6(host: string): boolean {
  const h = host.slice(1, -1).toLowerCase();
  // Everything under :: is special (unspecified, loopback, IPv4-compatible and -mapped, refused rather than
  // decoded); 64:ff9b:: is NAT64, which reaches IPv4 through a gateway.
  if (h.startsWith("::") || h.startsWith("64:ff9b:")) return true;
  return /^f[cd]/.test(h) || /^fe[89ab]/.test(h); // unique local, link-local
}

/** Why `url` may not be called, or null when it may. */
export function outboundUrlProblem(url: string, allowHttp: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL";
  }
  if (parsed.username || parsed.password) return "must not contain credentials";
  const loopback = LOOPBACK_HOSTS.has(parsed.hostname);
  if (parsed.protocol !== "https:" && !(allowHttp && parsed.protocol === "http:")) return "must be an https URL";
  if (loopback) return allowHttp ? null : "must not point at this machine";
  const v4 = ipv4(parsed.hostname);
  if (v4 && isPrivateOrLocalIpv4(v4)) return "must not point at a private or local address";
  if (parsed.hostname.startsWith("[") && isPrivateOrLocalIpv6(parsed.hostname)) return "must not point at a private or local address";
  return null;
}
