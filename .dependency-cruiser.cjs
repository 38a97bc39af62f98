/**
 * The import rules of the layout (README "Where things are", docs/architecture.md). `npm test` runs them
 * (`npm run lint:deps`).
 *
 * From the bottom: lib/ (plain helpers), domain/ (pure rules), db/ (schema, rows, SQL helpers), config, platform/
 * (the seams over D1, R2, Durable Objects and Queues), http/ (the wire), pdf/ (rendering); the event object
 * decides from the domain alone. Features sit on all of that and import each other only downward in FEATURE_ORDER.
 * The entry files (index.ts, app.ts, queue.ts, cron.ts) sit on top and mount the features.
 */

/** Bottom first: a feature may import the features before it, never one after it. */
const FEATURE_ORDER = [
  "logs", // the service's log: written by everything below the features' routes
  "messaging", // the email outbox and webhook deliveries every change reports through
  "catalogue", // events, ticket types, input fields, scan keys, the event object's configuration
  "files", // PDF templates and email lists
  "coupons",
  "tickets", // ticket rows, personalisation, PDFs and invoices
  "ordering", // orders, stock and the event objects' view of them
  "payments", // providers, payment completion, refunds
  "checkout", // the customer's order, confirmation, order form and status
  "waiting-list", // who waits for a sold-out type, and the offers their event's object makes
  "shop", // the box office: shop and order pages rendered by the Worker
  "scanning",
  "reports",
  "users", // users, application passwords, authentication
  "meta", // health, OpenAPI document
];

const valueOnly = { dependencyTypesNot: ["type-only"] };
const ENTRY = "^src/(index|app|queue|cron)\\.ts$";

const featureOrder = FEATURE_ORDER.map((feature, i) => ({
  name: `feature-order-${feature}`,
  comment: `features/${feature} imports only the features before it: ${FEATURE_ORDER.slice(0, i).join(", ") || "none"}.`,
  severity: "error",
  from: { path: `^src/features/${feature}/` },
  to: { path: `^src/features/(${FEATURE_ORDER.slice(i + 1).join("|") || "-"})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No module reaches itself again through value imports (type-only imports are erased at build).",
      severity: "error",
      from: {},
      to: { circular: true, ...valueOnly, viaOnly: valueOnly },
    },
    {
      name: "feature-in-order",
      comment: "Every feature folder has its place in FEATURE_ORDER (.dependency-cruiser.cjs).",
      severity: "error",
      from: { path: "^src/features/", pathNot: `^src/features/(${FEATURE_ORDER.join("|")})/` },
      to: {},
    },
    {
      name: "feature-in-order-imported",
      comment: "Every feature folder has its place in FEATURE_ORDER (.dependency-cruiser.cjs).",
      severity: "error",
      from: {},
      to: { path: "^src/features/", pathNot: `^src/features/(${FEATURE_ORDER.join("|")})/` },
    },
    ...featureOrder,
    {
      name: "domain-is-pure",
      comment: "domain/ holds plain rules: it imports only lib/, db types, zod and itself (no Hono, no Drizzle, no Deps).",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { pathNot: ["^src/domain/", "^src/lib/", "^src/db/(rows|schema)\\.ts$", "zod"], ...valueOnly },
    },
    {
      name: "domain-types-only-from-db",
      comment: "domain/ may name db types, never use db at run time.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^src/db/", ...valueOnly },
    },
    {
      name: "event-object-decides-alone",
      comment:
        "event-object/ decides from its own state: domain/, lib/, the order statuses and itself. One D1 read is its own: the alarm asks D1 for the orders of its holds (db/orders-of-holds.ts), typed from db/schema.ts so a renamed column fails the type check, not the alarm. What it sends to the jobs queue (scans.record, order.expire) it builds with platform/messages.ts and sends through platform/job-queue.ts, like every other sender, so each body is built by one module (docs/architecture.md).",
      severity: "error",
      from: { path: "^src/event-object/" },
      to: {
        pathNot: [
          "^src/event-object/",
          "^src/domain/",
          "^src/lib/",
          "^src/db/(order-status|orders-of-holds)\\.ts$",
          "^src/platform/(messages|job-queue)\\.ts$",
          "^src/env\\.ts$",
          "^cloudflare:",
        ],
        ...valueOnly,
      },
    },
    {
      name: "lib-is-plain",
      comment: "lib/ is plain helpers: it imports only itself (and types of db rows it formats).",
      severity: "error",
      from: { path: "^src/lib/" },
      to: { path: "^src/", pathNot: "^src/lib/", ...valueOnly },
    },
    {
      name: "lower-layers-never-import-upward",
      comment: "lib/, domain/, db/, platform/, http/, pdf/ and event-object/ never import a feature or an entry file.",
      severity: "error",
      from: { path: "^src/(lib|domain|db|platform|http|pdf|event-object)/" },
      to: { path: ["^src/features/", ENTRY] },
    },
    {
      name: "db-below-platform",
      comment: "db/ knows tables and SQL only: no platform, wire, rendering or event object.",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/(platform|http|pdf|event-object)/", ...valueOnly },
    },
    {
      name: "platform-below-http",
      comment: "platform/ is the seams, not the wire: it never imports http/ or pdf/.",
      severity: "error",
      from: { path: "^src/platform/" },
      to: { path: "^src/(http|pdf)/", ...valueOnly },
    },
    {
      name: "door-app-in-the-browser",
      comment:
        "door-app/ runs in a door phone's browser: it imports only itself, the pure rules it shares with the event object (domain/), plain helpers (lib/) and its QR decoder.",
      severity: "error",
      from: { path: "^src/door-app/" },
      to: { pathNot: ["^src/door-app/", "^src/domain/", "^src/lib/", "barcode-detector"], ...valueOnly },
    },
    {
      name: "nothing-imports-door-app",
      comment: "The Worker never runs the door app's code: it serves its built files as static assets.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/door-app/" },
      to: { path: "^src/door-app/" },
    },
    {
      name: "console-app-in-the-browser",
      comment:
        "console-app/ runs in an organiser's browser and reaches the service only through the admin API: it imports itself, domain/, lib/, Hono's JSX for the DOM and openapi-fetch.",
      severity: "error",
      from: { path: "^src/console-app/" },
      to: { pathNot: ["^src/console-app/", "^src/domain/", "^src/lib/", "hono/(dist/)?jsx", "openapi-fetch"], ...valueOnly },
    },
    {
      name: "nothing-imports-console-app",
      comment: "The Worker never runs the console's code: it serves its built files as static assets.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/console-app/" },
      to: { path: "^src/console-app/", ...valueOnly },
    },
    {
      name: "features-never-import-entries",
      comment: "Only the entry files mount features; a feature never imports them.",
      severity: "error",
      from: { path: "^src/features/" },
      to: { path: ENTRY },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|test)/" },
  },
};
