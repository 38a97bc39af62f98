// The browser the browser tests drive (`npm run test:browser`): Debian's chromium, through puppeteer-core (which
// downloads none).
import { spawnSync } from "node:child_process";

/** Debian's chromium: found on PATH, else installed with apt-get when we are root, else a clear failure. */
export function chromiumPath() {
  const find = () => {
    for (const name of ["chromium", "chromium-browser"]) {
      const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
      if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
    }
    return null;
  };
  const existing = find();
  if (existing) return existing;
  const install = "apt-get update && apt-get install -y chromium";
  if (process.getuid?.() !== 0) {
    throw new Error(`Chromium is not installed. Install Debian's package first (as root): ${install}`);
  }
  console.log(`# chromium is missing: running "${install}" (a minute or two)`);
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "chromium"]]) {
    const run = spawnSync("apt-get", args, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      timeout: 600_000,
    });
    if (run.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed (${run.error ?? `exit ${run.status}`}); install it by hand: ${install}`);
  }
  const installed = find();
  if (!installed) throw new Error(`apt-get installed chromium but no chromium is on PATH; install it by hand: ${install}`);
  return installed;
}

/** Chromium's flags for a root container with a closed network: no sandbox, small /dev/shm, nothing fetched from Google. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
