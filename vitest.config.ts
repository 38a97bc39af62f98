import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { buildDoorApp } from "./scripts/build-door-app.mjs";

export default defineConfig(async () => {
  // wrangler.toml's [assets] directory must exist before the runtime starts; `npx vitest` alone builds it too.
  await buildDoorApp({ quiet: true });
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test credentials: independent of .dev.vars, which a fresh clone does not have.
          // Empty databases of their own for tests that migrate old rows (test/migrations), beside the shared DB: one
          // per test file, since each stops at another migration.
          d1Databases: ["MIGRATION_TEST_DB", "COUNTERS_MIGRATION_TEST_DB", "COUPONS_MIGRATION_TEST_DB", "CHECKOUT_MIGRATION_TEST_DB"],
          bindings: {
            TEST_MIGRATIONS: migrations,
            API_KEY: "test-api-key",
            ADMIN_USERNAME: "admin",
            ADMIN_PASSWORD: "test-admin-password",
            PASSWORD_PEPPER: "test-password-pepper",
            TIMEZONE: "Europe/Amsterdam",
            ALLOW_HTTP_OUTBOUND: "true",
            // The suite fires hundreds of orders and scans from one address; the rate-limit tests turn them on.
            RATE_LIMITS: "off",
            // Chosen explicitly, as .dev.vars.example does: unset, paid orders are refused (decisions.md 14).
            PAYMENT_PROVIDER: "test",
            // Test keys only: "test1" signs, "test0" (public part only) still verifies, as after a rotation.
            TICKET_SIGNING_KEYS: JSON.stringify([
              { kid: "test1", kty: "OKP", crv: "Ed25519", x: "i47PIKyVcqX3anh1qiVcsjHx-_wLmEbvXP-3Vus5p5g", d: "6wZKNQM8WVpzfOJAN4JrYkB1GkGG5Pg1EMhqJGH3JAM" },
              { kid: "test0", kty: "OKP", crv: "Ed25519", x: "HONqj1ir5o_jY-abaZV-rx5r6Iuz8NZD4krlYjbRlaM" },
            ]),
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/stubs/global-setup.ts"],
      // Two runtimes, each running its share of the files one at a time, kept between files: starting a runtime per
      // file cost more than the tests themselves (about 8 minutes against 4), and the tests mostly wait (on timers,
      // alarms, queues), so one runtime used about 0.7 of the two cores; two took the suite from 460 s to 250 s
      // here. Storage is shared by the files of a runtime: every test creates its own events, users and orders and
      // never assumes an empty table, and a file leaves no background work behind (scans.routes.test.ts).
      isolate: false,
      fileParallelism: true,
      maxWorkers: 2,
      // The concurrency tests fire a hundred requests at once; on a busy two-core machine that may take a while.
      testTimeout: 30_000,
      // The service's info lines (access log, sweeps) are its ordinary work and would drown the report; warnings and
      // errors still show. The suite's R2 holds no fonts (the fonts' own test, ticket-fonts.routes.test.ts, uploads
      // and asserts them), so every file that renders tickets would print the warning of a missing face; that test
      // captures it with expectLogged.
      onConsoleLog: (line: string) => !line.includes('"level":"info"') && !line.includes('"msg":"ticket font unavailable"'),
    },
  };
});
