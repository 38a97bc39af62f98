// `npm run demo`: the steps of docs/quickstart.md (scripts/demo-steps.ts) against a running service, printing each
// call (method, path, the headers that matter, body) and its answer (status and a trimmed body), and at the end the
// shop page of the event it made, to open in a browser.
//
//   npm run demo                                  against `npm run dev` at http://127.0.0.1:8787
//   npm run demo -- --base https://tickets.example.org
//   npm run demo -- --start                       starts a service of its own first (scripts/local-service.mjs)
//
// Credentials: `--api-key`, `--user`, `--password`; by default those of `.dev.vars` (what `npm run dev` uses), else
// `.dev.vars.example`'s. With `--start`, the started service's own. Exits 1 when a step answers otherwise than the
// quickstart says.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(`npm run demo needs Node 22 or later (this is ${process.version}): run it through npm, which brings Node 22.`);
  process.exit(1);
}
// Node 22 strips the types of the shared steps module as it loads it.
const { DEMO_STEPS, DEV_CREDENTIALS, runDemo, valueAt } = await import("./demo-steps.ts");

const ROOT = join(import.meta.dirname, "..");
const API_BASE = "/ticketing/v1";

const { values: args } = parseArgs({
  options: {
    base: { type: "string" },
    start: { type: "boolean", default: false },
    "api-key": { type: "string" },
    user: { type: "string" },
    password: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (args.help) {
  console.log("usage: npm run demo -- [--base URL | --start] [--api-key KEY] [--user NAME] [--password PASSWORD]");
  process.exit(0);
}
if (args.start && args.base) {
  console.error("--start runs a service of its own: leave --base out");
  process.exit(2);
}

/** `NAME=value` lines of a .dev.vars file. */
function readVars(file) {
  const vars = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) vars[m[1]] = m[2].replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

function localCredentials() {
  const file = [".dev.vars", ".dev.vars.example"].map((f) => join(ROOT, f)).find((f) => existsSync(f));
  const vars = file ? readVars(file) : {};
  return {
    apiKey: vars.API_KEY ?? DEV_CREDENTIALS.apiKey,
    username: vars.ADMIN_USERNAME ?? DEV_CREDENTIALS.username,
    password: vars.ADMIN_PASSWORD ?? DEV_CREDENTIALS.password,
  };
}

/** `http://host:port` or a URL already ending with /ticketing/v1. */
function apiBase(url) {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith(API_BASE) ? trimmed : `${trimmed}${API_BASE}`;
}

const trim = (text, max = 400) => (text.length > max ? `${text.slice(0, max)}…` : text);

function shown(call) {
  if (call.json === undefined) {
    const head = new TextDecoder().decode(call.bytes.slice(0, 8)).replace(/[^\x20-\x7e]/g, "?");
    return `${call.bytes.length} bytes of ${call.contentType || "no content type"}, starting with ${JSON.stringify(head)}`;
  }
  const fields = call.step.show;
  if (!fields || call.status !== call.step.status) return trim(JSON.stringify(call.json));
  return trim(JSON.stringify(Object.fromEntries(fields.map((f) => [f, valueAt(call.json, f)]))));
}

function print(call, index) {
  const step = call.step;
  console.log(`\n${index + 1}/${DEMO_STEPS.length} ${step.title}`);
  console.log(`  > ${call.method} ${API_BASE}${call.path}`);
  for (const [name, value] of Object.entries(call.headers)) {
    if (name === "Authorization") console.log(`    ${name}: Basic <${credentials.username}:application password>`);
    else if (name !== "Content-Type") console.log(`    ${name}: ${value}`);
  }
  if (call.body !== undefined) console.log(`    ${call.body}`);
  const replayed = call.answerHeaders.get("Idempotent-Replayed");
  console.log(`  < ${call.status}${replayed ? ` (Idempotent-Replayed: ${replayed})` : ""} ${shown(call)}`);
  if (step.page && call.status === step.status) {
    pages.push(`${step.page}: ${call.url}`);
    console.log(`  Open it in a browser: ${call.url}`);
  }
}

/** The pages for people the steps made (the event's shop), printed again at the end. */
const pages = [];

let service;
let base;
let credentials;
if (args.start) {
  const { startService } = await import("./local-service.mjs");
  const persistTo = join(ROOT, ".wrangler", "demo");
  console.log(`Starting the service on a state dir of its own (${persistTo}); this takes a few seconds...`);
  service = await startService({ persistTo, logLevel: "warn" });
  base = service.url;
  credentials = { apiKey: service.apiKey, username: service.username, password: service.password };
} else {
  base = apiBase(args.base ?? "http://127.0.0.1:8787");
  const local = localCredentials();
  credentials = { apiKey: args["api-key"] ?? local.apiKey, username: args.user ?? local.username, password: args.password ?? local.password };
}

console.log(`The quickstart's steps (docs/quickstart.md) against ${base}`);
let failed = false;
try {
  await runDemo((url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(60_000) }), base, credentials, print);
  console.log("\nEvery step answered as docs/quickstart.md says.");
  for (const line of pages) console.log(line);
} catch (err) {
  failed = true;
  const cause = err?.cause?.code ?? err?.cause?.message;
  if (err instanceof TypeError && cause) {
    console.error(`\nCannot reach ${base} (${cause}): start the service with \`npm run dev\`, or run \`npm run demo -- --start\`.`);
  } else {
    console.error(`\n${err instanceof Error ? err.message : String(err)}`);
  }
} finally {
  await service?.stop();
}
process.exit(failed ? 1 : 0);
