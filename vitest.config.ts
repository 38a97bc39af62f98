import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test credentials: independent of .dev.vars, which a fresh clone does not have.
          bindings: {
            TEST_MIGRATIONS: migrations,
            API_KEY: "test-api-key",
            ADMIN_USERNAME: "admin",
            ADMIN_PASSWORD: "test-admin-password",
            PASSWORD_PEPPER: "test-password-pepper",
            TIMEZONE: "Europe/Amsterdam",
            ALLOW_HTTP_OUTBOUND: "true",
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/stubs/global-setup.ts"],
      // Access-log lines would drown the report; warnings and errors still show.
      onConsoleLog: (line: string) => !line.includes('"msg":"request"'),
    },
  };
});
