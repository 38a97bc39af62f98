/**
 * The outbound rule (decisions.md sections 12 and 14): calls leave only for `https` URLs, never for loopback,
 * private, shared or reserved address literals, nor for names that resolve to this machine, the local network or a
 * cloud's metadata service. `allowHttp` (ALLOW_HTTP_OUTBOUND, local development and tests only) also admits `http`
 * and exactly the loopback hosts below; everything else stays refused.
 *
 * Hosts are compared as URL parsing normalises them: lower case, IPv4 in any notation as dotted decimal, IPv6
 * compressed; a name's trailing dot is kept. Refused too (decisions.md 15): 192.0.0.0/24 and Teredo (2001::/32);
 * names are resolved where the service calls them (lib/outbound-dns.ts).
 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Special-use names (RFC 6761, 6762, 8375) and the suffix cloud metadata services answer under. */
const LOCAL_NAME_SUFFIXES = ["localhost", "local", "internal", "home.arpa"];

function isLocalName(host: string): boolean {
  // A trailing dot makes the name absolute: `localhost.` is localhost, and no suffix comparison would see it.
  if (host.endsWith(".")) return true;
  return LOCAL_NAME_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
}

function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function isPrivateOrLocalIpv4([a, b, c]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    // IETF protocol assignments (decisions.md 15): DS-Lite's 192.0.0.8, NAT64 discovery's 192.0.0.170, ...
    (a === 192 && b === 0 && c === 0) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a! >= 224
  );
}

/** The eight 16-bit groups of a bracketed IPv6 host as URL parsing writes it (hexadecimal, `::` at most once). */
function ipv6Groups(host: string): number[] {
  const [head = "", tail] = host.slice(1, -1).split("::");
  const groups = (part: string) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function isPrivateOrLocalIpv6(host: string): boolean {
  const [first = 0, second = 0, third = 0] = ipv6Groups(host);
  return (
    // Everything under 0::/16 is special (unspecified, loopback, IPv4-compatible and -mapped): refused, not decoded.
    first === 0 ||
    // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) reaches IPv4 through a gateway, whichever address.
    (first === 0x64 && second === 0xff9b) ||
    // 6to4 carries an IPv4 address in its second and third groups.
    (first === 0x2002 && isPrivateOrLocalIpv4([second >> 8, second & 0xff, third >> 8, third & 0xff])) ||
    // Teredo (2001::/32, decisions.md 15) tunnels to an IPv4 server and an obfuscated client address: any of them.
    (first === 0x2001 && second === 0) ||
    (first & 0xfe00) === 0xfc00 || // unique local
    (first & 0xffc0) === 0xfe80 || // link-local
    (first & 0xffc0) === 0xfec0 || // site-local (deprecated, still routed inside some networks)
    (first & 0xff00) === 0xff00 // multicast
  );
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
  if (isLocalName(parsed.hostname)) return "must not name a local or internal host";
  const v4 = ipv4(parsed.hostname);
  if (v4 && isPrivateOrLocalIpv4(v4)) return "must not point at a private or local address";
  if (parsed.hostname.startsWith("[") && isPrivateOrLocalIpv6(parsed.hostname)) return "must not point at a private or local address";
  return null;
}
