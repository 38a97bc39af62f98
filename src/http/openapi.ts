import type { Hono } from "hono";
import { z } from "zod";
import { API_BASE } from "../config";
import { NOTED_RESPONSES, OWN_BODIES } from "./openapi-responses";
import { alternativeSchemaOf, recordedSchemaOf, type RecordedSchema } from "./validate";

/**
 * The OpenAPI 3.1 document, generated from the app itself: every route Hono holds, with the schemas the validation
 * wrapper recorded on its middleware (zod 4's JSON Schema of what the route accepts). Nothing is written by hand
 * but the security schemes, the error envelope and which paths need which key, so the document cannot drift from
 * the routes. Responses are described as success or the error envelope (the service records no response schemas).
 */

type Json = Record<string, unknown>;

interface RouteEntry {
  method: string;
  path: string;
  handler: unknown;
}

/** Paths a browser or load balancer opens without a key (decisions.md 12). */
const PUBLIC = [
  /^\/ticketing\/v1\/?$/,
  /^\/ticketing\/v1\/(health|openapi\.json|docs)$/,
  /^\/ticketing\/v1\/tickets\//,
  /^\/ticketing\/v1\/invoices\//,
  /^\/ticketing\/v1\/orders\/confirm\//,
  /^\/ticketing\/v1\/orders\/\{[^}]+\}\/\{[^}]+\}\/status$/,
  /^\/ticketing\/v1\/pay\/test\//,
  /^\/ticketing\/v1\/payments\/stripe\//,
];

function security(path: string): Json[] {
  if (PUBLIC.some((p) => p.test(path))) return [];
  if (path.startsWith(`${API_BASE}/admin/`)) return [{ apiKey: [], basic: [] }];
  if (path.startsWith(`${API_BASE}/scans`) || path.startsWith(`${API_BASE}/scan-keys`)) return [{ scanKey: [] }];
  if (path.startsWith(`${API_BASE}/events/`)) return [{ apiKey: [] }, { orderingKey: [] }];
  return [{ apiKey: [] }];
}

/** The JSON Schema of what a zod schema accepts; parts JSON Schema cannot say (transforms, refinements) stay open. */
function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  return rest;
}

function parameters(recorded: RecordedSchema, location: "path" | "query"): Json[] {
  const schema = jsonSchema(recorded.schema);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({ name, in: location, required: location === "path" || required.has(name), schema: s }));
}

function formContent(recorded: RecordedSchema): Json {
  const schema = { schema: jsonSchema(recorded.schema) };
  return recorded.urlencoded ? { "multipart/form-data": schema, "application/x-www-form-urlencoded": schema } : { "multipart/form-data": schema };
}

const ERROR_ENVELOPE: Json = {
  type: "object",
  required: ["code", "message", "data"],
  properties: {
    code: { type: "string", description: "Stable machine-readable code, such as rest_invalid_param or order_stock_unavailable." },
    message: { type: "string" },
    data: {
      type: "object",
      required: ["status"],
      properties: { status: { type: "integer" }, params: { type: "object", additionalProperties: { type: "string" } } },
    },
  },
};

function operation(method: string, path: string, handlers: readonly unknown[]): Json {
  const params: Json[] = [];
  let body: Json | null = null;
  for (const handler of handlers) {
    const recorded = recordedSchemaOf(handler);
    if (!recorded) continue;
    if (recorded.target === "param") params.push(...parameters(recorded, "path"));
    else if (recorded.target === "query") params.push(...parameters(recorded, "query"));
    else if (recorded.target === "json") {
      const alternative = alternativeSchemaOf(handler);
      body = { "application/json": { schema: jsonSchema(recorded.schema) }, ...(alternative ? formContent(alternative) : {}) };
    } else body = formContent(recorded);
  }
  // Path parameters no validator names (none in this service today) still have to be declared.
  for (const name of path.match(/\{([^}]+)\}/g)?.map((m) => m.slice(1, -1)) ?? []) {
    if (!params.some((p) => p.in === "path" && p.name === name)) params.push({ name, in: "path", required: true, schema: { type: "string" } });
  }
  return {
    operationId: `${method.toLowerCase()}${path
      .replace(API_BASE, "")
      .replace(/[{}]/g, "")
      .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    tags: [
      path
        .replace(`${API_BASE}/`, "")
        .split("/")
        .slice(0, path.includes("/admin/") ? 2 : 1)
        .join("/") || "meta",
    ],
    security: security(path),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: { required: true, content: body } } : {}),
    responses: {
      "2XX": { description: "Success: the resource, list or report the interface describes (JSON unless a PDF or HTML page)." },
      ...notedResponses(method, path),
      default: { description: "An error, in the error envelope.", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    },
  };
}

function notedResponses(method: string, path: string): Record<string, Json> {
  const key = `${method.toLowerCase()} ${path}`;
  const envelope = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
  const inEnvelope = (status: string) => !status.startsWith("2") && !OWN_BODIES.has(key);
  return Object.fromEntries(
    Object.entries(NOTED_RESPONSES[key] ?? {}).map(([status, description]) => [status, inEnvelope(status) ? { description, content: envelope } : { description }]),
  );
}

/** `/a/:id/b` to `/a/{id}/b`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

/** The routes that answer requests (not middleware mounted with `use`), once each. */
// biome-ignore lint/suspicious/noExplicitAny: any app, whatever its bindings
export function answeringRoutes(app: Hono<any>): { method: string; path: string }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of app.routes as RouteEntry[]) {
    if (r.method === "ALL" || r.path.includes("*")) continue;
    const key = `${r.method} ${r.path}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ method: r.method, path: r.path });
    }
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: any app, whatever its bindings
export function openApiDocument(app: Hono<any>, serverUrl: string): Json {
  const byRoute = new Map<string, unknown[]>();
  for (const r of app.routes as RouteEntry[]) {
    if (r.method === "ALL" || r.path.includes("*")) continue;
    const key = `${r.method} ${r.path}`;
    byRoute.set(key, [...(byRoute.get(key) ?? []), r.handler]);
  }
  const paths: Record<string, Json> = {};
  for (const [key, handlers] of byRoute) {
    const [method, honoPath] = key.split(" ") as [string, string];
    const path = openApiPath(honoPath);
    paths[path] = { ...(paths[path] ?? {}), [method.toLowerCase()]: operation(method, path, handlers) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Ticketing API",
      version: "1.0.0",
      description: "Events, orders, e-tickets, scanning, webhooks and bulk actions. Generated from the running service's routes.",
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Error: ERROR_ENVELOPE },
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-EVT-API-KEY", description: "The service API key." },
        basic: { type: "http", scheme: "basic", description: "A user's name or email and an application password." },
        scanKey: { type: "apiKey", in: "header", name: "X-EVT-API-KEY", description: "A scan key of the event." },
        orderingKey: { type: "apiKey", in: "header", name: "X-EVT-API-KEY", description: "The publishable ordering key (shop fronts)." },
      },
    },
  };
}
