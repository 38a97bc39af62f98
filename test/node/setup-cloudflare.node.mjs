// scripts/setup-cloudflare.mjs and scripts/deploy.mjs against the wrangler stub (test/stubs/wrangler-stub.mjs), in
// Node (not workerd): `npm run test:node`, part of `npm test`. Each test works on a copy of wrangler.toml (and the
// migrations next to it, where wrangler looks for them) in a temporary directory, with a stub account of its own;
// the real wrangler.toml is checked to be untouched at the end.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const STUB_BIN = join(ROOT, "test", "stubs", "bin");
const REAL_CONFIG = join(ROOT, "wrangler.toml");
const realConfigHash = createHash("sha256").update(readFileSync(REAL_CONFIG)).digest("hex");
const MIGRATIONS = readdirSync(join(ROOT, "migrations")).filter((f) => f.endsWith(".sql"));
const ZERO_ID = "00000000-0000-0000-0000-000000000000";
const REQUIRED_SECRETS = ["API_KEY", "PASSWORD_PEPPER", "ADMIN_USERNAME", "ADMIN_PASSWORD", "TICKET_SIGNING_KEYS"];

const dirs = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  assert.equal(createHash("sha256").update(readFileSync(REAL_CONFIG)).digest("hex"), realConfigHash, "the real wrangler.toml was changed");
});

/** A project copy and an empty stub account; `account` seeds the stub's state (logged out, several accounts). */
function project(account) {
  const dir = mkdtempSync(join(tmpdir(), "setup-cloudflare-"));
  dirs.push(dir);
  cpSync(REAL_CONFIG, join(dir, "wrangler.toml"));
  cpSync(join(ROOT, "migrations"), join(dir, "migrations"), { recursive: true });
  const p = { dir, config: join(dir, "wrangler.toml"), state: join(dir, "stub-state.json"), log: join(dir, "stub-calls.log") };
  if (account) writeFileSync(p.state, JSON.stringify(account));
  return p;
}

/** Runs a script of scripts/ with the stub first on PATH; standard input is a pipe (no terminal). */
function run(p, script, args, { input = "", env = {} } = {}) {
  const before = existsSync(p.log) ? readFileSync(p.log, "utf8").split("\n").filter(Boolean).length : 0;
  const result = spawnSync(process.execPath, [join(ROOT, "scripts", script), ...args], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    env: { ...process.env, ...env, PATH: `${STUB_BIN}${delimiter}${process.env.PATH ?? ""}`, WRANGLER_STUB_STATE: p.state, WRANGLER_STUB_LOG: p.log },
  });
  const calls = existsSync(p.log)
    ? readFileSync(p.log, "utf8")
        .split("\n")
        .filter(Boolean)
        .slice(before)
        .map((line) => JSON.parse(line))
    : [];
  return { ...result, calls, text: `${result.stdout}\n${result.stderr}` };
}

const setup = (p, args = [], options) => run(p, "setup-cloudflare.mjs", ["--config", p.config, ...args], options);
const state = (p) => JSON.parse(readFileSync(p.state, "utf8"));
/** A call's command and positionals: the words before its first flag (the scripts put flags last). */
const command = (call) => {
  const firstFlag = call.argv.findIndex((a) => a.startsWith("-"));
  return call.argv.slice(0, firstFlag < 0 ? undefined : firstFlag).join(" ");
};
const indexOf = (calls, prefix) => calls.findIndex((c) => command(c).startsWith(prefix));
const creates = (calls) => calls.filter((c) => / create /.test(` ${command(c)} `)).map(command);

function ok(result) {
  assert.equal(result.status, 0, `exit ${result.status}:\n${result.text}`);
  return result;
}

/** The string values of `key` in the array tables `[[name]]` of a TOML text, in order. */
function values(text, table, key) {
  const found = [];
  let inTable = false;
  for (const line of text.split("\n")) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$/.exec(line);
    if (header) inTable = header[1] === table;
    const entry = new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`).exec(line);
    if (inTable && entry) found.push(entry[1]);
  }
  return found;
}

describe("npm run setup:cloudflare", () => {
  test("a first run provisions everything in order and writes the ids into the copy; a second run changes nothing", () => {
    const p = project();
    const original = readFileSync(p.config, "utf8");
    const first = ok(setup(p, ["--yes"]));

    // Everything wrangler was asked, in order: resources, then the configuration (checked by the stub: migrations
    // read the database id from the copy), then migrations, fonts and secrets.
    assert.deepEqual(creates(first.calls), [
      "d1 create ticketing",
      "r2 bucket create ticketing-files",
      "queues create ticketing-jobs",
      "queues create ticketing-jobs-dlq",
    ]);
    const lastCreate = Math.max(...creates(first.calls).map((c) => indexOf(first.calls, c)));
    const migrations = indexOf(first.calls, "d1 migrations apply DB");
    const fonts = indexOf(first.calls, "r2 bulk put ticketing-files");
    const secrets = indexOf(first.calls, "secret list");
    assert.equal(indexOf(first.calls, "whoami"), 0);
    assert.ok(lastCreate < migrations && migrations < fonts && fonts < secrets, first.calls.map(command).join("\n"));
    for (const call of first.calls) assert.deepEqual(call.argv.slice(call.argv.indexOf("--config"), call.argv.indexOf("--config") + 2), ["--config", p.config]);
    for (const at of [migrations, secrets]) assert.ok(first.calls[at].argv.includes("--env="), "the top level is selected explicitly");
    assert.ok(first.calls[migrations].argv.includes("--remote"));

    // The account now holds all of it.
    const account = state(p);
    const db = account.d1.find((d) => d.name === "ticketing");
    assert.ok(db);
    assert.deepEqual(account.migrations[db.uuid], [...MIGRATIONS].sort());
    const bucket = account.r2.find((b) => b.name === "ticketing-files");
    assert.ok(Object.keys(bucket.objects).length > 10 && Object.keys(bucket.objects).every((k) => k.startsWith("fonts/")));
    assert.deepEqual(account.queues.map((q) => q.queue_name).sort(), ["ticketing-jobs", "ticketing-jobs-dlq"]);

    // The copy: the database id, and namespace ids unique and no longer the placeholders; nothing else changed.
    const written = readFileSync(p.config, "utf8");
    assert.deepEqual(values(written, "d1_databases", "database_id"), [db.uuid]);
    const ids = values(written, "ratelimits", "namespace_id");
    assert.equal(ids.length, 5);
    assert.equal(new Set(ids).size, 5);
    for (const id of ids) assert.match(id, /^[1-9]\d{9}$/);
    assert.ok(ids.every((id) => Number(id) < 2 ** 31));
    const changedLines = written.split("\n").filter((line, i) => line !== original.split("\n")[i]);
    assert.equal(changedLines.length, 6, changedLines.join("\n"));
    assert.deepEqual(values(written, "env.staging.d1_databases", "database_id"), [ZERO_ID], "the environments are left alone");

    // No terminal and --yes: the missing secrets are listed, not asked.
    for (const name of REQUIRED_SECRETS) assert.match(first.stdout, new RegExp(`^\\s+${name}\\s+required`, "m"));
    // The service's public address is required too (decisions.md 15): links in emails and pages use it.
    assert.match(first.stdout, /^\s+PUBLIC_URL\s+required/m);
    // Apple Wallet's settings are optional (decisions.md 15 "Wallet passes"): listed, never required.
    for (const name of ["APPLE_PASS_CERT", "APPLE_PASS_KEY", "APPLE_WWDR_CERT", "APPLE_PASS_TYPE_ID", "APPLE_TEAM_ID"]) {
      assert.match(first.stdout, new RegExp(`^\\s+${name}\\s+optional`, "m"));
    }
    assert.equal(indexOf(first.calls, "secret put"), -1);

    const second = ok(setup(p, ["--yes"]));
    assert.deepEqual(creates(second.calls), []);
    assert.equal(readFileSync(p.config, "utf8"), written, "the configuration is byte-identical");
    assert.match(second.stdout, /unchanged/);
    assert.match(second.stdout, /D1 migrations: none to apply/);
    assert.match(second.stdout, /D1 database ticketing: found/);
  });

  test("--env staging provisions the environment's own resources and touches only its section", () => {
    const p = project();
    ok(setup(p, ["--yes"]));
    const topLevel = readFileSync(p.config, "utf8");
    const staging = ok(setup(p, ["--env", "staging", "--yes"]));
    assert.deepEqual(creates(staging.calls), [
      "d1 create ticketing-staging",
      "r2 bucket create ticketing-files-staging",
      "queues create ticketing-jobs-staging",
      "queues create ticketing-jobs-dlq-staging",
    ]);
    for (const c of staging.calls.filter((c) => /^(d1 migrations|secret)/.test(command(c))))
      assert.deepEqual(c.argv.slice(c.argv.indexOf("--env"), c.argv.indexOf("--env") + 2), ["--env", "staging"]);
    const written = readFileSync(p.config, "utf8");
    const db = state(p).d1.find((d) => d.name === "ticketing-staging");
    assert.deepEqual(values(written, "env.staging.d1_databases", "database_id"), [db.uuid]);
    assert.deepEqual(values(written, "d1_databases", "database_id"), values(topLevel, "d1_databases", "database_id"));
    assert.deepEqual(values(written, "ratelimits", "namespace_id"), values(topLevel, "ratelimits", "namespace_id"));
    const stagingIds = values(written, "env.staging.ratelimits", "namespace_id");
    assert.equal(new Set([...stagingIds, ...values(written, "ratelimits", "namespace_id")]).size, 10, "no counter shared with the top level");
    assert.deepEqual(values(written, "env.production.ratelimits", "namespace_id"), ["1001", "1002", "1005", "1003", "1004"]);

    const again = ok(setup(p, ["--env", "staging", "--yes"]));
    assert.deepEqual(creates(again.calls), []);
    assert.equal(readFileSync(p.config, "utf8"), written);
  });

  test("asked (--interactive, answers on standard input), it generates and stores the missing secrets; then none are missing", () => {
    const p = project();
    // API_KEY, PASSWORD_PEPPER: generate; ADMIN_USERNAME: the default; ADMIN_PASSWORD, TICKET_SIGNING_KEYS: generate;
    // PAYMENT_PROVIDER (the top level has no such var): test, so Stripe's keys are not asked for; PUBLIC_URL: typed.
    const first = ok(setup(p, ["--interactive"], { input: "\n\n\n\n\ntest\nhttps://ticketing.example.workers.dev\n" }));
    const puts = first.calls.filter((c) => command(c).startsWith("secret put"));
    assert.deepEqual(
      puts.map((c) => c.argv[2]),
      [...REQUIRED_SECRETS, "PAYMENT_PROVIDER", "PUBLIC_URL"],
    );
    for (const put of puts) {
      assert.ok(put.argv.includes("--env="));
      assert.ok(put.stdinBytes > 0, `${put.argv[2]} was sent a value`);
    }
    const secrets = state(p).workers.ticketing.secrets;
    assert.ok(secrets.API_KEY.length >= 32);
    assert.ok(secrets.PASSWORD_PEPPER.length >= 32);
    assert.notEqual(secrets.API_KEY, secrets.PASSWORD_PEPPER);
    assert.equal(secrets.ADMIN_USERNAME, "admin");
    assert.equal(secrets.PAYMENT_PROVIDER, "test");
    assert.equal(secrets.PUBLIC_URL, "https://ticketing.example.workers.dev");
    const keys = JSON.parse(secrets.TICKET_SIGNING_KEYS);
    assert.equal(keys.length, 1);
    assert.equal(keys[0].kid, "k1");
    assert.match(keys[0].d, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(first.stdout.includes(`generated API_KEY: ${secrets.API_KEY}`), "a generated API key is shown once");
    assert.ok(!first.stdout.includes(keys[0].d), "the private signing key is not printed");

    const second = ok(setup(p, ["--interactive"], { input: "" }));
    assert.equal(indexOf(second.calls, "secret put"), -1, "secrets that exist are not asked again");
    assert.match(second.stdout, /secrets already set: API_KEY, PASSWORD_PEPPER, ADMIN_USERNAME, ADMIN_PASSWORD, TICKET_SIGNING_KEYS, PAYMENT_PROVIDER/);
    assert.doesNotMatch(second.stdout, /required\)/);
  });

  test("PAYMENT_PROVIDER mollie asks for MOLLIE_API_KEY (not Stripe's keys) and refuses a key that is not Mollie's", () => {
    const p = project();
    // The five generated or default secrets, mollie, PUBLIC_URL; then MOLLIE_API_KEY: a Stripe key first (refused), a
    // Mollie test key second.
    const first = ok(setup(p, ["--interactive"], { input: "\n\n\n\n\nmollie\nhttps://ticketing.example.workers.dev\nsk_test_x\ntest_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM\n" }));
    const puts = first.calls.filter((c) => command(c).startsWith("secret put")).map((c) => c.argv[2]);
    assert.deepEqual(puts, [...REQUIRED_SECRETS, "PAYMENT_PROVIDER", "PUBLIC_URL", "MOLLIE_API_KEY"]);
    assert.match(first.stdout, /MOLLIE_API_KEY must be a Mollie API key/);
    const secrets = state(p).workers.ticketing.secrets;
    assert.equal(secrets.PAYMENT_PROVIDER, "mollie");
    assert.equal(secrets.MOLLIE_API_KEY, "test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM");
    assert.ok(!first.stdout.includes("test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM"), "the key is not printed");
  });

  test("PUBLIC_URL (decisions.md 15): --public-url stores it, a custom domain gives it, an environment's [vars] hold it; a bad one is refused", () => {
    // Stored as a secret: the top level's [vars] are also local development's and the tests', whose links must
    // follow the request's host.
    const p = project();
    const given = ok(setup(p, ["--yes", "--public-url", "https://tickets.example.com/"]));
    assert.deepEqual(
      given.calls.filter((c) => command(c).startsWith("secret put")).map((c) => c.argv[2]),
      ["PUBLIC_URL"],
    );
    assert.equal(state(p).workers.ticketing.secrets.PUBLIC_URL, "https://tickets.example.com");
    assert.doesNotMatch(given.stdout, /^\s+PUBLIC_URL\s+required/m);
    assert.doesNotMatch(readFileSync(p.config, "utf8"), /^\s*PUBLIC_URL\s*=/m, "never in the shared [vars]");
    const again = ok(setup(p, ["--yes"]));
    assert.match(again.stdout, /secrets already set: .*PUBLIC_URL/);

    // Refused before anything is called: not an https origin.
    for (const bad of ["http://tickets.example.com", "https://tickets.example.com/shop", "tickets.example.com"]) {
      const refused = setup(project(), ["--yes", "--public-url", bad]);
      assert.equal(refused.status, 1, bad);
      assert.match(refused.stderr, /--public-url/);
      assert.deepEqual(refused.calls, []);
    }

    // A custom domain of the target is its address.
    const domain = project();
    const text = readFileSync(domain.config, "utf8");
    writeFileSync(
      domain.config,
      text.replace('# routes = [{ pattern = "tickets.example.com", custom_domain = true }]', 'routes = [{ pattern = "tickets.example.com", custom_domain = true }]'),
    );
    ok(setup(domain, ["--env", "production", "--yes"]));
    assert.equal(state(domain).workers["ticketing-production"].secrets.PUBLIC_URL, "https://tickets.example.com");

    // Set in the environment's [vars]: nothing to store, nothing missing.
    const vars = project();
    writeFileSync(vars.config, readFileSync(vars.config, "utf8").replace('# PUBLIC_URL = "https://tickets.example.com"', 'PUBLIC_URL = "https://tickets.example.com"'));
    const inVars = ok(setup(vars, ["--env", "production", "--yes"]));
    assert.equal(indexOf(inVars.calls, "secret put"), -1);
    assert.doesNotMatch(inVars.stdout, /^\s+PUBLIC_URL\s+required/m);
    assert.match(inVars.stdout, /PUBLIC_URL: https:\/\/tickets\.example\.com, in \[vars\]/);
  });

  test("without a login it stops before touching anything and says how to log in", () => {
    const p = project({ loggedIn: false, accounts: [] });
    const result = setup(p, ["--yes"]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /wrangler login/);
    assert.deepEqual(result.calls.map(command), ["whoami"]);
    assert.equal(readFileSync(p.config, "utf8"), readFileSync(REAL_CONFIG, "utf8"));
  });

  test("a login that reaches several accounts needs one chosen (CLOUDFLARE_ACCOUNT_ID)", () => {
    const accounts = [
      { id: "11111111111111111111111111111111", name: "Personal" },
      { id: "22222222222222222222222222222222", name: "Tickets Ltd" },
    ];
    const p = project({ loggedIn: true, email: "ops@example.com", accounts });
    const refused = setup(p, ["--yes"]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /CLOUDFLARE_ACCOUNT_ID/);
    assert.match(refused.stderr, /Tickets Ltd \(22222222222222222222222222222222\)/);
    assert.deepEqual(refused.calls.map(command), ["whoami"]);

    const chosen = ok(setup(p, ["--yes"], { env: { CLOUDFLARE_ACCOUNT_ID: accounts[1].id } }));
    assert.ok(chosen.calls.every((c) => c.account === accounts[1].id));
    assert.match(chosen.stdout, /account Tickets Ltd/);
  });

  test("an environment the file does not define is refused", () => {
    const p = project();
    const result = setup(p, ["--env", "qa", "--yes"]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /defines no \[env\.qa\]/);
    assert.deepEqual(result.calls, []);
  });
});

describe("npm run deploy", () => {
  test("on a fresh account it says to run setup:cloudflare first and calls nothing", () => {
    const p = project();
    const result = run(p, "deploy.mjs", ["--config", p.config]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /npm run setup:cloudflare/);
    assert.deepEqual(result.calls, []);
    const staging = run(p, "deploy.mjs", ["--config", p.config, "--env", "staging"]);
    assert.match(staging.stderr, /npm run setup:cloudflare -- --env staging/);
  });

  test("after setup it migrates, uploads the fonts and deploys the chosen target", () => {
    const p = project();
    ok(setup(p, ["--env", "production", "--yes"]));
    const result = ok(run(p, "deploy.mjs", ["--config", p.config, "--env", "production"]));
    assert.deepEqual(result.calls.map(command), ["d1 migrations apply DB", "r2 bulk put ticketing-files-production", "deploy"]);
    for (const c of [result.calls[0], result.calls[2]]) assert.deepEqual(c.argv.slice(c.argv.indexOf("--env"), c.argv.indexOf("--env") + 2), ["--env", "production"]);
    assert.equal(state(p).workers["ticketing-production"].deployed, true);
    assert.equal(state(p).workers.ticketing, undefined, "the top level was not deployed");
  });
});

describe("npm run dev: the local migrations (scripts/apply-local-migrations.mjs, run by scripts/prepare-dev.mjs)", () => {
  const apply = (p) => run(p, "apply-local-migrations.mjs", ["--config", p.config, "--persist-to", join(p.dir, "state")]);

  test("says in one line what it applied, and on a rerun that the database is up to date, never wrangler's table", () => {
    const p = project();
    const first = ok(apply(p));
    assert.equal(first.stdout, `D1 (local): ${MIGRATIONS.length} migrations applied (${MIGRATIONS.length} in all)\n`);
    assert.equal(first.stderr, "");
    assert.deepEqual(first.calls.map(command), ["d1 migrations apply DB"]);
    assert.ok(first.calls[0].argv.includes("--local"));
    assert.ok(!first.calls[0].argv.includes("--remote"));

    const second = ok(apply(p));
    assert.equal(second.stdout, `D1 (local): up to date (${MIGRATIONS.length} migrations)\n`);
    assert.equal(second.stderr, "");
  });

  test("when applying fails, prints wrangler's output in full and exits non-zero", () => {
    const p = project();
    writeFileSync(p.config, readFileSync(p.config, "utf8").replace('binding = "DB"', 'binding = "NOT_DB"'));
    const failed = apply(p);
    assert.equal(failed.status, 1);
    assert.match(failed.stdout, /wrangler 4\.156\.2/, "wrangler's own output is shown");
    assert.match(failed.stderr, /✘ \[ERROR\] Couldn't find a D1 DB with the name or binding 'DB'/);
    assert.match(failed.stderr, /D1 \(local\): applying the migrations failed \(wrangler exit 1\)/);
  });
});
