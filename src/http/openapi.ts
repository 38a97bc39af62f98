import type { Hono } from "hono";
import { z } from "zod";
import { API_BASE } from "../config";
import { invalidIdCode } from "../domain/error-codes";
import { NOTED_RESPONSES } from "./openapi-responses";
import { type Failure, type MiddlewareDoc, middlewareDocOf, type RequestHeader, type ResponseHeader, type RouteDoc, routeDocOf, type Success } from "./route-docs";
import { alternativeSchemaOf, recordedSchemaOf, type RecordedSchema } from "./validate";

/**
 * The OpenAPI 3.1 document, generated from the app itself: every route Hono holds, with the schemas the validation
 * wrapper recorded on its middleware (zod 4's JSON Schema of what the route accepts), the documentation each route
 * carries (`describeRoute`: summary, description, the success answer's schema, its own failures) and what the
 * middleware before it adds (`documented`: keys, logins, rate limits, idempotency). Nothing is written by hand but the
 * security schemes, the error envelope and which paths need which key. Success examples are real answers, captured
 * by test/features/meta/openapi-answers.test.ts and handed in by the caller.
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
  /^\/ticketing\/v1\/payments\/mollie\//,
  /^\/ticketing\/v1\/console\/session$/,
];

function security(path: string): Json[] {
  if (PUBLIC.some((p) => p.test(path))) return [];
  // Either the key with Basic credentials, or the console's session cookie with its CSRF header (decisions.md 15).
  if (path.startsWith(`${API_BASE}/admin/`))
    return [
      { apiKey: [], basic: [] },
      { consoleSession: [], consoleCsrf: [] },
    ];
  if (path.startsWith(`${API_BASE}/scans`) || path.startsWith(`${API_BASE}/scan-keys`)) return [{ scanKey: [] }];
  if (path.startsWith(`${API_BASE}/events/`)) return [{ apiKey: [] }, { orderingKey: [] }];
  return [{ apiKey: [] }];
}

/** The JSON Schema of what a zod schema accepts; parts JSON Schema cannot say (transforms, refinements) stay open. */
function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  return rest;
}

/**
 * The JSON Schema of what a response schema gives (zod's output side). Named schemas (`named()`) go to
 * `components.schemas` once and are referred to from here.
 */
function responseSchema(schema: z.ZodType, components: Record<string, Json>): Json {
  const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json;
  for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
    const ref = toComponentRefs(def) as Json;
    if (components[name] && JSON.stringify(components[name]) !== JSON.stringify(ref)) throw new Error(`Two response schemas are named ${name}`);
    components[name] = ref;
  }
  return toComponentRefs(rest) as Json;
}

function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? v.replace("#/$defs/", "#/components/schemas/") : toComponentRefs(v)]),
  );
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

/**
 * The tags, declared once with what they group: an operation's tag is its path's first segment (two under `/admin/`),
 * the meta routes share one. Generated clients group their functions by tag; the builder refuses a tag not listed here.
 */
const TAGS: Readonly<Record<string, string>> = {
  meta: "The service's name, readiness check, this document and its rendered page; no key.",
  orders: "A customer's view of an order: confirming an RSVP booking and its status, by the order's capability.",
  pay: "The no-money test provider's checkout page (`PAYMENT_PROVIDER=test`).",
  tickets: "An order's e-tickets: download and personalisation, by the order's capability.",
  invoices: "An order's invoice, by the order's capability.",
  payments: "Notices from the payment provider: Stripe's, signed by it; Mollie's, which name a payment that is then fetched from Mollie.",
  scans: "Door scanning with a scan key: scan a ticket, its history, the offline list of valid and revoked tickets.",
  "scan-keys": "What a door phone keeps: the keys that verify signed ticket codes and its own key's settings.",
  shop: "The box office: an event's shop page and its form post, and an order's page; HTML, no key.",
  events: "A shop front's calls with the ordering key: an event's order form and placing a customer order.",
  console: "The organiser console's browser session: sign in with an application password, sign out; no key.",
  "admin/users": "Users and their application passwords (administrators).",
  "admin/events": "Events and their ticket types, input fields, scan keys, sales and scan reports.",
  "admin/pdf-templates": "PDF templates for tickets and invoices.",
  "admin/emaillists": "An event's email list (name, email, cap per address), uploaded as CSV.",
  "admin/logs": "The business log: entries on orders, payments, emails, webhooks and dropped queue messages.",
  "admin/orders": "Orders: listing, dashboard orders, changes, deletion and refunds.",
  "admin/tickets": "An order's tickets: read, issue again, delete.",
  "admin/coupons": "Coupons, their counters and bulk coupon emails.",
  "admin/bulk": "Bulk actions over selected orders: refunds and the order email again.",
  "admin/webhooks": "Webhooks, their counters, pings and deliveries.",
  "admin/emails": "The outbox: the emails the service sent or will send.",
};

const META_PATHS = new Set([API_BASE, `${API_BASE}/health`, `${API_BASE}/openapi.json`, `${API_BASE}/docs`]);

function tagOf(path: string): string {
  if (META_PATHS.has(path)) return "meta";
  return path
    .replace(`${API_BASE}/`, "")
    .split("/")
    .slice(0, path.includes("/admin/") ? 2 : 1)
    .join("/");
}

/** Said wherever `_fields` narrows an answer (http/fields.ts), so a validator of real traffic expects a subset. */
const FIELDS_SUBSET = "only the named fields are present, so the schema's required properties hold only for an answer without `_fields`";

const FIELDS_PARAMETER: Json = {
  name: "_fields",
  in: "query",
  required: false,
  description: `Comma-separated names of top-level fields to answer (of each item, in a collection): ${FIELDS_SUBSET}. \`_links\` stays only when named, \`_embedded\` when named or when \`_embed\` asks for it; unknown names are ignored.`,
  schema: { type: "string" },
};

/** Lower camel case: a name a generated client can use as it is. */
const OPERATION_ID = /^[a-z][a-zA-Z0-9]*$/;

const ENVELOPE: Json = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

/** Response headers, declared once (components.headers) and referred to. */
const HEADERS: Record<ResponseHeader, Json> = {
  Location: { description: "The absolute address of the resource (or of the page redirected to).", required: true, schema: { type: "string" } },
  "X-WP-Total": { description: "How many rows the collection holds in all pages.", required: true, schema: { type: "integer", minimum: 0 } },
  "X-WP-TotalPages": { description: "How many pages of `per_page` rows that is.", required: true, schema: { type: "integer", minimum: 0 } },
  Link: {
    description: 'The neighbouring pages, absolute, keeping every other query parameter: `<...>; rel="prev", <...>; rel="next"` (either may be missing).',
    required: false,
    schema: { type: "string" },
  },
  "Content-Disposition": { description: 'How the file is named: `inline; filename="..."`.', required: true, schema: { type: "string" } },
  "Retry-After": { description: "Seconds until the limit's window turns.", required: true, schema: { type: "integer", minimum: 0 } },
  "WWW-Authenticate": { description: '`Basic realm="ticketing"` when Basic credentials are missing or wrong.', required: false, schema: { type: "string" } },
  ETag: {
    description: "A weak tag of this answer's version; send it back in `If-None-Match` to be answered `304` while it holds.",
    required: true,
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true`: this answer is the one given to an earlier request with the same `Idempotency-Key`.",
    required: false,
    schema: { type: "string", enum: ["true"] },
  },
};

const headerRefs = (names: readonly ResponseHeader[]): Json | undefined =>
  names.length === 0 ? undefined : Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

interface Chain {
  /** The route's own handlers, in order. */
  own: unknown[];
  /** Middleware mounted with `use` that runs before the route's handler. */
  before: unknown[];
}

function successResponse(success: Success, extraHeaders: readonly ResponseHeader[], example: unknown, components: Record<string, Json>): Record<string, Json> {
  const headers = (names: readonly ResponseHeader[]) => headerRefs([...new Set([...names, ...extraHeaders])]);
  switch (success.kind) {
    case "json": {
      const media: Json = { schema: responseSchema(success.schema, components) };
      if (example !== undefined) media.example = example;
      return { [success.status]: { description: success.description, headers: headers(success.headers), content: { "application/json": media } } };
    }
    case "pdf":
      return {
        "200": {
          description: success.description,
          headers: headers(["Content-Disposition"]),
          content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
        },
      };
    case "image":
      return {
        "200": {
          description: success.description,
          headers: headers(["Content-Disposition"]),
          // SVG is text; other images are bytes.
          content: Object.fromEntries(
            success.mediaTypes.map((type) => [type, { schema: type === "image/svg+xml" ? { type: "string" } : { type: "string", format: "binary" } }]),
          ),
        },
      };
    case "html":
      return { "200": { description: success.description, headers: headers([]), content: { "text/html": { schema: { type: "string" } } } } };
    case "csv":
      return { "200": { description: success.description, headers: headers(["Content-Disposition"]), content: { "text/csv": { schema: { type: "string" } } } } };
    case "file":
      return {
        "200": {
          description: success.description,
          headers: headers(["Content-Disposition"]),
          content: { [success.mediaType]: { schema: { type: "string", format: "binary" } } },
        },
      };
    case "redirect":
      return { [success.status]: { description: success.description, headers: headers(["Location"]) } };
  }
}

/** The failures a route can answer: from its validators, the middleware before it, its own documentation, then the noted rules. */
function failures(key: string, chain: Chain, docs: MiddlewareDoc[], routeDoc: RouteDoc | undefined, components: Record<string, Json>): Record<string, Json> {
  const described = new Map<string, string[]>();
  const add = (status: string, description: string) => {
    const list = described.get(status) ?? [];
    if (!list.includes(description)) list.push(description);
    described.set(status, list);
  };
  for (const handler of chain.own) {
    const recorded = recordedSchemaOf(handler);
    if (!recorded) continue;
    if (recorded.target === "param") {
      for (const [name, resource] of Object.entries(recorded.resources ?? {})) {
        const what = name === "id" ? "this id" : `this \`${name}\``;
        add("404", `\`${invalidIdCode(resource)}\`: no ${resource.replace(/_/g, " ")} has ${what}${routeIsAdmin(key) ? " (or none the user may see)" : ""}.`);
      }
    } else {
      add(
        "400",
        `\`rest_invalid_param\` or \`rest_missing_callback_param\`: a ${recorded.target === "query" ? "query parameter" : "field"} is invalid or missing; \`data.params\` names each one.`,
      );
      if (recorded.target !== "query") {
        if (recorded.target === "json") add("400", "`rest_invalid_json`: the body is not JSON.");
        add("413", "`rest_payload_too_large`: the body is over the limit (1 MiB; uploads 10 MiB).");
        add("415", `\`rest_unsupported_media_type\`: the body is not ${recorded.target === "json" ? "`application/json`" : "`multipart/form-data`"}.`);
      }
    }
  }
  for (const doc of docs) for (const [status, description] of Object.entries(doc.errors ?? {})) add(status, description);
  const ownBodies = new Map<string, z.ZodType>();
  for (const [status, failure] of Object.entries(routeDoc?.errors ?? {}) as [string, Failure][]) {
    if (typeof failure === "string") add(status, failure);
    else {
      add(status, failure.description);
      ownBodies.set(status, failure.schema);
    }
  }
  const noted = NOTED_RESPONSES[key] ?? {};
  const out: Record<string, Json> = {};
  for (const status of [...new Set([...described.keys(), ...Object.keys(noted)])].sort()) {
    if (status.startsWith("2")) continue;
    const headerNames = [...new Set([...docs.flatMap((d) => d.errorHeaders?.[status] ?? []), ...(routeDoc?.errorHeaders?.[status] ?? [])])];
    const own = ownBodies.get(status);
    out[status] = {
      description: noted[status] ?? described.get(status)!.join("\n\n"),
      ...(headerNames.length > 0 ? { headers: headerRefs(headerNames) } : {}),
      content: own ? { "application/json": { schema: responseSchema(own, components) } } : ENVELOPE,
    };
  }
  return out;
}

const routeIsAdmin = (key: string) => key.includes(`${API_BASE}/admin/`);

function headerParameters(docs: MiddlewareDoc[], routeDoc: RouteDoc | undefined): Json[] {
  const all: Record<string, RequestHeader> = {};
  for (const doc of docs) Object.assign(all, doc.headers ?? {});
  Object.assign(all, routeDoc?.headers ?? {});
  return Object.entries(all).map(([name, h]) => ({ name, in: "header", required: h.required, description: h.description, schema: h.schema }));
}

function operation(method: string, path: string, chain: Chain, examples: Readonly<Record<string, unknown>>, components: Record<string, Json>): Json {
  const key = `${method.toLowerCase()} ${path}`;
  const params: Json[] = [];
  let body: Json | null = null;
  let described: RouteDoc | undefined;
  for (const handler of chain.own) {
    described ??= routeDocOf(handler);
    const recorded = recordedSchemaOf(handler);
    if (!recorded) continue;
    if (recorded.target === "param") params.push(...parameters(recorded, "path"));
    else if (recorded.target === "query") params.push(...parameters(recorded, "query"));
    else if (recorded.target === "json") {
      const alternative = alternativeSchemaOf(handler);
      body = { "application/json": { schema: jsonSchema(recorded.schema) }, ...(alternative ? formContent(alternative) : {}) };
    } else body = formContent(recorded);
  }
  // Every operation carries a deliberate name: a generated client's function is called after it.
  if (!described?.operationId) throw new Error(`${method} ${path} has no operationId: describe it with describeRoute({ operationId, ... })`);
  const routeDoc = described;
  if (!OPERATION_ID.test(routeDoc.operationId)) throw new Error(`${method} ${path}: operationId ${routeDoc.operationId} is not lowerCamelCase`);
  // `_fields` narrows what a GET answers through http/respond.ts (every JSON answer but those written whole).
  const narrows = method === "GET" && routeDoc.success.kind === "json" && !routeDoc.success.whole;
  if (narrows) params.push(FIELDS_PARAMETER);
  // Path parameters no validator names still have to be declared.
  for (const name of path.match(/\{([^}]+)\}/g)?.map((m) => m.slice(1, -1)) ?? []) {
    if (!params.some((p) => p.in === "path" && p.name === name)) params.push({ name, in: "path", required: true, schema: { type: "string" } });
  }
  const docs = [...chain.before, ...chain.own].map(middlewareDocOf).filter((d): d is MiddlewareDoc => d !== undefined);
  params.push(...headerParameters(docs, routeDoc));
  const noted = NOTED_RESPONSES[key] ?? {};
  const extraHeaders = docs.flatMap((d) => d.successHeaders ?? []);
  const main = successResponse(routeDoc.success, extraHeaders, examples[key], components);
  const success = {
    ...(routeDoc.alsoSuccess ? successResponse(routeDoc.alsoSuccess, extraHeaders, undefined, components) : {}),
    ...main,
    ...(routeDoc.notModified ? { "304": { description: routeDoc.notModified, headers: headerRefs(["ETag"]) } } : {}),
  };
  for (const [status, response] of Object.entries(success)) if (noted[status]) response.description = noted[status];
  if (narrows) for (const response of Object.values(main)) response.description = `${response.description} With \`_fields\`, ${FIELDS_SUBSET}.`;
  return {
    operationId: routeDoc.operationId,
    tags: [tagOf(path)],
    summary: routeDoc.summary,
    description: routeDoc.description,
    security: security(path),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: { required: true, content: body } } : {}),
    responses: {
      ...success,
      ...failures(key, chain, docs, routeDoc, components),
      default: { description: "An unexpected failure (`500 rest_internal_error`), in the error envelope.", content: ENVELOPE },
    },
  };
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

/** Does a `use` pattern (`/a/*`, `*`, `/a/:id/b`) cover the route path `path`? */
function covers(pattern: string, path: string): boolean {
  if (pattern === "*" || pattern === "/*") return true;
  const wildcard = pattern.endsWith("/*");
  const body = (wildcard ? pattern.slice(0, -2) : pattern)
    .split("/")
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}${wildcard ? "(/.*)?" : ""}$`).test(path);
}

export interface DocumentOptions {
  /** The success example of each operation, by `<method> <OpenAPI path>`: real answers the test captured. */
  examples?: Readonly<Record<string, unknown>>;
}

// biome-ignore lint/suspicious/noExplicitAny: any app, whatever its bindings
export function openApiDocument(app: Hono<any>, serverUrl: string, options: DocumentOptions = {}): Json {
  const routes = app.routes as RouteEntry[];
  const chains = new Map<string, Chain>();
  routes.forEach((r, index) => {
    if (r.method === "ALL" || r.path.includes("*")) return;
    const key = `${r.method} ${r.path}`;
    const chain = chains.get(key);
    if (chain) {
      chain.own.push(r.handler);
      return;
    }
    // Middleware runs before a route when it was registered before the route's first handler and covers its path.
    const before = routes.slice(0, index).filter((m) => (m.method === "ALL" || (m.method === r.method && m.path.includes("*"))) && covers(m.path, r.path));
    chains.set(key, { own: [r.handler], before: before.map((m) => m.handler) });
  });
  const paths: Record<string, Json> = {};
  const components: Record<string, Json> = {};
  const named = new Map<string, string>();
  for (const [key, chain] of chains) {
    const [method, honoPath] = key.split(" ") as [string, string];
    const path = openApiPath(honoPath);
    const op = operation(method, path, chain, options.examples ?? {}, components);
    const id = op.operationId as string;
    const other = named.get(id);
    if (other) throw new Error(`operationId ${id} names both ${other} and ${method} ${path}`);
    named.set(id, `${method} ${path}`);
    paths[path] = { ...(paths[path] ?? {}), [method.toLowerCase()]: op };
  }
  const used = new Set(Object.values(paths).flatMap((ops) => Object.values(ops as Record<string, Json>).flatMap((op) => op.tags as string[])));
  const undeclared = [...used].filter((tag) => !(tag in TAGS));
  if (undeclared.length > 0) throw new Error(`Tags without a declaration in http/openapi.ts TAGS: ${undeclared.join(", ")}`);
  return {
    openapi: "3.1.0",
    info: {
      title: "Ticketing API",
      version: "1.0.0",
      description:
        "Events, orders, e-tickets, scanning, webhooks and bulk actions. Generated from the running service's routes. Every failure answers the error envelope `{code, message, data: {status, params?}}` unless a route says otherwise. " +
        `A \`GET\` that takes \`_fields\` answers a subset of the object described: with \`_fields\`, ${FIELDS_SUBSET}.`,
    },
    servers: [{ url: serverUrl }],
    tags: Object.entries(TAGS)
      .filter(([name]) => used.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { Error: ERROR_ENVELOPE, ...Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))) },
      headers: HEADERS,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-EVT-API-KEY", description: "The service API key." },
        basic: { type: "http", scheme: "basic", description: "A user's name or email and an application password." },
        scanKey: { type: "apiKey", in: "header", name: "X-EVT-API-KEY", description: "A scan key of the event." },
        orderingKey: { type: "apiKey", in: "header", name: "X-EVT-API-KEY", description: "The publishable ordering key (shop fronts)." },
        consoleSession: {
          type: "apiKey",
          in: "cookie",
          name: "__Host-ticketing-session",
          description: "The organiser console's session, set by `POST /console/session` (`ticketing-session` on local http); only with `X-Ticketing-CSRF`.",
        },
        consoleCsrf: { type: "apiKey", in: "header", name: "X-Ticketing-CSRF", description: "The `csrf_token` of the console session's sign-in answer." },
      },
    },
  };
}
