import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

/**
 * The organiser console's files come from the Worker's static assets (built by scripts/build-door-app.mjs) at
 * /ticketing/v1/console/, under a policy of scripts and styles from 'self' only, never framed (decisions.md 15;
 * docs/console.md). Its weight (HTML, stylesheet and script, each gzip-compressed as served) is printed in
 * `npm test` and held under a budget. What the app does is tested in a browser (test/browser/console*.browser.mjs).
 */

const get = (path: string) => env.ASSETS.fetch(new Request(`https://console.example${path}`, { redirect: "manual" }));

/** The console's budget: everything it loads, compressed (docs/console.md "Weight"). */
const BUDGET_BYTES = 120 * 1024;

async function gzipSize(bytes: ArrayBuffer): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

describe("GET /ticketing/v1/console/", () => {
  it("serves the app's page with a policy allowing only its own files, never in a frame", async () => {
    const res = await get("/ticketing/v1/console/");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).toContain('<script type="module" src="console.js"></script>');
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });

  it("weighs under its budget, compressed, and prints its weight", async () => {
    const parts: string[] = [];
    let total = 0;
    for (const file of ["", "console.css", "console.js"]) {
      const res = await get(`/ticketing/v1/console/${file}`);
      expect(res.status, file).toBe(200);
      const size = await gzipSize(await res.arrayBuffer());
      total += size;
      parts.push(`${file || "index.html"} ${(size / 1024).toFixed(1)} KiB`);
    }
    console.log(`✔ console weight: ${(total / 1024).toFixed(1)} KiB gzip (${parts.join(", ")}); budget ${BUDGET_BYTES / 1024} KiB`);
    expect(total).toBeLessThan(BUDGET_BYTES);
  });
});
