// What the browser tests (`npm run test:browser`) share: Debian's chromium driven by puppeteer-core (which downloads
// none), a bound on each file's run, and its end (browser and service stopped, the state dir kept after a failure).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { it } from "node:test";
import puppeteer from "puppeteer-core";

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

/** Chromium, headless, with CHROMIUM_ARGS and `extraArgs`. */
export function launchChromium(extraArgs = []) {
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args: [...CHROMIUM_ARGS, ...extraArgs], timeout: 60_000, protocolTimeout: 60_000 });
}

/**
 * Bounds a test file even if something hangs outside a test's own timeout: after six minutes `running()`'s browser
 * and service are stopped and the process fails.
 */
export function stopAfterSixMinutes(label, running) {
  const watchdog = setTimeout(() => {
    console.error(`# ${label} took more than 6 minutes: stopping`);
    const { browser, service } = running();
    Promise.allSettled([browser?.close(), service?.stop()]).finally(() => process.exit(1));
  }, 6 * 60_000);
  watchdog.unref();
}

/** The end of a file's run: browser and service stopped (15 s at most), the state dir removed unless it failed. */
export async function endRun({ browser, service, stateDir, failed, screenshots }) {
  const closing = [];
  if (browser) closing.push(browser.close().catch((err) => console.error(`# closing the browser: ${err}`)));
  if (service) closing.push(service.stop());
  await Promise.race([Promise.allSettled(closing), new Promise((r) => setTimeout(r, 15_000))]);
  if (!failed && service) rmSync(stateDir, { recursive: true, force: true });
  console.log(`# screenshots in ${screenshots}${failed ? ` (state kept in ${stateDir})` : ""}`);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's WCAG 2.0 and 2.1 A and AA rules over the page as it is now (decisions.md 15 "Accessibility"): fails
 * with each violation's rule, help text and the elements it found. axe is evaluated into the page by the test (the
 * DevTools protocol), not loaded by it, so the pages' CSP of scripts from 'self' only still holds.
 */
export async function expectNoAxeViolations(page, label) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // axe is a global the test evaluated into the page.
    const result = await globalThis.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  if (violations.length > 0) throw new Error(`axe-core found ${violations.length} violation(s) on ${label}:\n${JSON.stringify(violations, null, 2)}`);
}

/**
 * `step(name, fn)`: a test that, when it fails, first calls `noteFailure` (the file then keeps its state dir for a
 * look, see endRun) and `onFailure(name)` (a screenshot, say; its own failure is ignored), then fails.
 */
export function stepsNotingFailure(noteFailure, onFailure = async () => {}) {
  return (name, fn) =>
    it(name, async () => {
      try {
        await fn();
      } catch (err) {
        noteFailure();
        await Promise.resolve()
          .then(() => onFailure(name))
          .catch(() => {});
        throw err;
      }
    });
}
