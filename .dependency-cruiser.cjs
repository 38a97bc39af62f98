/**
 * The import rules of the layout (ENGINEERING.md, issue 19): a domain at the bottom, the platform and the wire above
 * it, the event object on the domain alone. `npm test` runs them (`npm run lint:deps`). Rules for features come
 * with the features folders.
 */
module.exports = {
  forbidden: [
    {
      name: "domain-is-pure",
      comment: "domain/ holds plain rules: it imports only lib/, db types, zod and itself (no Hono, no Drizzle, no Deps).",
      severity: "error",
      from: { path: "^src/domain/" },
      to: {
        pathNot: ["^src/domain/", "^src/lib/", "^src/db/(rows|schema)\\.ts$", "zod"],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "domain-types-only-from-db",
      comment: "domain/ may name db types, never use db at run time.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^src/db/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "event-object-decides-alone",
      comment: "event-object/ decides from its own state: domain/, lib/, the order statuses and itself.",
      severity: "error",
      from: { path: "^src/event-object/" },
      to: {
        pathNot: ["^src/event-object/", "^src/domain/", "^src/lib/", "^src/db/order-status\\.ts$", "^src/env\\.ts$", "^cloudflare:"],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "lower-layers-never-import-upward",
      comment: "domain/, lib/, platform/ and http/ never import routes/, services/, schemas/, queues/ or features/.",
      severity: "error",
      from: { path: "^src/(domain|lib|platform|http)/" },
      to: { path: "^src/(routes|services|schemas|queues|scheduled|features)/", dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|test)/" },
  },
};
