// Part of `npm test`: builds the production bundle as `wrangler deploy` would, without an account
// (`wrangler deploy --dry-run --outdir <temporary dir>`), and prints its size, raw and gzip-compressed, beside the
// Workers limits on the compressed size (3 MiB on Workers Free, 10 MiB on Workers Paid). It fails when the build
// fails or the bundle outgrows the Paid limit, since no deploy could succeed then.
//
//   node scripts/bundle-size.mjs [--minify] [--env NAME]   (extra flags go to wrangler deploy)
//
// Source maps (index.js.map) are left out of the count: Cloudflare stores them apart from the script, and they do not
// count against the script size limit.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MiB = 1024 * 1024;
const FREE_LIMIT = 3 * MiB;
const PAID_LIMIT = 10 * MiB;

const extra = process.argv.slice(2);
const env = extra.some((a) => a === "--env" || a.startsWith("--env=")) ? [] : ["--env="];
const outdir = mkdtempSync(join(tmpdir(), "ticketing-bundle-"));
try {
  const build = spawnSync("wrangler", ["deploy", "--dry-run", "--outdir", outdir, ...env, ...extra], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`, CI: "true", WRANGLER_SEND_METRICS: "false" },
    encoding: "utf8",
  });
  if (build.status !== 0) {
    console.error(`wrangler deploy --dry-run failed:\n${build.stdout}${build.stderr}`);
    process.exit(1);
  }
  const modules = readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "README.md");
  let raw = 0;
  let gzip = 0;
  for (const file of modules) {
    const bytes = readFileSync(join(outdir, file));
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const flags = extra.length ? ` (${extra.join(" ")})` : "";
  console.log(
    `✔ bundle${flags}: ${kib(raw)} raw, ${kib(gzip)} gzip in ${modules.length} module(s); ` +
      `limits on the gzip size: ${FREE_LIMIT / MiB} MiB on Workers Free, ${PAID_LIMIT / MiB} MiB on Workers Paid`,
  );
  if (gzip > PAID_LIMIT) {
    console.error(`✘ the bundle is larger than the Workers Paid limit (${kib(gzip)} > ${kib(PAID_LIMIT)} gzip): no deploy would succeed`);
    process.exit(1);
  }
  if (gzip > FREE_LIMIT) console.warn(`▲ the bundle is larger than the Workers Free limit (${kib(FREE_LIMIT)} gzip)`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
