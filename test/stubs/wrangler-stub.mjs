// A stand-in for the wrangler CLI (4.156.x) against a pretend Cloudflare account, for the tests of
// scripts/setup-cloudflare.mjs, scripts/deploy.mjs and scripts/apply-local-migrations.mjs (test/node/). bin/wrangler
// runs it; tests put bin/ first on PATH.
//
//   WRANGLER_STUB_STATE  a JSON file: the account (logged in, accounts, D1 databases, R2 buckets and their objects,
//                        queues, Workers with their secrets, applied migrations). Made on first use; a test may write
//                        one first (logged out, two accounts, ...). Every call reads it and writes it back, so a
//                        second run sees what the first created.
//   WRANGLER_STUB_LOG    each call's argv appended as one JSON line ({ argv, account, stdinBytes }; never a secret).
//
// It speaks what the real CLI speaks for the commands the scripts use, as read in wrangler's source and documented:
// the same positionals and flags (anything else is refused as yargs' strict mode does: "Unknown argument"), the
// same output formats (JSON where wrangler prints JSON: `d1 list --json`, `whoami --json`, `secret list`; the
// labelled `name:` / `creation_date:` pairs of `r2 bucket list`; the `Queue Name:` lines of `queues info`; TOML
// snippets after a create, as for a wrangler.toml config; banners first where wrangler prints them), errors as
// `✘ [ERROR] ...` on stderr with exit code 1, and the same behaviour where it matters: configuration read with
// wrangler's own reader (so [env.*] resolves exactly as in wrangler), migrations read from `migrations_dir` next to
// the configuration file and applied only once per database, D1 and R2 calls refused for ids and buckets the account
// does not have, `secret put` reading its value from standard input and creating an empty Worker when there is none
// (wrangler's non-interactive default), and "More than one account available" when the login reaches several
// accounts and none is chosen. Error texts of Cloudflare's API that the source does not fix are approximations; the
// scripts match only the stable part ("does not exist", "already exists", "not found").
import { createHash, randomUUID } from "node:crypto";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const VERSION = "4.156.2";
const STATE = process.env.WRANGLER_STUB_STATE;
const LOG = process.env.WRANGLER_STUB_LOG;
if (!STATE || !LOG) {
  console.error("wrangler stub: set WRANGLER_STUB_STATE and WRANGLER_STUB_LOG");
  process.exit(2);
}

const argv = process.argv.slice(2);
const stdin = process.stdin.isTTY ? "" : readFileSync(0, "utf8");
appendFileSync(LOG, `${JSON.stringify({ argv, account: process.env.CLOUDFLARE_ACCOUNT_ID ?? null, stdinBytes: stdin.length })}\n`);

const state = existsSync(STATE)
  ? JSON.parse(readFileSync(STATE, "utf8"))
  : { loggedIn: true, email: "ops@example.com", accounts: [{ id: "a1b2c3d4e5f60718293a4b5c6d7e8f90", name: "Example Tickets" }] };
state.d1 ??= [];
state.r2 ??= [];
state.queues ??= [];
state.workers ??= {};
state.migrations ??= {};
const save = () => writeFileSync(STATE, `${JSON.stringify(state, null, 2)}\n`);
const now = () => new Date().toISOString();

function banner() {
  const title = ` ⛅️ wrangler ${VERSION}`;
  console.log(`${title}\n${"─".repeat(title.length)}`);
}

function error(message) {
  console.error(`\n✘ [ERROR] ${message}\n`);
  save();
  process.exit(1);
}

function apiError(path, message, code) {
  error(
    `A request to the Cloudflare API (${path}) failed.\n\n  ${message} [code: ${code}]\n  \n  If you think this is a bug, please open an issue at: https://github.com/cloudflare/workers-sdk/issues/new/choose`,
  );
}

// --- The command line, as yargs (strict) reads it --------------------------------------------------------------------

const GLOBAL_FLAGS = { config: "string", c: "string", env: "string", e: "string", cwd: "string", "env-file": "string" };
const CREATE_FLAGS = { binding: "string", "update-config": "boolean", "use-remote": "boolean" };
const COMMANDS = {
  whoami: { flags: { json: "boolean", account: "string" }, run: whoami },
  "d1 list": { flags: { json: "boolean" }, run: d1List },
  "d1 create": { positional: ["name"], flags: { location: "string", jurisdiction: "string", ...CREATE_FLAGS }, run: d1Create },
  "d1 migrations apply": { positional: ["database"], flags: { local: "boolean", remote: "boolean", preview: "boolean", "persist-to": "string" }, run: d1MigrationsApply },
  "r2 bucket list": { flags: { jurisdiction: "string", J: "string" }, run: r2BucketList },
  "r2 bucket create": {
    positional: ["name"],
    flags: { location: "string", "storage-class": "string", s: "string", jurisdiction: "string", J: "string", ...CREATE_FLAGS },
    run: r2BucketCreate,
  },
  "r2 bulk put": {
    positional: ["bucket"],
    flags: {
      filename: "string",
      f: "string",
      "content-type": "string",
      concurrency: "string",
      local: "boolean",
      remote: "boolean",
      "persist-to": "string",
      jurisdiction: "string",
      J: "string",
    },
    run: r2BulkPut,
  },
  "queues info": { positional: ["name"], flags: {}, run: queuesInfo },
  "queues create": {
    positional: ["name"],
    flags: { jurisdiction: "string", "delivery-delay-secs": "string", "message-retention-period-secs": "string" },
    run: queuesCreate,
  },
  "secret list": { flags: { name: "string", format: "string" }, run: secretList },
  "secret put": { positional: ["key"], flags: { name: "string" }, run: secretPut },
  deploy: { flags: { "dry-run": "boolean", outdir: "string", minify: "boolean" }, run: deploy },
};

function parse() {
  const words = [];
  for (const token of argv) {
    if (token.startsWith("-")) break;
    words.push(token);
  }
  let name = null;
  for (let n = Math.min(words.length, 3); n > 0 && !name; n--) {
    const candidate = words.slice(0, n).join(" ");
    if (COMMANDS[candidate]) name = candidate;
  }
  if (!name) error(`Unknown command: ${words.join(" ") || argv.join(" ")} (the wrangler stub knows: ${Object.keys(COMMANDS).join(", ")})`);
  const command = COMMANDS[name];
  const types = { ...GLOBAL_FLAGS, ...command.flags };
  const flags = {};
  const positionals = [];
  const rest = argv.slice(name.split(" ").length);
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i];
    if (!token.startsWith("-")) {
      positionals.push(token);
      continue;
    }
    const body = token.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const key = eq >= 0 ? body.slice(0, eq) : body;
    const type = types[key];
    if (!type) error(`Unknown argument: ${key}`);
    if (type === "boolean") flags[key] = eq >= 0 ? body.slice(eq + 1) !== "false" : true;
    else {
      const value = eq >= 0 ? body.slice(eq + 1) : rest[++i];
      if (value === undefined) error(`Not enough arguments following: ${key}`);
      flags[key] = value;
    }
  }
  const expected = command.positional ?? [];
  if (positionals.length < expected.length) error(`Not enough non-option arguments: got ${positionals.length}, need at least ${expected.length}`);
  if (positionals.length > expected.length) error(`Unknown arguments: ${positionals.slice(expected.length).join(", ")}`);
  flags.config ??= flags.c;
  flags.env ??= flags.e;
  expected.forEach((p, i) => {
    flags[p] = positionals[i];
  });
  return { command, flags };
}

// --- The account and the configuration -------------------------------------------------------------------------------

function requireAuth(config) {
  if (!state.loggedIn) error("You are not authenticated. Please run `wrangler login`.");
  const chosen = process.env.CLOUDFLARE_ACCOUNT_ID || config?.account_id;
  if (chosen) {
    if (!state.accounts.some((a) => a.id === chosen)) apiError(`/accounts/${chosen}`, "Could not route to /accounts, perhaps your object identifier is invalid?", 7003);
    return chosen;
  }
  if (state.accounts.length === 1) return state.accounts[0].id;
  error(
    "More than one account available but unable to select one in non-interactive mode.\n" +
      "Please set the appropriate `account_id` in your Wrangler configuration file or assign it to the `CLOUDFLARE_ACCOUNT_ID` environment variable.\n" +
      `Available accounts are (\`<name>\`: \`<account_id>\`):\n${state.accounts.map((a) => `  \`${a.name}\`: \`${a.id}\``).join("\n")}`,
  );
}

/**
 * The resolved configuration of the chosen target, read by wrangler's own reader. What the stub uses of it is kept in
 * the state per file content and environment, since loading wrangler takes most of a second.
 */
async function readConfig(flags) {
  const path = resolve(flags.config ?? "wrangler.toml");
  if (!existsSync(path)) return null;
  const key = createHash("sha256")
    .update(`${path}\n${flags.env ?? ""}\n${readFileSync(path, "utf8")}`)
    .digest("hex");
  state.configCache ??= {};
  if (!state.configCache[key]) {
    const wrangler = await import("wrangler");
    const config = wrangler.unstable_readConfig({ config: path, env: flags.env || undefined }, { hideWarnings: true });
    const { name, account_id, configPath, d1_databases, r2_buckets } = config;
    state.configCache[key] = JSON.parse(JSON.stringify({ name, account_id, configPath, d1_databases, r2_buckets }));
  }
  return state.configCache[key];
}

function warnIfNoEnvironmentChosen(flags, command) {
  if (flags.env !== undefined) return;
  const path = resolve(flags.config ?? "wrangler.toml");
  if (existsSync(path) && /^\s*\[\[?\s*env\./m.test(readFileSync(path, "utf8"))) {
    console.warn(`▲ [WARNING] Multiple environments are defined in the Wrangler configuration file, but no target environment was specified for the ${command} command.`);
  }
}

/** The account of a command that needs no resolved configuration: only a top-level account_id is looked at. */
function accountOf(flags) {
  const path = resolve(flags.config ?? "wrangler.toml");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  return requireAuth({ account_id: /^account_id\s*=\s*"([^"]+)"/m.exec(text)?.[1] });
}

// --- Commands ----------------------------------------------------------------------------------------------------------

async function whoami(flags) {
  if (!flags.json) banner();
  if (!state.loggedIn) {
    if (flags.json) {
      console.log(JSON.stringify({ loggedIn: false }, null, 4));
      save();
      process.exit(1);
    }
    console.log("You are not authenticated. Please run `wrangler login`.");
    return;
  }
  const user = { loggedIn: true, authType: "OAuth Token", email: state.email, accounts: state.accounts, tokenPermissions: ["d1:write", "workers_scripts:write"] };
  if (flags.json) console.log(JSON.stringify(user, null, 4));
  else console.log(`You are logged in with an OAuth Token, associated with the email ${state.email}.`);
}

async function d1List(flags) {
  accountOf(flags);
  if (flags.json) {
    console.log(JSON.stringify(state.d1, null, 2));
    return;
  }
  banner();
  for (const db of state.d1) console.log(`│ ${db.uuid} │ ${db.name} │ ${db.created_at} │`);
}

async function d1Create(flags) {
  const account = accountOf(flags);
  banner();
  if (state.d1.some((db) => db.name === flags.name)) apiError(`/accounts/${account}/d1/database`, "A database with that name already exists.", 7502);
  const db = { uuid: randomUUID(), name: flags.name, created_at: now(), version: "production", num_tables: 0, file_size: 0, jurisdiction: null };
  state.d1.push(db);
  console.log(`✅ Successfully created DB '${db.name}' in region WEUR`);
  console.log("Created your new D1 database.\n");
  console.log("To access your new D1 Database in your Worker, add the following snippet to your configuration file:");
  console.log(`[[d1_databases]]\nbinding = "${db.name.replace(/[\s-]/g, "_")}"\ndatabase_name = "${db.name}"\ndatabase_id = "${db.uuid}"\n`);
}

async function d1MigrationsApply(flags) {
  const config = await readConfig(flags);
  if (!config) error("No configuration file found. Create a wrangler.jsonc file to define your D1 database.");
  // Locally wrangler needs no login: the database is a file in the state dir (--persist-to, else .wrangler/state).
  const local = !flags.remote;
  const account = local ? null : requireAuth(config);
  banner();
  const binding = config.d1_databases?.find((d) => d.binding === flags.database || d.database_name === flags.database);
  if (!binding) error(`Couldn't find a D1 DB with the name or binding '${flags.database}' in your wrangler.toml file.`);
  console.log(`Resource location: ${local ? "local" : "remote"}\n`);
  const db = local
    ? { uuid: `local:${resolve(flags["persist-to"] ?? ".wrangler/state")}:${binding.database_id}`, num_tables: 0 }
    : state.d1.find((d) => d.uuid === binding.database_id);
  if (!db)
    apiError(
      `/accounts/${account}/d1/database/${binding.database_id}/query`,
      `The database ${binding.database_id} does not exist or you do not have access to it.`,
      7404,
    );
  const dir = resolve(dirname(config.configPath), binding.migrations_dir ?? "migrations");
  if (!existsSync(dir)) error(`No migrations present at ${dir}.`);
  const applied = (state.migrations[db.uuid] ??= []);
  const pending = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .filter((f) => !applied.includes(f));
  if (pending.length === 0) {
    console.log("✅ No migrations to apply!");
    return;
  }
  const table = (rows) => rows.map((r) => `│ ${r.name} │${r.status ? ` ${r.status} │` : ""}`).join("\n");
  console.log(`Migrations to be applied:\n${table(pending.map((name) => ({ name })))}`);
  console.log(`? About to apply ${pending.length} migration(s)\nYour database may not be available to serve requests during the migration, continue?`);
  console.log("🤖 Using fallback value in non-interactive context: yes");
  const rows = pending.map((name) => ({ name, status: "🕒️" }));
  for (const row of rows) {
    console.log(`🌀 Executing on ${local ? "local" : "remote"} database ${flags.database} (${local ? binding.database_id : db.uuid}):`);
    applied.push(row.name);
    row.status = "✅";
    console.log(table(rows));
  }
  db.num_tables += pending.length;
}

async function r2BucketList(flags) {
  accountOf(flags);
  banner();
  console.log("Listing buckets...");
  console.log(state.r2.map((b) => `name:           ${b.name}\ncreation_date:  ${b.creation_date}`).join("\n\n"));
}

async function r2BucketCreate(flags) {
  const account = accountOf(flags);
  banner();
  if (!/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(flags.name)) error(`The bucket name "${flags.name}" is invalid.`);
  console.log(`Creating bucket '${flags.name}'...`);
  if (state.r2.some((b) => b.name === flags.name)) apiError(`/accounts/${account}/r2/buckets`, "The bucket you tried to create already exists, and you own it.", 10004);
  state.r2.push({ name: flags.name, creation_date: now(), objects: {} });
  console.log(`✅ Created bucket '${flags.name}' with default storage class of Standard.\n`);
  console.log("To access your new R2 Bucket in your Worker, add the following snippet to your configuration file:");
  console.log(`[[r2_buckets]]\nbucket_name = "${flags.name}"\nbinding = "${flags.name.replace(/[\s-]/g, "_")}"\n`);
}

async function r2BulkPut(flags) {
  const account = accountOf(flags);
  banner();
  const filename = flags.filename ?? flags.f;
  if (!filename) error("The --filename argument is required for bulk put operations.");
  if (!existsSync(filename)) error(`The file "${filename}" does not exist.`);
  const entries = JSON.parse(readFileSync(filename, "utf8"));
  if (!Array.isArray(entries)) error(`The file "${filename}" must contain an array of entries.`);
  if (!flags.remote) error("the wrangler stub uploads with --remote only");
  console.log("Resource location: remote\n");
  const bucket = state.r2.find((b) => b.name === flags.bucket);
  console.log(`Starting bulk upload of ${entries.length} objects to bucket ${flags.bucket} using a concurrency of ${flags.concurrency ?? 20}`);
  if (!bucket) apiError(`/accounts/${account}/r2/buckets/${flags.bucket}/objects`, "The specified bucket does not exist.", 10006);
  for (const entry of entries) {
    if (!existsSync(entry.file)) error(`R2 bulk upload failed\nError uploading "${entry.file}"`);
    bucket.objects[entry.key] = { size: statSync(entry.file).size, contentType: flags["content-type"] ?? null };
  }
}

function queueByName(name) {
  return state.queues.find((q) => q.queue_name === name);
}

async function queuesInfo(flags) {
  accountOf(flags);
  banner();
  const queue = queueByName(flags.name);
  if (!queue) error(`Queue "${flags.name}" does not exist. To create it, run: wrangler queues create ${flags.name}`);
  console.log(`Queue Name: ${queue.queue_name}\nQueue ID: ${queue.queue_id}\nCreated On: ${queue.created_on}\nLast Modified: ${queue.modified_on}`);
  console.log("Number of Producers: 0\nNumber of Consumers: 0");
}

async function queuesCreate(flags) {
  const account = accountOf(flags);
  banner();
  console.log(`🌀 Creating queue '${flags.name}'`);
  if (queueByName(flags.name)) apiError(`/accounts/${account}/queues`, "Queue name already taken", 11009);
  state.queues.push({ queue_id: randomUUID().replaceAll("-", ""), queue_name: flags.name, created_on: now(), modified_on: now() });
  const binding = flags.name.replace(/[\s-]/g, "_");
  console.log(`✅ Created queue '${flags.name}'\n\nConfigure your Worker to send messages to this queue:\n`);
  console.log(`[[queues.producers]]\nqueue = "${flags.name}"\nbinding = "${binding}"\n`);
  console.log(`Configure your Worker to consume messages from this queue:\n\n[[queues.consumers]]\nqueue = "${flags.name}"\n`);
}

async function workerName(flags) {
  const config = await readConfig(flags);
  const name = flags.name ?? config?.name;
  if (!name) error("Required Worker name missing. Please specify the Worker name in your wrangler.toml file, or pass it as an argument with `--name <worker-name>`");
  return { config, name };
}

async function secretList(flags) {
  const { config, name } = await workerName(flags);
  requireAuth(config);
  if ((flags.format ?? "json") === "pretty") banner();
  const worker = state.workers[name];
  if (!worker) {
    error(
      `Worker "${name}"${flags.env ? ` (env: ${flags.env})` : ""} not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.\nOtherwise, check that the Worker name is correct and you're logged into the right account.`,
    );
  }
  const secrets = Object.keys(worker.secrets).map((secret) => ({ name: secret, type: "secret_text" }));
  if (flags.format === "pretty") for (const s of secrets) console.log(`Secret Name: ${s.name}\n`);
  else console.log(JSON.stringify(secrets, null, "  "));
}

async function secretPut(flags) {
  const { config, name } = await workerName(flags);
  requireAuth(config);
  banner();
  warnIfNoEnvironmentChosen(flags, "secret put");
  if (process.stdin.isTTY) error("the wrangler stub reads secret values from standard input only");
  const value = stdin.replace(/\s+$/, "");
  console.log(`🌀 Creating the secret for the Worker "${name}" `);
  if (!state.workers[name]) {
    console.log(`? There doesn't seem to be a Worker called "${name}". Do you want to create a new Worker with that name and add secrets to it?`);
    console.log("🤖 Using fallback value in non-interactive context: yes");
    console.log(`🌀 Creating new Worker "${name}"...`);
    state.workers[name] = { deployed: false, secrets: {} };
  }
  state.workers[name].secrets[flags.key] = value;
  console.log(`✨ Success! Uploaded secret ${flags.key}`);
}

async function deploy(flags) {
  const config = await readConfig(flags);
  if (!config) error("Missing entry-point to Worker script or to assets directory");
  banner();
  warnIfNoEnvironmentChosen(flags, "deploy");
  if (flags["dry-run"]) {
    console.log("--dry-run: exiting now.");
    return;
  }
  const account = requireAuth(config);
  for (const d1 of config.d1_databases) {
    if (!state.d1.some((db) => db.uuid === d1.database_id)) {
      apiError(`/accounts/${account}/workers/scripts/${config.name}/versions`, `binding ${d1.binding} of type d1 must have a valid \`id\` specified`, 10021);
    }
  }
  for (const r2 of config.r2_buckets) {
    if (!state.r2.some((b) => b.name === r2.bucket_name))
      apiError(`/accounts/${account}/workers/scripts/${config.name}/versions`, `R2 bucket '${r2.bucket_name}' not found`, 10085);
  }
  const worker = (state.workers[config.name] ??= { deployed: false, secrets: {} });
  worker.deployed = true;
  console.log(`Uploaded ${config.name} (1.00 sec)\nDeployed ${config.name} triggers (0.50 sec)\n  https://${config.name}.example.workers.dev`);
  console.log(`Current Version ID: ${randomUUID()}`);
}

const { command, flags } = parse();
await command.run(flags);
save();
