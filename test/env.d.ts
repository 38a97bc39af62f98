declare namespace Cloudflare {
  interface Env {
    /** Set by vitest.config.ts from migrations/; applied in test/setup.ts. */
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** An empty D1 database (vitest.config.ts) for tests that apply migrations to rows written before them. */
    MIGRATION_TEST_DB: D1Database;
    /** Another (test/migrations/report-counters.test.ts), since each such test stops at its own migration. */
    COUNTERS_MIGRATION_TEST_DB: D1Database;
    /** Another (test/migrations/coupon-owners.test.ts). */
    COUPONS_MIGRATION_TEST_DB: D1Database;
    /** And another (test/migrations/checkout-ids.test.ts). */
    CHECKOUT_MIGRATION_TEST_DB: D1Database;
  }
}

/** A file's text, imported as `<path>?raw` (vite): the tests that hold documents to the code read them this way. */
declare module "*?raw" {
  const text: string;
  export default text;
}

/** Files by path (vite's `import.meta.glob`): test/domain/error-codes.test.ts reads the sources this way. */
interface ImportMeta {
  glob(pattern: string, options: { query: "?raw"; import: "default"; eager: true }): Record<string, unknown>;
}
