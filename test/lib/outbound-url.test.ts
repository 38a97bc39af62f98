import { describe, expect, it } from "vitest";
import { outboundUrlProblem } from "../../src/lib/outbound-url";

/** The outbound rule of decisions.md 12 and 14, for URLs a user supplies (webhooks, the eligibility rest_url). */

describe("outboundUrlProblem", () => {
  it.each([
    "https://example.com/hook",
    "https://hooks.example.com:8443/x?y=1",
    "https://8.8.8.8/",
    "https://[2606:4700::1111]/",
    // Names that merely contain a refused word.
    "https://localhost.example.com/",
    "https://internal.example.com/",
    "https://example.local.example.com/",
    "https://mylocal/",
    // Just outside the refused ranges.
    "https://100.63.255.255/",
    "https://100.128.0.1/",
    "https://198.17.255.255/",
    "https://198.20.0.1/",
    "https://[fbff::1]/",
    // 6to4 of a public address.
    "https://[2002:808:808::1]/",
    // Just outside 192.0.0.0/24 and Teredo (2001::/32) (decisions.md 15).
    "https://191.255.255.255/",
    "https://192.0.1.1/",
    "https://[2001:1::1]/",
    "https://[2001:4860:4860::8888]/",
    "https://[2000:ffff::1]/",
  ])("admits %s", (url) => {
    expect(outboundUrlProblem(url, false)).toBeNull();
    expect(outboundUrlProblem(url, true)).toBeNull();
  });

  it.each([
    // Names that lead to this machine, the local network or a cloud's metadata service.
    "https://foo.localhost/",
    "https://a.b.localhost:8443/",
    "https://printer.local/",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://nas.home.arpa/",
    "https://home.arpa/",
    // A trailing dot is kept by URL parsing and would get past a comparison of names.
    "https://localhost./",
    "https://example.com./",
    // Private, shared and reserved IPv4.
    "https://10.0.0.1/",
    "https://172.16.0.1/",
    "https://192.168.1.1/",
    "https://169.254.169.254/",
    "https://169.254.169.254./",
    "https://0.0.0.0/",
    "https://224.0.0.1/",
    "https://100.64.0.1/",
    "https://100.127.255.255/",
    "https://198.18.0.1/",
    "https://198.19.255.255/",
    // Other spellings of an IPv4 address, which URL parsing normalises.
    "https://0xa9.0xfe.0xa9.0xfe/",
    "https://2852039166/",
    // IPv6: unique local, link-local, site-local, multicast, IPv4-mapped.
    "https://[fd00::1]/",
    "https://[fe80::1]/",
    "https://[febf::1]/",
    "https://[fec0::1]/",
    "https://[feff::1]/",
    "https://[ff02::1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::]/",
    // 6to4 of a refused IPv4 address: 169.254.169.254, 10.0.0.1, 127.0.0.1.
    "https://[2002:a9fe:a9fe::]/",
    "https://[2002:a00:1::1]/",
    "https://[2002:7f00:1::]/",
    // NAT64, of a refused address and of any other.
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://[64:ff9b::808:808]/",
    // 192.0.0.0/24, IETF protocol assignments (decisions.md 15), in every notation URL parsing normalises: dotted,
    // its edges, DS-Lite's 192.0.0.8 and the NAT64 discovery names' 192.0.0.170, decimal, hexadecimal, octal, with
    // fewer parts, with a trailing dot, IPv4-mapped, 6to4 and NAT64.
    "https://192.0.0.0/",
    "https://192.0.0.1/",
    "https://192.0.0.8/",
    "https://192.0.0.170/",
    "https://192.0.0.255/",
    "https://3221225472/",
    "https://3221225642/",
    "https://0xc00000aa/",
    "https://0xc0.0x0.0x0.0xaa/",
    "https://0300.0.0.010/",
    "https://0300.0.0.0252/",
    "https://192.0.170/",
    "https://192.170/",
    "https://192.0.0.170./",
    "https://[::ffff:192.0.0.170]/",
    "https://[::ffff:c000:aa]/",
    "https://[2002:c000:aa::1]/",
    "https://[2002:c000:8::]/",
    "https://[64:ff9b::192.0.0.170]/",
    // Teredo (2001::/32) carries an IPv4 server and an obfuscated client address: refused whatever they are.
    "https://[2001::]/",
    "https://[2001::1]/",
    "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "https://[2001:0000:0a00:0001::]/",
    "https://[2001:0:ffff:ffff:ffff:ffff:ffff:ffff]/",
    "https://[2001:0::192.0.0.1]/",
  ])("refuses %s, also while ALLOW_HTTP_OUTBOUND is on", (url) => {
    expect(outboundUrlProblem(url, false)).toEqual(expect.any(String));
    expect(outboundUrlProblem(url, true)).toEqual(expect.any(String));
    expect(outboundUrlProblem(url.replace("https:", "http:"), true)).toEqual(expect.any(String));
  });

  // URL parsing normalises first: 127.1 is 127.0.0.1.
  it.each(["http://localhost/", "http://127.0.0.1:8787/x", "http://127.1/", "http://[::1]/", "https://localhost/"])(
    "admits exactly the loopback host of %s with ALLOW_HTTP_OUTBOUND, and refuses it without",
    (url) => {
      expect(outboundUrlProblem(url, true)).toBeNull();
      expect(outboundUrlProblem(url, false)).toEqual(expect.any(String));
    },
  );

  it("admits http only with ALLOW_HTTP_OUTBOUND", () => {
    expect(outboundUrlProblem("http://example.com/", false)).toBe("must be an https URL");
    expect(outboundUrlProblem("http://example.com/", true)).toBeNull();
  });

  it.each([
    ["not a url", "must be an absolute URL"],
    ["/relative", "must be an absolute URL"],
    ["ftp://example.com/x", "must be an https URL"],
    ["https://user:pw@example.com/", "must not contain credentials"],
  ])("refuses %s: %s", (url, problem) => {
    expect(outboundUrlProblem(url, true)).toBe(problem);
  });
});
