import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { metaApi } from "./meta.schema";
import examples from "./openapi-examples.json";
import { API_BASE } from "../../config";
import { openApiDocument } from "../../http/openapi";

// biome-ignore lint/suspicious/noExplicitAny: a JSON document built by hand
type Json = Record<string, any>;

/**
 * Scalar's API reference, pinned to one release: the page loads it from jsDelivr (the service serves no assets of
 * its own), then reads the document from `/openapi.json` on the same origin, where its "try it" calls go too.
 */
export const SCALAR_SCRIPT = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1";

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
    .get("/docs", describeRoute(metaApi.docs), Scalar({ url: `${API_BASE}/openapi.json`, pageTitle: "Ticketing API", cdn: SCALAR_SCRIPT }));
}
