// Runs before `wrangler dev`: creates .dev.vars from the example on a fresh clone, applies local D1 migrations and
// uploads the e-ticket fonts to the local R2 bucket (once per state dir).
import { copyFileSync, existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (development credentials).");
}

// CI=true keeps wrangler from asking for confirmation, so the two set-up commands never stop at a prompt.
const applied = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], {
  stdio: "inherit",
  env: { ...process.env, CI: "true" },
  shell: process.platform === "win32",
});
if (applied.status !== 0) process.exit(applied.status ?? 1);

const fonts = spawnSync(process.execPath, ["scripts/upload-fonts.mjs", "--local"], { stdio: "inherit" });
process.exit(fonts.status ?? 1);
