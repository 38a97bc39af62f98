// Runs before `wrangler dev`: creates .dev.vars from the example on a fresh clone, applies local D1 migrations and
// uploads the e-ticket fonts to the local R2 bucket (once per state dir), and builds the door app's static files.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { buildDoorApp } from "./build-door-app.mjs";

if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (development credentials).");
} else if (!/^\s*PAYMENT_PROVIDER\s*=/m.test(readFileSync(".dev.vars", "utf8"))) {
  // A .dev.vars made before PAYMENT_PROVIDER lost its default: paid orders would answer 503 without a word here.
  console.warn("Note: .dev.vars sets no PAYMENT_PROVIDER, so paid orders answer 503 and /health says misconfigured. Add PAYMENT_PROVIDER=test for local work.");
}

// One summary line each; wrangler's own output only when a step fails (scripts/apply-local-migrations.mjs).
const applied = spawnSync(process.execPath, ["scripts/apply-local-migrations.mjs"], { stdio: "inherit" });
if (applied.status !== 0) process.exit(applied.status ?? 1);

const fonts = spawnSync(process.execPath, ["scripts/upload-fonts.mjs", "--local"], { stdio: "inherit" });
if (fonts.status !== 0) process.exit(fonts.status ?? 1);

await buildDoorApp();
