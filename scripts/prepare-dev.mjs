// Runs before `wrangler dev`: creates .dev.vars from the example on a fresh clone and applies local D1 migrations.
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
process.exit(applied.status ?? 1);
