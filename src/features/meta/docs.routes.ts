import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { metaApi } from "./meta.schema";
import examples from "./openapi-examples.json";
import { API_BASE } from "../../config";
import { openApiDocument } from "../../http/openapi";
import { escapeHtml } from "../../lib/html";

// biome-ignore lint/suspicious/noExplicitAny: a JSON document built by hand
type Json = Record<string, any>;

/**
 * Scalar's API reference renderer: the standalone browser bundle of `@scalar/api-reference`, pinned in the lock
 * file and copied into the static assets at build time (scripts/build-door-app.mjs), so the page runs no script from
 * elsewhere and works with no internet beyond the service (decisions.md 15 "No third-party script on our origin").
 */
export const SCALAR_ASSET = `${API_BASE}/reference/scalar.js`;

/**
 * What Scalar is told, as data (a `data-configuration` attribute it reads itself): no fonts from Scalar's servers,
 * no telemetry, no AI agent; the document from `/openapi.json` on the same origin, where "try it" calls go too.
 */
const CONFIGURATION = { withDefaultFonts: false, telemetry: false, agent: { disabled: true }, showDeveloperTools: "never" };

/**
 * Scripts only from the service itself, and nothing inline (the configuration is JSON data, never run); Scalar's
 * own stylesheet is injected by its script, hence inline styles; calls only to the same origin.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ticketing API</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="${API_BASE}/openapi.json" data-configuration="${escapeHtml(JSON.stringify(CONFIGURATION))}"></script>
<script src="${SCALAR_ASSET}"></script>
</body>
</html>
`;

/**
 * `GET /openapi.json` and `GET /docs` (public, decisions.md 12): the document of every route of `app`, made on
 * first use (all routes are registered by then) and kept per isolate and origin, and the page that renders it.
 */
// biome-ignore lint/suspicious/noExplicitAny: any app, whatever its bindings
export function docsRoutes(app: Hono<any>) {
  const made = new Map<string, Json>();
  const documentFor = (origin: string) => {
    let doc = made.get(origin);
    if (!doc) made.set(origin, (doc = openApiDocument(app, origin, { examples })));
    return doc;
  };
  return new Hono<AppEnv>()
    .get("/openapi.json", describeRoute(metaApi.document), (c) => c.json(documentFor(new URL(c.req.url).origin)))
    .get("/docs", describeRoute(metaApi.docs), (c) =>
      c.html(PAGE, 200, { "Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff" }),
    );
}
