declare namespace Cloudflare {
  interface Env {
    /** Set by vitest.config.ts from migrations/; applied in test/setup.ts. */
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}
