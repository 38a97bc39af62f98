// Applies the D1 migrations to the local database (`npm run dev` runs it through scripts/prepare-dev.mjs on every
// start; wrangler applies only what the state dir has not seen, so a rerun is safe) and says so in one line:
//
//   D1 (local): 29 migrations applied (29 in all)
//   D1 (local): up to date (29 migrations)
//
// wrangler prints its migration table again after each migration (some 1,900 lines on a fresh clone), so its output
// is kept and printed in full only when applying fails, with wrangler's exit code.
//
//   node scripts/apply-local-migrations.mjs [--persist-to DIR] [--config PATH]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const config = option("--config");
const persistTo = option("--persist-to");

const configText = readFileSync(config ?? "wrangler.toml", "utf8");
const migrationsDir = join(dirname(config ?? "wrangler.toml"), /migrations_dir\s*=\s*"([^"]+)"/.exec(configText)?.[1] ?? "migrations");
const total = existsSync(migrationsDir) ? readdirSync(migrationsDir).filter((f) => f.endsWith(".sql")).length : 0;

// CI=true keeps wrangler from asking for confirmation, so the step never stops at a prompt.
const run = spawnSync(
  "wrangler",
  ["d1", "migrations", "apply", "DB", "--local", ...(persistTo ? ["--persist-to", persistTo] : []), ...(config ? ["--config", config] : [])],
  { encoding: "utf8", env: { ...process.env, CI: "true" }, shell: process.platform === "win32", maxBuffer: 64 * 1024 * 1024 },
);
const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
if (run.status !== 0) {
  process.stdout.write(run.stdout ?? "");
  process.stderr.write(run.stderr ?? "");
  if (run.error) console.error(run.error.message);
  console.error(`D1 (local): applying the migrations failed (wrangler exit ${run.status ?? "none"}); its output is above.`);
  process.exit(run.status || 1);
}
const applied = Number(/About to apply (\d+) migration/.exec(output)?.[1] ?? 0);
console.log(applied > 0 ? `D1 (local): ${applied} migration${applied === 1 ? "" : "s"} applied (${total} in all)` : `D1 (local): up to date (${total} migrations)`);
