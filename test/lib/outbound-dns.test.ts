import { describe, expect, it } from "vitest";
import { exchange } from "../../src/lib/outbound";
import { resolvedHostProblem } from "../../src/lib/outbound-dns";
import { unique } from "../helpers/api";
import { programStub, receivedBy, stubUrl, type StubBehaviour } from "../helpers/stubs";

/**
 * Names that resolve to a refused address (decisions.md 15), where the platform can resolve names: Workers have no
 * DNS API, so the service asks a DNS-over-HTTPS resolver (OUTBOUND_DNS_URL, the JSON form of RFC 8484 resolvers,
 * `application/dns-json`) when one is configured. The resolver here is the stub server answering as such a resolver
 * does; each test has its own stub name and host name (answers are kept for their TTL).
 */

type Record = { type: number; data: string; TTL?: number };
const A = 1;
const AAAA = 28;
const CNAME = 5;

/** A resolver's answer in the JSON form (Cloudflare's and Google's `dns-query?name=...&type=...`). */
function dnsJson(answers: Record[], status = 0): string {
  return JSON.stringify({
    Status: status,
    TC: false,
    RD: true,
    RA: true,
    AD: false,
    CD: false,
    Question: [{ name: "example.com", type: A }],
    Answer: answers.map((a) => ({ name: "example.com", TTL: 60, ...a })),
  });
}

async function resolver(behaviour: StubBehaviour): Promise<{ name: string; url: string }> {
  const name = unique("doh-").toLowerCase();
  await programStub(name, behaviour);
  return { name, url: stubUrl(`/${name}/dns-query`) };
}

const host = () => `${unique("h").toLowerCase()}.example.com`;

describe("names resolved through DNS over HTTPS", () => {
  it.each<[string, Record[]]>([
    ["loopback", [{ type: A, data: "127.0.0.1" }]],
    ["a private address", [{ type: A, data: "10.1.2.3" }]],
    ["the metadata service", [{ type: A, data: "169.254.169.254" }]],
    ["192.0.0.170", [{ type: A, data: "192.0.0.170" }]],
    ["IPv6 loopback", [{ type: AAAA, data: "::1" }]],
    ["a unique local IPv6 address", [{ type: AAAA, data: "fd00::1" }]],
    ["a Teredo address", [{ type: AAAA, data: "2001:0:4136:e378:8000:63bf:3fff:fdd2" }]],
    ["an IPv4-mapped private address", [{ type: AAAA, data: "::ffff:192.168.0.1" }]],
    [
      "a private address at the end of a CNAME",
      [
        { type: CNAME, data: "inside.corp.example." },
        { type: A, data: "172.16.0.9" },
      ],
    ],
    [
      "one public and one private address",
      [
        { type: A, data: "93.184.216.34" },
        { type: A, data: "192.168.1.1" },
      ],
    ],
  ])("refuses a name that resolves to %s", async (_, answers) => {
    const doh = await resolver({ body: dnsJson(answers) });
    expect(await resolvedHostProblem(host(), doh.url, 2000)).toMatch(/^must not resolve to a private or local address/);
  });

  it("admits a name that resolves to public addresses only, asking A and AAAA in the JSON form", async () => {
    const doh = await resolver({
      body: dnsJson([
        { type: A, data: "93.184.216.34" },
        { type: AAAA, data: "2606:2800:220:1:248:1893:25c8:1946" },
      ]),
    });
    const name = host();
    expect(await resolvedHostProblem(name, doh.url, 2000)).toBeNull();
    const asked = await receivedBy(doh.name);
    expect(asked.map((r) => r.method)).toEqual(["GET", "GET"]);
    expect(asked.map((r) => new URL(r.path, "http://x").searchParams.get("type")).sort()).toEqual(["A", "AAAA"]);
    for (const r of asked) {
      expect(new URL(r.path, "http://x").searchParams.get("name")).toBe(name);
      expect(r.headers.accept).toBe("application/dns-json");
    }
    // Asked again within the answers' TTL, the resolver is not asked again.
    expect(await resolvedHostProblem(name, doh.url, 2000)).toBeNull();
    expect(await receivedBy(doh.name)).toHaveLength(2);
  });

  it("refuses a name that does not resolve (NXDOMAIN, or no address at all)", async () => {
    const nx = await resolver({ body: dnsJson([], 3) });
    expect(await resolvedHostProblem(host(), nx.url, 2000)).toMatch(/does not resolve/);
    const empty = await resolver({ body: dnsJson([{ type: CNAME, data: "nowhere.example." }]) });
    expect(await resolvedHostProblem(host(), empty.url, 2000)).toMatch(/does not resolve/);
  });

  it("fails closed: a resolver that errs, answers nonsense or is too slow refuses the call (and is asked again next time)", async () => {
    const failing = await resolver({ status: 503, body: "busy" });
    const name = host();
    expect(await resolvedHostProblem(name, failing.url, 2000)).toMatch(/could not be resolved/);
    expect(await resolvedHostProblem(name, failing.url, 2000)).toMatch(/could not be resolved/);
    expect(await receivedBy(failing.name)).toHaveLength(4);
    const nonsense = await resolver({ body: "<html>" });
    expect(await resolvedHostProblem(host(), nonsense.url, 2000)).toMatch(/could not be resolved/);
    const servfail = await resolver({ body: dnsJson([], 2) });
    expect(await resolvedHostProblem(host(), servfail.url, 2000)).toMatch(/could not be resolved/);
    const slow = await resolver({ delayMs: 1500, body: dnsJson([{ type: A, data: "93.184.216.34" }]) });
    const started = Date.now();
    expect(await resolvedHostProblem(host(), slow.url, 300)).toMatch(/could not be resolved/);
    expect(Date.now() - started).toBeLessThan(1400);
  });

  it("an outbound call to such a name sends nothing; literal addresses and the local loopback names are not looked up", async () => {
    const doh = await resolver({ body: dnsJson([{ type: A, data: "10.0.0.1" }]) });
    const name = host();
    const refused = await exchange(`https://${name}/hook`, { method: "POST", headers: {}, body: "{}" }, { allowHttp: false, timeoutMs: 2000, resolverUrl: doh.url });
    expect(refused.response).toBeNull();
    expect(refused.durationMs).toBe(0);
    expect(refused.error).toMatch(/^URL must not resolve to a private or local address/);

    const target = unique("doh-target-").toLowerCase();
    await programStub(target);
    const before = (await receivedBy(doh.name)).length;
    for (const url of [stubUrl(`/${target}/x`), stubUrl(`/${target}/y`).replace("127.0.0.1", "localhost")]) {
      const sent = await exchange(url, { method: "POST", headers: {}, body: "{}" }, { allowHttp: true, timeoutMs: 2000, resolverUrl: doh.url });
      expect(sent.response?.code, sent.error ?? "").toBe(200);
    }
    expect(await receivedBy(doh.name)).toHaveLength(before);
    expect(await receivedBy(target)).toHaveLength(2);
  });
});
