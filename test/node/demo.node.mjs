// `npm run demo -- --start` as a newcomer runs it (docs/quickstart.md): the script itself, against a `wrangler dev`
// of its own, must walk every step of docs/quickstart.md, say so, and print the shop link of the event it made. test/quickstart.test.ts checks the same steps'
// answers inside workerd and that the page shows them; this checks the script that prints them. About 10 s.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { DEMO_STEPS } = await import(join(ROOT, "scripts", "demo-steps.ts"));

test("npm run demo -- --start walks every quickstart step against a service of its own", () => {
  const run = spawnSync(process.execPath, [join(ROOT, "scripts", "demo.mjs"), "--start"], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  assert.equal(run.status, 0, `demo exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
  for (let n = 1; n <= DEMO_STEPS.length; n++) assert.match(run.stdout, new RegExp(`^${n}/${DEMO_STEPS.length} `, "m"), `step ${n} printed`);
  assert.match(run.stdout, /Every step answered as docs\/quickstart\.md says\./);
  // The shop link of the event it made, the page the public buys from (decisions.md 15 "The box office").
  assert.match(run.stdout, /^The event's shop page: http:\/\/[^\s/]+\/ticketing\/v1\/shop\/[1-9]\d*$/m);
});
