// `npm run deploy [-- --env staging|production] [--config PATH] [-- <more wrangler deploy flags>]`
//
// Deploys one target of wrangler.toml: the D1 migrations (`wrangler d1 migrations apply DB --remote`, which asks
// before applying unless CI is set), the e-ticket fonts into the target's bucket (scripts/upload-fonts.mjs), then
// `wrangler deploy`. All three get the same `--env` (the top level is `--env=`, as wrangler advises when
// environments exist) and `--config`, so a staging deploy never migrates the top level's database.
//
// Before anything it checks that the target has been provisioned: a database_id that is still the zero placeholder
// means a fresh account (or a fresh environment), and the answer is `npm run setup:cloudflare` rather than an API
// error from the middle of the deploy.
import { spawnSync } from "node:child_process";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { envArgs, PLACEHOLDER_NAMESPACE_IDS, readTarget, targetLabel, ZERO_DATABASE_ID } from "./wrangler-config.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = "usage: npm run deploy -- [--env staging|production] [--config PATH] [-- <wrangler deploy flags>]";

let env = "";
let config = join(ROOT, "wrangler.toml");
const extra = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === "--") extra.push(...argv.splice(i + 1));
  else if (arg === "--env" || arg === "-e") env = argv[++i] ?? "";
  else if (arg.startsWith("--env=")) env = arg.slice("--env=".length);
  else if (arg === "--config" || arg === "-c") config = resolve(argv[++i] ?? "");
  else if (arg.startsWith("--config=")) config = resolve(arg.slice("--config=".length));
  else if (arg === "--help" || arg === "-h") {
    console.log(USAGE);
    process.exit(0);
  } else extra.push(arg);
}

function fail(message) {
  console.error(`✘ ${message}`);
  process.exit(1);
}

if (Number(process.versions.node.split(".")[0]) < 22) fail(`wrangler needs Node 22 or later (this is ${process.version}): run \`npm run deploy\``);

let target;
try {
  target = await readTarget(config, env);
} catch (err) {
  fail(`cannot read ${config}: ${err instanceof Error ? err.message : String(err)}`);
}
const setup = env ? `npm run setup:cloudflare -- --env ${env}` : "npm run setup:cloudflare";
const database = target.d1_databases.find((d) => d.binding === "DB");
if (!database?.database_id || database.database_id === ZERO_DATABASE_ID) {
  fail(
    `${targetLabel(env)} of ${config} has no real D1 database yet (database_id is the placeholder ${ZERO_DATABASE_ID}).\n` +
      `  On a fresh account, run \`${setup}\` first: it creates the database, bucket and queues, writes their ids into\n` +
      "  wrangler.toml and sets the secrets (docs/deploy.md). Then run this again.",
  );
}
const placeholders = target.ratelimits.filter((r) => PLACEHOLDER_NAMESPACE_IDS.has(String(r.namespace_id)));
if (placeholders.length > 0) {
  console.warn(
    `▲ rate limits ${placeholders.map((r) => r.name).join(", ")} still use the placeholder namespace ids 1001-1005, which other Workers of the account may share: \`${setup}\` gives them ids of their own.`,
  );
}
const bucket = target.r2_buckets.find((b) => b.binding === "FILES")?.bucket_name;
if (!bucket) fail(`${targetLabel(env)} of ${config} binds no R2 bucket as FILES`);

const childEnv = { ...process.env, PATH: `${process.env.PATH ?? ""}${delimiter}${join(ROOT, "node_modules", ".bin")}` };
function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, env: childEnv, stdio: "inherit" });
  if (result.error) fail(`could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const configArgs = ["--config", config];
run("wrangler", ["d1", "migrations", "apply", "DB", "--remote", ...envArgs(env), ...configArgs]);
run(process.execPath, [join(ROOT, "scripts", "upload-fonts.mjs"), "--remote", "--bucket", bucket, ...configArgs]);
run(process.execPath, [join(ROOT, "scripts", "build-door-app.mjs")]);
run("wrangler", ["deploy", ...envArgs(env), ...configArgs, ...extra]);
