// `npm run setup:cloudflare [-- --env staging|production] [--config PATH] [--public-url URL] [--yes | --interactive]`
//
// Provisions one target of wrangler.toml (the top level, or an environment) on the Cloudflare account wrangler is
// logged in to, in this order:
//   1. the account (`wrangler whoami --json`): logged in, and one account chosen;
//   2. the resources, each found first and created only when missing: the D1 database (`d1 list --json`,
//      `d1 create`), the R2 bucket (`r2 bucket list`, `r2 bucket create`), the jobs queue and its dead-letter queue
//      (`queues info`, `queues create`);
//   3. wrangler.toml: the database's real id, and rate-limit namespace ids unique in the account (placeholders and
//      ids another target of the file already uses are replaced by ids derived from the database id); the file is
//      written only when a value changes;
//   4. the D1 migrations (`d1 migrations apply DB --remote`), which apply only what is new;
//   5. the e-ticket fonts into the bucket (scripts/upload-fonts.mjs --remote; the same bytes again on a rerun);
//   6. the secrets (`secret list`): each missing one is asked for in a terminal (most can be generated) and stored
//      with `secret put`; with --yes or without a terminal the missing ones are listed instead. PUBLIC_URL, the
//      service's public origin that links in emails and pages use (decisions.md 15), is stored with them unless the
//      target's [vars] set it: from --public-url, else the target's custom domain, else asked for.
// It prints what it found, created, wrote and still misses. Running it again changes nothing that is already right.
// It never deploys: `npm run deploy [-- --env <name>]` does, afterwards.
//
// --config PATH   another wrangler.toml (the tests give a copy); every wrangler call gets it too.
// --public-url URL  the service's public origin (https://tickets.example.com), stored as PUBLIC_URL.
// --yes           never ask: list missing secrets instead (also what happens when standard input is no terminal).
// --interactive   ask even when standard input is no terminal (answers are read line by line; for scripts, tests).
//
// The wrangler on PATH is used (npm scripts put the project's first; tests put a stub there); the project's own
// node_modules/.bin comes last as a fallback. Runs on Node 22 or later, as wrangler does.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { allNamespaceIds, envArgs, PLACEHOLDER_NAMESPACE_IDS, readTarget, setString, targetLabel, ZERO_DATABASE_ID } from "./wrangler-config.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = "usage: npm run setup:cloudflare -- [--env staging|production] [--config PATH] [--public-url URL] [--yes | --interactive]";
/** What PUBLIC_URL must be (src/config.ts takes http too, for local work; a deployment is reached over https). */
const PUBLIC_ORIGIN = /^https:\/\/[A-Za-z0-9.-]+(?::\d+)?$/;

// --- Arguments ---------------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const options = { env: "", config: join(ROOT, "wrangler.toml"), yes: false, interactive: false, publicUrl: "" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) fail(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    if (flag === "--env" || flag === "-e") options.env = value();
    else if (flag === "--config" || flag === "-c") options.config = resolve(value());
    else if (flag === "--public-url") options.publicUrl = value().replace(/\/+$/, "");
    else if (flag === "--yes" || flag === "-y") options.yes = true;
    else if (flag === "--interactive") options.interactive = true;
    else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown argument ${arg}\n${USAGE}`);
  }
  if (options.env && !/^[a-z0-9-]+$/.test(options.env)) fail(`--env ${options.env}: expected an environment name such as staging or production`);
  if (options.publicUrl && !PUBLIC_ORIGIN.test(options.publicUrl)) {
    fail(`--public-url ${options.publicUrl}: expected the service's https origin without a path, such as https://tickets.example.com`);
  }
  return options;
}

function fail(message) {
  console.error(`✘ ${message}`);
  process.exit(1);
}

if (Number(process.versions.node.split(".")[0]) < 22) fail(`wrangler needs Node 22 or later (this is ${process.version}): run \`npm run setup:cloudflare\``);
const options = parseArgs(process.argv.slice(2));
const interactive = !options.yes && (options.interactive || Boolean(process.stdin.isTTY));
const target = targetLabel(options.env);
const configLabel = relative(process.cwd(), options.config).startsWith("..") ? options.config : relative(process.cwd(), options.config);

// --- Running wrangler --------------------------------------------------------------------------------------------

const childEnv = {
  ...process.env,
  PATH: `${process.env.PATH ?? ""}${delimiter}${join(ROOT, "node_modules", ".bin")}`,
  // No prompts from wrangler itself (migrations confirm on their own in CI mode), no colours in what is parsed.
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

const stripAnsi = (text) => text.replace(/\x1b\[[0-9;]*m/g, "");

/** Runs `wrangler <args> --config <config>`; answers `{ ok, stdout, stderr, output }` (output: both, without colours). */
function wrangler(args, { input } = {}) {
  const run = spawnSync("wrangler", [...args, "--config", options.config], {
    cwd: ROOT,
    env: childEnv,
    input,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) fail(`could not run wrangler (${run.error.message}): run this through \`npm run setup:cloudflare\` after \`npm install\``);
  const stdout = stripAnsi(run.stdout ?? "");
  const stderr = stripAnsi(run.stderr ?? "");
  return { ok: run.status === 0, stdout, stderr, output: `${stdout}\n${stderr}` };
}

/** Fails with the command and the end of what it printed. */
function failed(args, result) {
  const tail = result.output.trim().split("\n").slice(-25).join("\n");
  fail(`\`wrangler ${args.join(" ")}\` failed:\n${tail}`);
}

/** Like `wrangler`, but any failure ends the run. */
function mustRun(args, runOptions) {
  const result = wrangler(args, runOptions);
  if (!result.ok) failed(args, result);
  return result;
}

/** The JSON value a command printed, wherever it starts (a warning or banner line may come first). */
function parseJsonOutput(stdout, what) {
  const start = stdout.search(/^\s*[[{]/m);
  if (start >= 0) {
    try {
      return JSON.parse(stdout.slice(start));
    } catch {
      // fall through
    }
  }
  fail(`could not read the JSON that ${what} printed:\n${stdout.slice(0, 2000)}`);
}

// --- What happened -----------------------------------------------------------------------------------------------

const note = (line) => console.log(`  ${line}`);

// --- 1. The account ----------------------------------------------------------------------------------------------

const lines = createLineReader();

async function chooseAccount(config) {
  console.log(`Provisioning ${target} of ${configLabel} on Cloudflare.\n`);
  console.log("Account");
  const whoamiArgs = ["whoami", "--json"];
  const whoami = wrangler(whoamiArgs);
  const user = tryJson(whoami.stdout);
  if (user?.loggedIn === false || /not authenticated|wrangler login/i.test(whoami.output)) {
    fail("wrangler is not logged in: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then run this again.");
  }
  if (!whoami.ok || !user?.loggedIn) failed(whoamiArgs, whoami);
  const accounts = Array.isArray(user.accounts) ? user.accounts : [];
  const chosen = process.env.CLOUDFLARE_ACCOUNT_ID || config.account_id;
  if (chosen) {
    const account = accounts.find((a) => a.id === chosen);
    note(`account ${account ? `${account.name} (${chosen})` : chosen}, from ${process.env.CLOUDFLARE_ACCOUNT_ID ? "CLOUDFLARE_ACCOUNT_ID" : "account_id"}`);
    return;
  }
  if (accounts.length <= 1) {
    note(`account ${accounts[0] ? `${accounts[0].name} (${accounts[0].id})` : "(the only one)"}, logged in as ${user.email ?? user.authType ?? "?"}`);
    return;
  }
  const list = accounts.map((a, i) => `    ${i + 1}. ${a.name} (${a.id})`).join("\n");
  if (!interactive) {
    fail(`this login reaches ${accounts.length} accounts; choose one with CLOUDFLARE_ACCOUNT_ID=<id> (or account_id in ${configLabel}):\n${list}`);
  }
  console.log(`  This login reaches ${accounts.length} accounts:\n${list}`);
  for (;;) {
    const answer = await lines.ask(`  Which one (1-${accounts.length})? `);
    if (answer === null) fail("no account chosen");
    const account = accounts[Number(answer) - 1];
    if (account) {
      childEnv.CLOUDFLARE_ACCOUNT_ID = account.id;
      note(`account ${account.name} (${account.id}), chosen here (set CLOUDFLARE_ACCOUNT_ID=${account.id} for later wrangler commands)`);
      return;
    }
  }
}

function tryJson(text) {
  const start = text.search(/^\s*[[{]/m);
  try {
    return start >= 0 ? JSON.parse(text.slice(start)) : null;
  } catch {
    return null;
  }
}

// --- 2. The resources --------------------------------------------------------------------------------------------

function ensureDatabase(name) {
  const find = () => {
    const listed = parseJsonOutput(mustRun(["d1", "list", "--json"]).stdout, "`wrangler d1 list --json`");
    if (!Array.isArray(listed)) fail("`wrangler d1 list --json` did not print a list");
    return listed.find((db) => db?.name === name)?.uuid;
  };
  const existing = find();
  if (existing) {
    note(`D1 database ${name}: found (${existing})`);
    return existing;
  }
  const args = ["d1", "create", name];
  const created = wrangler(args);
  if (!created.ok && !/already exists/i.test(created.output)) failed(args, created);
  // The id is read back from the list (JSON) rather than from create's snippet, whose format follows the config's.
  const uuid = find() ?? /database_id"?\s*[=:]\s*"([0-9a-f-]{36})"/.exec(created.stdout)?.[1];
  if (!uuid) fail(`created the D1 database ${name}, but could not find its id:\n${created.output}`);
  note(`D1 database ${name}: ${created.ok ? "created" : "found"} (${uuid})`);
  return uuid;
}

function ensureBucket(name) {
  // `r2 bucket list` prints `name:` / `creation_date:` pairs (no JSON flag). It lists one page only, so a bucket
  // missing from it may still exist: create's "already exists" answer counts as found.
  const listed = mustRun(["r2", "bucket", "list"]).stdout;
  const names = [...listed.matchAll(/^\s*name:\s+(\S+)\s*$/gm)].map((m) => m[1]);
  if (names.includes(name)) {
    note(`R2 bucket ${name}: found`);
    return;
  }
  const args = ["r2", "bucket", "create", name];
  const created = wrangler(args);
  if (created.ok) note(`R2 bucket ${name}: created`);
  else if (/already exists|\[code: 10004\]/i.test(created.output)) note(`R2 bucket ${name}: found (not on the first page of the list)`);
  else failed(args, created);
}

function ensureQueue(name) {
  // `queues info` looks the queue up by name (no paging) and fails with `Queue "<name>" does not exist.` when absent.
  const infoArgs = ["queues", "info", name];
  const info = wrangler(infoArgs);
  if (info.ok) {
    note(`queue ${name}: found`);
    return;
  }
  if (!/does not exist/i.test(info.output)) failed(infoArgs, info);
  const args = ["queues", "create", name];
  const created = wrangler(args);
  if (created.ok) note(`queue ${name}: created`);
  else if (/already (?:exists|taken)/i.test(created.output)) note(`queue ${name}: found`);
  else failed(args, created);
}

// --- 3. wrangler.toml --------------------------------------------------------------------------------------------

/**
 * A rate-limit namespace id for one binding of one target: derived from the target's D1 database id (unique in the
 * account and per target) and the binding's name, so a rerun derives the same id and two targets never share a
 * counter. Ten digits, below 2^31, far from the small ids (1001, ...) that examples and other projects use.
 */
function derivedNamespaceId(databaseId, binding, attempt) {
  const digest = createHash("sha256").update(`${databaseId}:${binding}:${attempt}`).digest();
  return String(1_000_000_000 + (digest.readUInt32BE(0) % 1_000_000_000));
}

function updateConfig(databaseName, databaseId) {
  const before = readFileSync(options.config, "utf8");
  let text = before;
  const env = options.env;

  const database = { env, table: "d1_databases", matchKey: "binding", matchValue: "DB", key: "database_id", value: databaseId };
  text = setString(text, database);
  note(text === before ? `database_id of ${databaseName}: already in ${configLabel}` : `database_id of ${databaseName}: written to ${configLabel}`);

  // Replaced: placeholders, ids another target of the file uses (a copied section), and repeats within this target.
  const all = allNamespaceIds(text);
  const mine = all.filter((r) => r.env === env);
  const usedElsewhere = new Set(all.filter((r) => r.env !== env).map((r) => r.id));
  const taken = new Set(all.map((r) => r.id));
  const kept = new Set();
  const changed = [];
  for (const limiter of mine) {
    if (!limiter.name) continue;
    if (!PLACEHOLDER_NAMESPACE_IDS.has(limiter.id) && !usedElsewhere.has(limiter.id) && !kept.has(limiter.id)) {
      kept.add(limiter.id);
      continue;
    }
    let attempt = 0;
    let id = derivedNamespaceId(databaseId, limiter.name, attempt);
    while (taken.has(id)) id = derivedNamespaceId(databaseId, limiter.name, ++attempt);
    taken.add(id);
    text = setString(text, { env, table: "ratelimits", matchKey: "name", matchValue: limiter.name, key: "namespace_id", value: id });
    changed.push(`${limiter.name} ${limiter.id} -> ${id}`);
  }
  note(changed.length ? `rate-limit namespace ids: ${changed.join(", ")}` : "rate-limit namespace ids: already unique");

  if (text !== before) writeFileSync(options.config, text);
  else note(`${configLabel}: unchanged`);
}

// --- 4. and 5. Migrations and fonts ------------------------------------------------------------------------------

function applyMigrations() {
  const result = mustRun(["d1", "migrations", "apply", "DB", "--remote", ...envArgs(options.env)]);
  if (/No migrations to apply/i.test(result.stdout)) note("D1 migrations: none to apply");
  else {
    // wrangler prints the status table again after each migration, so the count comes from its announcement.
    const count = /About to apply (\d+) migration/.exec(result.stdout)?.[1];
    note(`D1 migrations: applied ${count ?? "the new ones"}`);
  }
}

function uploadFonts(bucket) {
  const run = spawnSync(process.execPath, [join(ROOT, "scripts", "upload-fonts.mjs"), "--remote", "--bucket", bucket, "--config", options.config], {
    cwd: ROOT,
    env: childEnv,
    encoding: "utf8",
  });
  if (run.status !== 0) fail(`uploading the e-ticket fonts failed:\n${stripAnsi(`${run.stdout ?? ""}${run.stderr ?? ""}`).trim()}`);
  note(
    `fonts: ${stripAnsi(run.stdout ?? "")
      .trim()
      .split("\n")
      .at(-1)}`,
  );
}

// --- 6. Secrets --------------------------------------------------------------------------------------------------

const randomSecret = () => randomBytes(32).toString("base64url");

function newSigningKeys() {
  const run = spawnSync(process.execPath, [join(ROOT, "scripts", "signing-key.mjs"), "k1"], { encoding: "utf8" });
  if (run.status !== 0) fail(`scripts/signing-key.mjs failed: ${run.stderr}`);
  return `[${run.stdout.trim()}]`;
}

/**
 * The secrets a deployment reads (README "Production secrets", src/config.ts): whether each is needed here, how to
 * check an answer, and what an empty answer does (generate, a default, or leave it unset).
 */
function secretSpecs(vars, routes) {
  const provider = vars.PAYMENT_PROVIDER;
  const stripeNeed = provider === "stripe" ? "required" : provider === undefined ? "if PAYMENT_PROVIDER is stripe" : "optional";
  const mollieNeed = provider === "mollie" ? "required" : provider === undefined ? "if PAYMENT_PROVIDER is mollie" : "optional";
  return [
    {
      name: "API_KEY",
      need: "required",
      about: "the key integrators send in X-EVT-API-KEY",
      generate: randomSecret,
      show: true,
      check: (v) => v.length >= 8 || "at least 8 characters",
    },
    {
      name: "PASSWORD_PEPPER",
      need: "required",
      about: "keys the stored application-password hashes; never change it once users exist",
      generate: randomSecret,
      show: true,
      check: (v) => v.length >= 16 || "at least 16 characters",
    },
    {
      name: "ADMIN_USERNAME",
      need: "required",
      about: "the bootstrap administrator, created by the first call that presents it",
      fallback: "admin",
      visible: true,
      check: (v) => /^[A-Za-z0-9._@+-]{1,60}$/.test(v) || "1-60 letters, digits and . _ @ + -",
    },
    {
      name: "ADMIN_PASSWORD",
      need: "required",
      about: "the bootstrap administrator's password",
      generate: randomSecret,
      show: true,
      check: (v) => v.length >= 8 || "at least 8 characters",
    },
    {
      name: "TICKET_SIGNING_KEYS",
      need: "required",
      about: "the Ed25519 key that signs ticket codes (a JSON array, docs/scanning.md)",
      generate: newSigningKeys,
      check: (v) => (v.trim().startsWith("[") && tryJson(v)?.[0]?.d !== undefined) || "a JSON array whose first key holds d (node scripts/signing-key.mjs k1)",
    },
    ...(provider === undefined
      ? [
          {
            name: "PAYMENT_PROVIDER",
            need: "required",
            about:
              "stripe, mollie, or test for a trial where nobody pays; unset, paid orders answer 503 (kept as a secret: the top-level [vars] are shared with local development)",
            visible: true,
            check: (v) => ["stripe", "mollie", "test"].includes(v) || "stripe, mollie or test",
          },
        ]
      : []),
    // Not secret, but kept with the secrets: the top level's [vars] are also local development's and the tests',
    // whose links must follow the request's host. An environment may set it in its [vars] instead (never both).
    ...(vars.PUBLIC_URL === undefined
      ? [
          {
            name: "PUBLIC_URL",
            need: "required",
            about: "the service's public origin, which links in emails and pages use (https://tickets.example.com, or https://<worker>.<subdomain>.workers.dev)",
            visible: true,
            given: options.publicUrl || customDomainOrigin(routes),
            fallback: customDomainOrigin(routes),
            normalise: (v) => v.replace(/\/+$/, ""),
            check: (v) => PUBLIC_ORIGIN.test(v) || "an https origin without a path, such as https://tickets.example.com",
          },
        ]
      : []),
    { name: "STRIPE_SECRET_KEY", need: stripeNeed, about: "Stripe's secret key (sk_live_... or, for staging, sk_test_...)" },
    { name: "STRIPE_WEBHOOK_SECRET", need: stripeNeed, about: "the signing secret of the Stripe webhook endpoint (whsec_...)" },
    {
      name: "MOLLIE_API_KEY",
      need: mollieNeed,
      about: "Mollie's API key of the website profile (live_... or, for staging, test_...; Mollie dashboard, Developers > API keys)",
      check: (v) => /^(test|live)_\w+$/.test(v) || "a Mollie API key (live_... or test_...)",
    },
    { name: "EMAIL_API_KEY", need: vars.EMAIL_PROVIDER === "resend" ? "required" : "optional", about: "Resend's API key, used with EMAIL_PROVIDER=resend" },
    { name: "ADMIN_EMAIL", need: "optional", about: "the bootstrap administrator's email", visible: true },
    { name: "RECAPTCHA_SECRET", need: "optional", about: "reCAPTCHA or Turnstile secret, for events that ask for a captcha" },
    // Google Wallet passes (decisions.md 15 "Wallet passes"; docs/wallet.md): both or neither.
    {
      name: "GOOGLE_WALLET_SERVICE_ACCOUNT",
      need: "optional",
      about: "Google Wallet: the JSON key of a Google Cloud service account with the Google Wallet API enabled, on one line (with GOOGLE_WALLET_ISSUER_ID)",
      check: (v) =>
        (typeof tryJson(v)?.client_email === "string" && /BEGIN PRIVATE KEY/.test(tryJson(v)?.private_key ?? "")) ||
        "the service account's JSON key (client_email, private_key)",
    },
    {
      name: "GOOGLE_WALLET_ISSUER_ID",
      need: "optional",
      about: "Google Wallet: the issuer id the Google Pay & Wallet Console shows (digits; with GOOGLE_WALLET_SERVICE_ACCOUNT)",
      visible: true,
      check: (v) => /^[0-9]{1,30}$/.test(v.trim()) || "the issuer id, digits",
    },
    // Apple Wallet passes (decisions.md 15 "Wallet passes", docs/wallet.md): all five or none. PEM texts span lines:
    // listed with how to put them from a file rather than asked for in the terminal.
    { name: "APPLE_PASS_CERT", need: "optional", about: "Apple Wallet: the pass certificate, PEM (put from the file: < pass-cert.pem); all five APPLE_ or none" },
    { name: "APPLE_PASS_KEY", need: "optional", about: "Apple Wallet: the pass certificate's private key, PEM PKCS#8 (< pass-key.pem)" },
    { name: "APPLE_WWDR_CERT", need: "optional", about: "Apple Wallet: Apple's WWDR G4 intermediate, PEM (< wwdr-g4.pem)" },
    { name: "APPLE_PASS_TYPE_ID", need: "optional", about: "Apple Wallet: the Pass Type ID (pass.com.example.tickets)" },
    { name: "APPLE_TEAM_ID", need: "optional", about: "Apple Wallet: the Apple Developer team id (10 characters)" },
  ];
}

/** `https://<host>` of the target's first custom domain (`routes = [{ pattern, custom_domain = true }]`), or "". */
function customDomainOrigin(routes) {
  const domain = (routes ?? []).find((r) => typeof r === "object" && r?.custom_domain && typeof r.pattern === "string");
  const origin = domain ? `https://${domain.pattern.replace(/\/.*$/, "")}` : "";
  return PUBLIC_ORIGIN.test(origin) ? origin : "";
}

function existingSecrets() {
  const args = ["secret", "list", ...envArgs(options.env)];
  const result = wrangler(args);
  if (!result.ok) {
    // Before the first deploy the Worker does not exist; `secret put` creates it (empty) to hold the secrets.
    if (/not found/i.test(result.output) && /Worker/i.test(result.output)) return new Set();
    failed(args, result);
  }
  const listed = parseJsonOutput(result.stdout, "`wrangler secret list`");
  if (!Array.isArray(listed)) fail("`wrangler secret list` did not print a list");
  return new Set(listed.map((s) => s?.name).filter(Boolean));
}

async function ensureSecrets(vars, routes) {
  if (vars.PUBLIC_URL !== undefined) {
    if (options.publicUrl && options.publicUrl !== vars.PUBLIC_URL) fail(`--public-url: PUBLIC_URL is ${vars.PUBLIC_URL} in the [vars] of ${target}; change it there`);
    note(`PUBLIC_URL: ${vars.PUBLIC_URL}, in [vars]`);
  }
  const existing = existingSecrets();
  const specs = secretSpecs(vars, routes);
  const present = specs.filter((s) => existing.has(s.name)).map((s) => s.name);
  if (present.length) note(`secrets already set: ${present.join(", ")}`);
  // A value given on the command line (or the custom domain) is stored without asking; --public-url replaces one.
  const put = (spec, value) => {
    mustRun(["secret", "put", spec.name, ...envArgs(options.env)], { input: value });
    note(`secret ${spec.name}: set${spec.visible ? ` to ${value}` : ""}`);
    existing.add(spec.name);
  };
  for (const spec of specs) {
    if (spec.given && (!existing.has(spec.name) || (spec.name === "PUBLIC_URL" && options.publicUrl))) put(spec, spec.given);
  }
  const missing = specs.filter((s) => !existing.has(s.name));

  const stillMissing = [];
  if (!interactive) {
    stillMissing.push(...missing);
  } else {
    // In the order of the list, so that the answer for PAYMENT_PROVIDER decides whether Stripe's or Mollie's keys are asked.
    let provider = vars.PAYMENT_PROVIDER;
    for (const spec of missing) {
      const required =
        spec.need === "required" || (spec.name.startsWith("STRIPE_") && provider === "stripe") || (spec.name.startsWith("MOLLIE_") && provider === "mollie");
      if (!required) {
        stillMissing.push(spec);
        continue;
      }
      const value = await askSecret(spec);
      if (value === null) {
        stillMissing.push(spec);
        continue;
      }
      if (spec.name === "PAYMENT_PROVIDER") provider = value;
      mustRun(["secret", "put", spec.name, ...envArgs(options.env)], { input: value });
      note(`secret ${spec.name}: set`);
    }
  }

  if (stillMissing.length === 0) {
    note("secrets: none missing");
    return;
  }
  const env = options.env ? ` --env ${options.env}` : "";
  const width = Math.max(...stillMissing.map((s) => s.name.length));
  const list = stillMissing.map((s) => `    ${s.name.padEnd(width)}  ${s.need}: ${s.about}`).join("\n");
  const required = stillMissing.filter((s) => s.need === "required").length;
  console.log(
    `\n  Secrets not set for ${target}${required ? ` (${required} required)` : ""}:\n${list}\n` +
      `  Set each with \`npx wrangler secret put NAME${env}\` (the value on standard input), or run this again in a terminal to be asked;\n` +
      (stillMissing.some((s) => s.name === "PUBLIC_URL") ? "  PUBLIC_URL also with --public-url https://<host>;\n" : "") +
      "  docs/deploy.md says how to generate them.",
  );
}

async function askSecret(spec) {
  const empty = spec.generate ? "empty: generate one" : spec.fallback ? `empty: ${spec.fallback}` : "empty: leave unset";
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = await lines.ask(`  ${spec.name} (${spec.about}; ${empty}): `, { hidden: !spec.visible });
    if (answer === null) return null;
    let value = spec.normalise ? spec.normalise(answer.trim()) : answer.trim();
    let generated = false;
    if (value === "") {
      if (spec.generate) {
        value = spec.generate();
        generated = true;
      } else if (spec.fallback) value = spec.fallback;
      else return null;
    }
    const verdict = spec.check ? spec.check(value) : true;
    if (verdict === true) {
      if (generated && spec.show) console.log(`    generated ${spec.name}: ${value}\n    (shown once: keep it in your password manager)`);
      else if (generated) console.log(`    generated ${spec.name}`);
      return value;
    }
    console.log(`    ${spec.name} must be ${verdict}`);
  }
  return null;
}

// --- Reading answers ---------------------------------------------------------------------------------------------

/**
 * One reader for the whole run (several readline interfaces on one piped stdin would lose buffered lines). In a
 * terminal, hidden answers are not echoed.
 */
function createLineReader() {
  let rl = null;
  let muted = false;
  const queue = [];
  const waiting = [];
  let closed = false;
  const start = () => {
    if (rl) return;
    rl = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
    const write = rl._writeToOutput?.bind(rl);
    if (write) {
      rl._writeToOutput = (chunk) => {
        if (!muted) write(chunk);
        else if (chunk.includes("\n")) write("\n");
      };
    }
    rl.on("line", (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else queue.push(line);
    });
    rl.on("SIGINT", () => {
      rl.close();
      process.stdout.write("\n");
      process.exit(130);
    });
    rl.on("close", () => {
      closed = true;
      for (const next of waiting.splice(0)) next(null);
    });
  };
  return {
    ask(question, { hidden = false } = {}) {
      start();
      process.stdout.write(question);
      muted = hidden && Boolean(process.stdin.isTTY);
      return new Promise((done) => {
        const finish = (line) => {
          muted = false;
          if (!process.stdin.isTTY) process.stdout.write("\n");
          done(line);
        };
        if (queue.length) finish(queue.shift());
        else if (closed) finish(null);
        else waiting.push(finish);
      });
    },
    close() {
      rl?.close();
    },
  };
}

// --- The run -----------------------------------------------------------------------------------------------------

async function main() {
  let config;
  try {
    config = await readTarget(options.config, options.env);
  } catch (err) {
    fail(`cannot read ${configLabel}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const database = config.d1_databases.find((d) => d.binding === "DB");
  const bucket = config.r2_buckets.find((b) => b.binding === "FILES")?.bucket_name;
  const queues = [
    ...new Set([...(config.queues.producers ?? []).map((p) => p.queue), ...(config.queues.consumers ?? []).flatMap((c) => [c.queue, c.dead_letter_queue])]),
  ].filter(Boolean);
  if (!database?.database_name || !bucket || queues.length === 0) {
    fail(`${target} of ${configLabel} lacks the D1 binding DB, the R2 binding FILES or its queues`);
  }

  await chooseAccount(config);

  console.log("\nResources");
  const databaseId = ensureDatabase(database.database_name);
  ensureBucket(bucket);
  for (const queue of queues) ensureQueue(queue);

  console.log(`\nConfiguration (${configLabel}, ${target})`);
  try {
    updateConfig(database.database_name, databaseId);
    const reread = await readTarget(options.config, options.env);
    const written = reread.d1_databases.find((d) => d.binding === "DB")?.database_id;
    if (written !== databaseId) throw new Error(`wrangler reads database_id ${written}, not ${databaseId}`);
  } catch (err) {
    fail(`updating ${configLabel}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (databaseId === ZERO_DATABASE_ID) fail("the database id is the zero placeholder");

  console.log("\nDatabase and files");
  applyMigrations();
  uploadFonts(bucket);

  console.log("\nSecrets");
  await ensureSecrets(config.vars ?? {}, config.routes);
  lines.close();

  const deploy = options.env ? `npm run deploy -- --env ${options.env}` : "npm run deploy";
  console.log(`\nDone: ${target} of ${configLabel} is provisioned. Next: \`${deploy}\`.`);
}

await main();
