// wrangler.toml's environments, read as wrangler reads them, and the line editor of scripts/wrangler-config.mjs.
// Wrangler inherits no binding and no var into [env.*]: an environment that forgets one deploys without it. So each
// environment must bind everything the top level binds, configured alike, to resources of its own.
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { allNamespaceIds, envArgs, readTarget, setString, stringTables } from "../../scripts/wrangler-config.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CONFIG = join(ROOT, "wrangler.toml");
const ENVIRONMENTS = ["staging", "production"];

/** What must be alike between targets: the bindings and their settings, with resource names left out. */
function shape(config) {
  return {
    d1: config.d1_databases.map(({ binding, migrations_dir }) => ({ binding, migrations_dir })),
    r2: config.r2_buckets.map(({ binding }) => binding),
    durableObjects: config.durable_objects.bindings.map(({ name, class_name, script_name }) => ({ name, class_name, script_name })),
    producers: config.queues.producers.map(({ binding }) => binding),
    consumers: config.queues.consumers.map(({ queue, dead_letter_queue, ...settings }) => settings),
    ratelimits: config.ratelimits.map(({ name, simple }) => ({ name, simple })),
    // Set by the deployments only: the top level is also local development's and the tests' (no Stripe, no internet).
    varNames: Object.keys(config.vars).filter((v) => v !== "PAYMENT_PROVIDER" && v !== "OUTBOUND_DNS_URL"),
    migrations: config.migrations,
    triggers: config.triggers,
    limits: config.limits,
    observability: config.observability,
  };
}

/** The names of the account's resources a target uses. */
function resources(config) {
  return [
    config.name,
    ...config.d1_databases.map((d) => d.database_name),
    ...config.r2_buckets.map((b) => b.bucket_name),
    ...config.queues.producers.map((p) => p.queue),
    ...config.queues.consumers.flatMap((c) => [c.queue, c.dead_letter_queue].filter(Boolean)),
  ];
}

describe("wrangler.toml environments", async () => {
  const top = await readTarget(CONFIG, "");
  const targets = Object.fromEntries(await Promise.all(ENVIRONMENTS.map(async (env) => [env, await readTarget(CONFIG, env)])));

  test("the top level keeps what local development and the tests use", () => {
    assert.equal(top.name, "ticketing");
    assert.equal(top.d1_databases[0].database_name, "ticketing");
    assert.equal(top.r2_buckets[0].bucket_name, "ticketing-files");
    assert.equal(top.observability.enabled, true);
    assert.ok(top.limits.cpu_ms > 30_000 && top.limits.cpu_ms <= 300_000, "above the Paid default, within its maximum");
  });

  for (const env of ENVIRONMENTS) {
    test(`${env} binds everything the top level binds, configured alike`, () => {
      assert.deepEqual(shape(targets[env]), shape(top));
      assert.equal(targets[env].vars.PAYMENT_PROVIDER, "stripe");
      // Names in outbound URLs are resolved before each call (decisions.md 15, docs/platform.md "Outbound calls").
      assert.equal(targets[env].vars.OUTBOUND_DNS_URL, "https://cloudflare-dns.com/dns-query");
    });

    test(`${env} uses resources of its own`, () => {
      const mine = resources(targets[env]);
      const others = [top, ...ENVIRONMENTS.filter((e) => e !== env).map((e) => targets[e])].flatMap(resources);
      for (const name of mine) assert.ok(!others.includes(name), `${env} shares ${name}`);
      for (const name of mine) assert.ok(name.endsWith(`-${env}`), `${name} is named after ${env}`);
      const queues = targets[env].queues;
      for (const consumer of queues.consumers) {
        if (consumer.dead_letter_queue)
          assert.ok(
            queues.consumers.some((c) => c.queue === consumer.dead_letter_queue),
            "the dead letters have a consumer",
          );
      }
      assert.ok(
        queues.consumers.some((c) => c.queue === queues.producers[0].queue),
        "the jobs queue has a consumer",
      );
    });
  }

  test("readTarget refuses an environment the file does not define", async () => {
    await assert.rejects(readTarget(CONFIG, "qa"), /defines no \[env\.qa\]/);
  });

  test("the top level is selected with an empty --env", () => {
    assert.deepEqual(envArgs(""), ["--env="]);
    assert.deepEqual(envArgs("staging"), ["--env", "staging"]);
  });
});

describe("the wrangler.toml line editor", () => {
  const text = [
    'name = "w"',
    "",
    "[[d1_databases]]",
    'binding = "DB"',
    'database_id = "old" # kept comment',
    "",
    "[[ratelimits]]",
    'name = "A"',
    'namespace_id = "1001"',
    "",
    "[[env.staging.d1_databases]]",
    'binding = "DB"',
    'database_id = "old"',
    "",
    "[[env.staging.ratelimits]]",
    'name = "A"',
    'namespace_id = "1001"',
    "",
  ].join("\n");
  const db = (env, value) => ({ env, table: "d1_databases", matchKey: "binding", matchValue: "DB", key: "database_id", value });

  test("sets one value of one target and keeps the rest of the line and file", () => {
    const top = setString(text, db("", "new"));
    assert.equal(top, text.replace('database_id = "old" # kept comment', 'database_id = "new" # kept comment'));
    const staging = setString(text, db("staging", "new"));
    assert.deepEqual(stringTables(staging, "staging", "d1_databases"), [{ binding: "DB", database_id: "new" }]);
    assert.deepEqual(stringTables(staging, "", "d1_databases"), [{ binding: "DB", database_id: "old" }]);
  });

  test("answers the same text when the value is already there", () => {
    assert.equal(setString(text, db("", "old")), text);
  });

  test("keeps CRLF line ends", () => {
    const crlf = text.replaceAll("\n", "\r\n");
    assert.equal(
      setString(crlf, db("staging", "new")),
      crlf.replace('database_id = "old"\r\n\r\n[[env.staging.ratelimits]]', 'database_id = "new"\r\n\r\n[[env.staging.ratelimits]]'),
    );
  });

  test("refuses what it cannot find or write", () => {
    assert.throws(() => setString(text, db("production", "x")), /no \[\[env\.production\.d1_databases\]\]/);
    assert.throws(() => setString(text, { ...db("", "x"), key: "preview_database_id" }), /has no preview_database_id/);
    assert.throws(() => setString(text, db("", 'x" injected = "y')), /not a plain string/);
    assert.throws(() => setString(`${text}\n[[d1_databases]]\nbinding = "DB"\ndatabase_id = "2"\n`, db("", "x")), /2 entries/);
  });

  test("lists the namespace ids of every target", () => {
    assert.deepEqual(allNamespaceIds(text), [
      { env: "", name: "A", id: "1001" },
      { env: "staging", name: "A", id: "1001" },
    ]);
  });
});
