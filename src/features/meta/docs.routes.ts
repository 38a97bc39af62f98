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

/** The interface as a readable page, from the same document (no script, no assets from elsewhere). */
function docsPage(doc: Json): string {
  const operations: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = ((op.parameters ?? []) as Json[])
        .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in}${p.required ? ", required" : ""}) <code>${escapeHtml(JSON.stringify(p.schema))}</code></li>`)
        .join("");
      const body = op.requestBody
        ? Object.entries(op.requestBody.content as Record<string, Json>)
            .map(([type, c]) => `<details><summary>Body: ${escapeHtml(type)}</summary><pre>${escapeHtml(JSON.stringify(c.schema, null, 2))}</pre></details>`)
            .join("")
        : "";
      const auth = (op.security as Json[]).map((s) => Object.keys(s).join(" + ")).join(" or ") || "none";
      operations.push(
        `<section id="${escapeHtml(op.operationId)}"><h3><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3><p>Authentication: ${escapeHtml(auth)}</p>${params ? `<ul>${params}</ul>` : ""}${body}</section>`,
      );
    }
  }
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(doc.info.title)}</title><style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}section{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f6f6f6;padding:.5rem;overflow:auto}</style></head><body><h1>${escapeHtml(doc.info.title)}</h1><p>${escapeHtml(doc.info.description)} The machine-readable document: <a href="${API_BASE}/openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}). Errors answer <code>{code, message, data: {status, params?}}</code>.</p>${operations.join("")}</body></html>`;
}

/**
 * `GET /openapi.json` and `GET /docs` (public, decisions.md 12): the document of every route of `app`, made on
 * first use (all routes are registered by then) and kept per isolate and origin.
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
    .get("/docs", describeRoute(metaApi.docs), (c) => c.html(docsPage(documentFor(new URL(c.req.url).origin))));
}
