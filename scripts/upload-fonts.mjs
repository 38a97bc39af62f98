// Uploads the e-ticket fonts (Noto Sans and Noto Sans SC, weight 400, WOFF) to the FILES bucket under the prefix
// src/features/tickets/ticket-fonts.ts reads (FONT_PREFIX), with one `wrangler r2 bulk put`.
//
//   node scripts/upload-fonts.mjs --local [--persist-to DIR]   (npm run dev does this once per state dir)
//   node scripts/upload-fonts.mjs --remote                      (npm run deploy, npm run setup:cloudflare)
//
// The bucket is the first bucket_name of wrangler.toml (the top level's) unless `--bucket NAME` names another (an
// environment's, as scripts/deploy.mjs and scripts/setup-cloudflare.mjs pass it); `--config PATH` reads that file
// instead and is passed on to wrangler. Locally a marker file in the state dir remembers that the upload was made,
// so `npm run dev` pays for it once.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const FONT_PREFIX = /FONT_PREFIX = "([^"]+)"/.exec(readFileSync("src/features/tickets/ticket-fonts.ts", "utf8"))?.[1];
if (!FONT_PREFIX) throw new Error("FONT_PREFIX not found in src/features/tickets/ticket-fonts.ts");
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const remote = args.includes("--remote");
const persistTo = option("--persist-to");
const config = option("--config");
if (!remote && !args.includes("--local")) {
  console.error("usage: node scripts/upload-fonts.mjs --local [--persist-to DIR] | --remote [--bucket NAME] [--config PATH]");
  process.exit(2);
}
const BUCKET = option("--bucket") ?? /bucket_name = "([^"]+)"/.exec(readFileSync(config ?? "wrangler.toml", "utf8"))?.[1];
if (!BUCKET) throw new Error(`bucket_name not found in ${config ?? "wrangler.toml"}`);

const stateDir = persistTo ?? ".wrangler/state";
const marker = join(stateDir, `${FONT_PREFIX.replace(/\W+/g, "-")}uploaded`);
if (!remote && existsSync(marker)) process.exit(0);

// Exactly the files the renderer's faces name: `<family>-<subset>-400-normal.woff` (see fontsourceFileName).
const entries = ["noto-sans", "noto-sans-sc"].flatMap((family) => {
  const dir = join("node_modules", "@fontsource", family, "files");
  const pattern = new RegExp(`^${family}-[a-z0-9-\\[\\]]+-400-normal\\.woff$`);
  return readdirSync(dir)
    .filter((name) => pattern.test(name) && (family === "noto-sans-sc" || !name.startsWith("noto-sans-sc-")))
    .map((name) => ({ key: `${FONT_PREFIX}${name}`, file: join(dir, name) }));
});

mkdirSync(stateDir, { recursive: true });
const manifest = join(stateDir, "fonts-manifest.json");
writeFileSync(manifest, JSON.stringify(entries));
const where = remote ? ["--remote"] : ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
const configArgs = config ? ["--config", config] : [];
const put = spawnSync("wrangler", ["r2", "bulk", "put", BUCKET, "--filename", manifest, "--content-type", "font/woff", "--concurrency", "8", ...where, ...configArgs], {
  // wrangler's output (a line per file, warnings) is printed only when the upload fails: one summary line otherwise.
  stdio: ["ignore", "pipe", "pipe"],
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, CI: "true" },
  shell: process.platform === "win32",
});
if (put.status !== 0) {
  process.stdout.write(put.stdout ?? "");
  process.stderr.write(put.stderr ?? "");
  if (put.error) console.error(put.error.message);
  process.exit(put.status || 1);
}
if (!remote) writeFileSync(marker, `${entries.length} files\n`);
console.log(`Uploaded ${entries.length} font files to ${remote ? "the remote" : "the local"} bucket ${BUCKET} under ${FONT_PREFIX}.`);
