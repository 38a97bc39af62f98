// Starts the service locally for scripts that talk to it over HTTP (the browser test, the bench): its own state dir,
// D1 migrations applied, e-ticket fonts uploaded, then `wrangler dev` on a loopback port, answering once
// `/ticketing/v1/health` does.
//
//   import { startService } from "./scripts/local-service.mjs";
//   const service = await startService({ persistTo: "/tmp/state" });
//   try { await fetch(`${service.url}/health`); } finally { await service.stop(); }
//
// Credentials never come from `.dev.vars`: wrangler reads `.dev.vars` only when no `--env-file` is given, and then
// `--var` would win over it anyway, but other secrets in it (Stripe, email, ...) would still leak in. So wrangler is
// given an empty `--env-file` and every credential as `--var NAME:VALUE`. They are made up once per state dir and
// kept in `<persistTo>/credentials.json`: the bootstrap administrator and every stored password hash depend on them,
// so a state dir that is reused must get the same ones again.
//
// Runs on Node 22 (wrangler refuses older): npm scripts provide it, or `./node_modules/.bin/node`.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDoorApp } from "./build-door-app.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "node_modules", ".bin");
const API_BASE = "/ticketing/v1";

/** Every wrangler call: the project's binaries (and so its Node 22) first, no prompts, no telemetry. */
function toolEnv() {
  return {
    ...process.env,
    PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`,
    CI: "true",
    WRANGLER_SEND_METRICS: "false",
  };
}

/** A port nobody listens on right now (the kernel's choice). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolvePort(port));
    });
  });
}

function isFree(port) {
  return new Promise((done) => {
    const server = createServer();
    server.unref();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });
}

/** The credentials of a state dir: made up on its first start, read back afterwards. */
function credentialsFor(stateDir) {
  const file = join(stateDir, "credentials.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const secret = (bytes) => randomBytes(bytes).toString("hex");
  const credentials = {
    API_KEY: `local-${secret(12)}`,
    ADMIN_USERNAME: "admin",
    ADMIN_PASSWORD: secret(12),
    PASSWORD_PEPPER: secret(16),
  };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`);
  return credentials;
}

/** Runs one set-up step to completion (bounded), throwing with its output when it fails. */
function runStep(label, command, args, timeoutMs) {
  const run = spawnSync(command, args, { cwd: ROOT, env: toolEnv(), encoding: "utf8", timeout: timeoutMs, stdio: ["ignore", "pipe", "pipe"] });
  if (run.status !== 0) {
    const why = run.error ? String(run.error) : run.signal ? `killed by ${run.signal}` : `exit code ${run.status}`;
    throw new Error(`${label} failed (${why}):\n${tail(`${run.stdout ?? ""}${run.stderr ?? ""}`, 60)}`);
  }
}

function tail(text, lines) {
  return text.split("\n").slice(-lines).join("\n");
}

/** The groups of the services started by this process, killed if it exits without stopping them. */
const running = new Set();
let exitHooked = false;
function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const pgid of running) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    running.clear();
  };
  process.on("exit", killAll);
  // wrangler runs in a process group of its own, so a Ctrl-C at the terminal does not reach it: pass it on.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 0));
    });
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the service. `persistTo`: the state dir (created when missing; reusing one keeps its data). `port`: a free
 * one when absent. `vars`: more `--var`s, which may also override the credentials. `logLevel`: wrangler's (`info`
 * prints a line per request; `warn` keeps quiet, which the bench wants). `startTimeoutMs` bounds the wait for health.
 * `prepare: false` skips the migrations and the font upload (about 13 s): only for restarting on a state dir that a
 * start in this same run prepared. `testScheduled`: wrangler's `--test-scheduled`, so that
 * `GET <origin>/__scheduled?cron=<expression>` runs the Worker's `scheduled` handler (wrangler dev runs no crons).
 *
 * Answers `{ url, origin, apiKey, auth, username, password, port, persistTo, admin(), output(), stop(), kill() }`:
 * `url` ends with `/ticketing/v1`, `origin` is the same without the path; `auth` is the Basic header value of the
 * bootstrap administrator; `admin(method, path, body)` one call with both; `output()` the last lines wrangler
 * printed; `stop()` ends wrangler and workerd (the whole process group) and resolves when they are gone; `kill()`
 * SIGKILLs the whole group at once, as a crash would (nothing gets to clean up), and resolves when every process of
 * it is gone.
 */
export async function startService({ persistTo, port, vars = {}, logLevel = "info", startTimeoutMs = 90_000, prepare = true, testScheduled = false } = {}) {
  if (!persistTo) throw new Error("startService: persistTo (a state directory) is required");
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) throw new Error(`startService needs Node 22 or later (this is ${process.version}): run it through npm scripts or ./node_modules/.bin/node`);
  const stateDir = resolve(persistTo);
  mkdirSync(stateDir, { recursive: true });

  if (prepare) {
    await buildDoorApp({ quiet: true });
    runStep("wrangler d1 migrations apply", "wrangler", ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], 120_000);
    runStep("scripts/upload-fonts.mjs", process.execPath, [join(ROOT, "scripts", "upload-fonts.mjs"), "--local", "--persist-to", stateDir], 120_000);
  }

  const settings = { ...credentialsFor(stateDir), ALLOW_HTTP_OUTBOUND: "true", PAYMENT_PROVIDER: "test", ...vars };
  const emptyEnvFile = join(stateDir, "empty.env");
  writeFileSync(emptyEnvFile, "# Deliberately empty: keeps wrangler dev from reading .dev.vars (see scripts/local-service.mjs).\n");
  // A port somebody else answers on would pass the health check below: refuse it here.
  if (port !== undefined && !(await isFree(port))) throw new Error(`port ${port} on 127.0.0.1 is in use: pick another or leave it out`);
  const listenPort = port ?? (await freePort());
  const inspectorPort = await freePort();
  const args = [
    "dev",
    "--persist-to",
    stateDir,
    "--port",
    String(listenPort),
    "--ip",
    "127.0.0.1",
    "--inspector-port",
    String(inspectorPort),
    "--inspector-ip",
    "127.0.0.1",
    "--env-file",
    emptyEnvFile,
    "--show-interactive-dev-session=false",
    "--log-level",
    logLevel,
    ...(testScheduled ? ["--test-scheduled"] : []),
    ...Object.entries(settings).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  // detached: wrangler leads a process group of its own, so stop() reaches workerd and every other child too.
  const child = spawn("wrangler", args, { cwd: ROOT, env: toolEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error("wrangler dev did not start");
  running.add(pgid);
  hookExit();

  let log = "";
  const keep = (chunk) => {
    log += chunk.toString("utf8");
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = null;
  const exit = new Promise((r) => child.once("exit", (code, signal) => r((exited = { code, signal }))));
  const output = (lines = 80) => tail(log.replace(/\x1b\[[0-9;]*m/g, ""), lines);

  const stop = async () => {
    if (!running.has(pgid)) return exit;
    running.delete(pgid);
    const signalGroup = (signal) => {
      try {
        process.kill(-pgid, signal);
      } catch {
        // the group is gone
      }
    };
    signalGroup("SIGTERM");
    const ended = await Promise.race([exit.then(() => true), sleep(5_000).then(() => false)]);
    // workerd may outlive wrangler for a moment: whatever of the group is left goes now.
    signalGroup("SIGKILL");
    if (!ended) await Promise.race([exit, sleep(2_000)]);
    return exit;
  };

  const kill = async () => {
    running.delete(pgid);
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // the group is gone
    }
    await Promise.race([exit, sleep(5_000)]);
    // wrangler is the group's leader, but workerd is what holds the state: wait until no process of the group is left.
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(50)) {
      try {
        process.kill(-pgid, 0);
      } catch {
        return;
      }
    }
  };

  const origin = `http://127.0.0.1:${listenPort}`;
  const url = `${origin}${API_BASE}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (exited) {
      await stop(); // whatever of its group is left
      throw new Error(`wrangler dev exited (${exited.signal ?? `code ${exited.code}`}) before ${url}/health answered:\n${output()}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${url}/health did not answer 200 within ${startTimeoutMs / 1000} s; wrangler dev printed:\n${output()}`);
    }
    await sleep(250);
  }

  const username = settings.ADMIN_USERNAME;
  const password = settings.ADMIN_PASSWORD;
  const apiKey = settings.API_KEY;
  const auth = `Basic ${Buffer.from(`${username}:${password}`, "utf8").toString("base64")}`;

  /**
   * One call as the bootstrap administrator (API key and Basic): `body` is sent as JSON, or as it is when it is a
   * FormData. Answers the parsed JSON body (null when empty); any status but `expect` (default: any 2xx) throws
   * with the answer.
   */
  const admin = async (method, path, body, expect) => {
    const headers = { "X-EVT-API-KEY": apiKey, Authorization: auth };
    let payload;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["Content-Type"] = "application/json";
    }
    const res = await fetch(`${url}${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    if (expect === undefined ? !res.ok : res.status !== expect) {
      throw new Error(`${method} ${path} answered ${res.status}${expect === undefined ? "" : ` (expected ${expect})`}: ${text.slice(0, 500)}`);
    }
    return text ? JSON.parse(text) : null;
  };

  return {
    url,
    origin,
    port: listenPort,
    persistTo: stateDir,
    apiKey,
    username,
    password,
    auth,
    admin,
    output,
    stop,
    kill,
  };
}
