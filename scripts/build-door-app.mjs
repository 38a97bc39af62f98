// Builds the door app (src/door-app, docs/door-app.md), the shop's script and the organiser console (src/console-app) into the Worker's static assets, dist/assets (wrangler.toml
// [assets]), where Cloudflare serves it at /ticketing/v1/door/ without running the Worker. Run by `npm run dev`
// (predev), `npm test`, `npm run deploy` and the scripts that start the service; about a second.
//
// The app's TypeScript is bundled with esbuild (the level rules and ticket-code checks come from src/domain and
// src/lib, the same modules the service runs); the ZXing WebAssembly of `barcode-detector` is copied beside it, so a
// phone reads QR codes offline and the page loads nothing from elsewhere. The service worker gets the list of the
// app's files and a version made from their contents, so a new build replaces the copy phones keep.
//
// It also puts the API reference's renderer among the assets (decisions.md 15 "No third-party script on our origin"):
// the standalone browser bundle of `@scalar/api-reference`, pinned in package-lock.json, copied to
// /ticketing/v1/reference/scalar.js, which the Worker's page /ticketing/v1/docs loads (src/features/meta/docs.routes.ts).
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = join(ROOT, "src", "door-app");
const ASSETS = join(ROOT, "dist", "assets");
const PATH = "ticketing/v1/door";
const OUT = join(ASSETS, PATH);

// The page runs only what it serves itself; the WebAssembly decoder needs 'wasm-unsafe-eval', the camera a media
// stream (mediastream:/blob:), photos blob: images.
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const REFERENCE_PATH = "ticketing/v1/reference";

// The box office (decisions.md 15): the shop pages are rendered by the Worker; their stylesheet and one script are
// static files here, and embed.js sits at the documented /ticketing/v1/shop/embed.js.
const SHOP_SOURCE = join(ROOT, "src", "shop-app");
const SHOP_PATH = "ticketing/v1/shop";
const SHOP_ASSETS_PATH = `${SHOP_PATH}/assets`;

// The organiser console (decisions.md 15, docs/console.md): one page and one script, talking to /admin only.
const CONSOLE_SOURCE = join(ROOT, "src", "console-app");
const CONSOLE_PATH = "ticketing/v1/console";
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const HEADERS = `/${PATH}/*
  Content-Security-Policy: ${CSP}
  Referrer-Policy: no-referrer
  X-Content-Type-Options: nosniff
  Permissions-Policy: camera=(self)
  Cache-Control: no-cache
/${REFERENCE_PATH}/*
  X-Content-Type-Options: nosniff
  Cache-Control: no-cache
/${SHOP_PATH}/*
  X-Content-Type-Options: nosniff
  Cache-Control: no-cache
  Access-Control-Allow-Origin: *
/${CONSOLE_PATH}/*
  Content-Security-Policy: ${CONSOLE_CSP}
  Referrer-Policy: no-referrer
  X-Content-Type-Options: nosniff
  X-Frame-Options: DENY
  Cache-Control: no-cache
`;

/**
 * Scalar's standalone bundle (one self-contained script) as /ticketing/v1/reference/scalar.js; its source map is not
 * served, so the comment naming it goes.
 */
function copyApiReference() {
  const bundle = readFileSync(join(ROOT, "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js"), "utf8");
  mkdirSync(join(ASSETS, REFERENCE_PATH), { recursive: true });
  writeFileSync(join(ASSETS, REFERENCE_PATH, "scalar.js"), bundle.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"));
}

/** The shop pages' stylesheet and script, and embed.js for organisers' own sites. */
async function buildShopAssets(common) {
  const out = join(ASSETS, SHOP_ASSETS_PATH);
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(join(SHOP_SOURCE, "static"))) copyFileSync(join(SHOP_SOURCE, "static", name), join(out, name));
  await build({ ...common, entryPoints: [join(SHOP_SOURCE, "main.ts")], outfile: join(out, "shop.js"), platform: "browser" });
  await build({ ...common, format: "iife", entryPoints: [join(SHOP_SOURCE, "embed.ts")], outfile: join(ASSETS, SHOP_PATH, "embed.js"), platform: "browser" });
}

/** The console's page, stylesheet and script (Hono's JSX for the DOM, bundled by esbuild). */
async function buildConsole(common) {
  const out = join(ASSETS, CONSOLE_PATH);
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(join(CONSOLE_SOURCE, "static"))) copyFileSync(join(CONSOLE_SOURCE, "static", name), join(out, name));
  await build({
    ...common,
    entryPoints: [join(CONSOLE_SOURCE, "main.tsx")],
    outfile: join(out, "console.js"),
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "hono/jsx/dom",
  });
}

export async function buildDoorApp({ quiet = false } = {}) {
  const started = Date.now();
  rmSync(ASSETS, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  for (const name of readdirSync(join(SOURCE, "static"))) copyFileSync(join(SOURCE, "static", name), join(OUT, name));
  copyFileSync(join(ROOT, "node_modules", "zxing-wasm", "dist", "reader", "zxing_reader.wasm"), join(OUT, "zxing_reader.wasm"));
  const common = { bundle: true, format: "esm", target: "es2022", minify: true, legalComments: "none", logLevel: quiet ? "error" : "warning" };
  await build({ ...common, entryPoints: [join(SOURCE, "main.ts")], outfile: join(OUT, "app.js"), platform: "browser" });

  const files = ["./", ...readdirSync(OUT).filter((n) => n !== "index.html")].sort();
  const hash = createHash("sha256");
  for (const name of readdirSync(OUT).sort()) hash.update(name).update(readFileSync(join(OUT, name)));
  const version = hash.digest("hex").slice(0, 16);
  await build({
    ...common,
    entryPoints: [join(SOURCE, "sw.ts")],
    outfile: join(OUT, "sw.js"),
    define: { APP_FILES: JSON.stringify(files), APP_VERSION: JSON.stringify(version) },
  });
  copyApiReference();
  await buildShopAssets(common);
  await buildConsole(common);
  writeFileSync(join(ASSETS, "_headers"), HEADERS);
  if (!quiet) console.log(`Built the door app (${files.length} files, version ${version}) into dist/assets/${PATH} in ${Date.now() - started} ms.`);
  return { dir: OUT, version };
}

if (import.meta.url === `file://${process.argv[1]}`) await buildDoorApp();
