import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

/**
 * The door app's files come from the Worker's static assets (wrangler.toml [assets], built by
 * scripts/build-door-app.mjs), at /ticketing/v1/door/, with a policy that lets the page load nothing from elsewhere.
 * What the app does is tested in a browser (test/browser/door-app.browser.mjs), and so is `/ticketing/v1/door`
 * without its slash (Cloudflare's router sends it to the folder).
 */

// The files as Cloudflare serves them in front of the Worker: through the assets binding, with their headers (_headers).
const get = (path: string) => env.ASSETS.fetch(new Request(`https://door.example${path}`, { redirect: "manual" }));

describe("GET /ticketing/v1/door", () => {
  it("serves the app's page with a policy allowing only its own files (and its WebAssembly decoder)", async () => {
    const res = await get("/ticketing/v1/door/");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).toContain('<script type="module" src="app.js"></script>');
    expect(html).toContain('<link rel="manifest" href="manifest.webmanifest">');
  });

  it("serves the script, the service worker, the manifest and the decoder", async () => {
    for (const [file, type] of [
      ["app.js", /javascript/],
      ["sw.js", /javascript/],
      ["manifest.webmanifest", /manifest\+json/],
      ["zxing_reader.wasm", /application\/wasm/],
    ] as const) {
      const res = await get(`/ticketing/v1/door/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("Content-Type"), file).toMatch(type);
      await res.arrayBuffer();
    }
    const manifest = await (await get("/ticketing/v1/door/manifest.webmanifest")).json<Record<string, unknown>>();
    expect(manifest).toMatchObject({ start_url: "./", scope: "./", display: "standalone" });
  });

  it("lists every file the page needs in the service worker, so the app opens offline", async () => {
    const sw = await (await get("/ticketing/v1/door/sw.js")).text();
    for (const file of ["./", "app.js", "door.css", "icon.svg", "manifest.webmanifest", "zxing_reader.wasm"]) expect(sw).toContain(`"${file}"`);
  });

  it("holds nothing else: every other address is the Worker's", async () => {
    expect((await get("/ticketing/v1/health")).status).toBe(404);
    const res = await exports.default.fetch(new Request("https://door.example/ticketing/v1/health"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: expect.any(String) });
  });
});
