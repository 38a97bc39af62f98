import { validate } from "@hyperjump/json-schema/openapi-3-1";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app";
import { Hono } from "hono";
import { z } from "zod";
import { answeringRoutes, openApiDocument, openApiPath } from "../../../src/http/openapi";
import { answers, describeRoute } from "../../../src/http/route-docs";
import { NOTED_RESPONSES } from "../../../src/http/openapi-responses";
import { call, expectJson } from "../../helpers/api";
import { EXAMPLE_ORIGIN } from "../../helpers/openapi";
import { SCALAR_ASSET } from "../../../src/features/meta/docs.routes";

/**
 * `GET /openapi.json` and `GET /docs` (decisions.md 12: public): the OpenAPI 3.1 document generated from
 * the routes and the schemas the validation wrapper records, so it lists every route there is.
 */

type Json = Record<string, any>;
const pub = { key: null, auth: null } as const;

async function documentOf(): Promise<Json> {
  return expectJson(call("GET", "/openapi.json", pub), 200);
}

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document that validates against the 3.1 schema, without a key", async () => {
    const doc = await documentOf();
    expect(doc.openapi).toBe("3.1.0");
    const output = await validate("https://spec.openapis.org/oas/3.1/schema-base", doc, "BASIC");
    expect(output.valid, JSON.stringify(output).slice(0, 2000)).toBe(true);
    // The validator is no rubber stamp: a document with a broken operation fails it.
    const broken = { ...doc, paths: { "/x": { get: { responses: { "2XX": { content: "none" } } } } } };
    expect((await validate("https://spec.openapis.org/oas/3.1/schema-base", broken)).valid).toBe(false);
  });

  it("lists every route the app answers, with its method", async () => {
    const doc = await documentOf();
    const routes = answeringRoutes(buildApp());
    expect(routes.length).toBeGreaterThan(80);
    const missing = routes.filter((r) => !doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()]);
    expect(missing).toEqual([]);
    // And nothing that is not a route.
    const listed = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(listed.sort()).toEqual(routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort());
  });

  it("carries the recorded schemas: path parameters, query parameters and bodies", async () => {
    const doc = await documentOf();
    const create = doc.paths["/ticketing/v1/admin/coupons"].post;
    expect(create.requestBody.content["application/json"].schema.properties).toHaveProperty("code");
    // The key with Basic credentials, or the console session with its CSRF header (decisions.md 15).
    expect(create.security).toEqual([
      { apiKey: [], basic: [] },
      { consoleSession: [], consoleCsrf: [] },
    ]);
    const list = doc.paths["/ticketing/v1/admin/orders"].get;
    expect(list.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(["per_page", "page", "search", "orderby"]));
    expect(list.parameters.every((p: Json) => p.in === "query")).toBe(true);
    const one = doc.paths["/ticketing/v1/admin/events/{id}"].get;
    expect(one.parameters).toEqual([
      expect.objectContaining({ name: "id", in: "path", required: true }),
      expect.objectContaining({ name: "_fields", in: "query", required: false }),
    ]);
    const upload = doc.paths["/ticketing/v1/admin/pdf-templates"].post;
    expect(Object.keys(upload.requestBody.content)).toContain("multipart/form-data");
    expect(doc.paths["/ticketing/v1/scans"].post.security).toEqual([{ scanKey: [] }]);
    expect(doc.paths["/ticketing/v1/tickets/{uid}"].get.security).toEqual([]);
    // Every operation answers errors in the envelope.
    for (const ops of Object.values(doc.paths as Record<string, Json>)) {
      for (const op of Object.values(ops)) expect(op.responses.default.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    }
    expect(doc.components.schemas.Error.required).toEqual(["code", "message", "data"]);
  });

  it("names the answers the trust rules add (403, 404, 429, 503), each on a route that exists", async () => {
    const doc = await documentOf();
    for (const [key, noted] of Object.entries(NOTED_RESPONSES)) {
      const [method, path] = key.split(" ") as [string, string];
      const op = doc.paths[path]?.[method];
      const responses = op?.responses;
      expect(responses, key).toBeDefined();
      // A success `_fields` narrows keeps the sentence that says so after the noted text.
      const narrows = (op.parameters ?? []).some((p: Json) => p.name === "_fields");
      for (const [status, description] of Object.entries(noted))
        expect(responses[status]?.description, `${key} ${status}`).toBe(narrows && status.startsWith("2") ? `${description} ${FIELDS_SENTENCE}` : description);
    }
    expect(doc.paths["/ticketing/v1/health"].get.responses["503"].description).toContain("misconfigured");
    expect(doc.paths["/ticketing/v1/events/{id}/orders"].post.responses["503"].description).toContain("rest_payment_unavailable");
  });

  it("is the committed docs/openapi.json, apart from the server address (npm run openapi:write rewrites it)", async () => {
    const doc = await documentOf();
    expect(doc.servers).toEqual([{ url: "http://ticketing.test" }]);
    const committed = { ...doc, servers: [{ url: EXAMPLE_ORIGIN, description: "npm run dev" }] };
    await expect(`${JSON.stringify(committed, null, 2)}\n`).toMatchFileSnapshot("../../../docs/openapi.json");
  });

  it("operation ids are unique", async () => {
    const doc = await documentOf();
    const ids = Object.values(doc.paths as Record<string, Json>).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("names every operation for what it does (a stable lowerCamelCase operationId), never after its path", async () => {
    const doc = await documentOf();
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(80);
    for (const { method, path, op } of ops) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.operationId, `${method} ${path}`).not.toBe(pathDerivedId(method, path));
    }
    expect(new Set(ops.map((o) => o.op.operationId)).size).toBe(ops.length);
    // The names a generated client shows, for the operations integrators use most.
    const idOf = (method: string, path: string) => doc.paths[`/ticketing/v1${path}`][method].operationId;
    expect(idOf("get", "/admin/events")).toBe("listEvents");
    expect(idOf("get", "/admin/events/{id}")).toBe("getEvent");
    expect(idOf("post", "/admin/events")).toBe("createEvent");
    expect(idOf("put", "/admin/events/{id}")).toBe("updateEvent");
    expect(idOf("delete", "/admin/events/{id}")).toBe("deleteEvent");
    expect(idOf("get", "/admin/events/{id}/ticket-types")).toBe("listTicketTypes");
    expect(idOf("delete", "/admin/events/{id}/ticket-types/{typeId}")).toBe("deleteTicketType");
    expect(idOf("post", "/events/{id}/orders")).toBe("createCustomerOrder");
    expect(idOf("get", "/orders/{id}/{uid}/status")).toBe("getOrderStatus");
    expect(idOf("post", "/admin/orders")).toBe("createDashboardOrder");
    expect(idOf("post", "/admin/orders/{id}/refund")).toBe("refundOrder");
    expect(idOf("post", "/scans")).toBe("scanTicket");
    expect(idOf("get", "/scans/tickets")).toBe("listValidTickets");
    expect(idOf("post", "/admin/coupons/bulk/emails/send")).toBe("sendCouponEmails");
    expect(idOf("get", "/admin/webhooks/{id}/ping")).toBe("pingWebhook");
  });

  it("declares every tag it uses once, at the top, each with a one-line description", async () => {
    const doc = await documentOf();
    const declared = (doc.tags ?? []) as Json[];
    const names = declared.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const tag of declared) {
      expect(typeof tag.description, tag.name).toBe("string");
      expect(tag.description.length, tag.name).toBeGreaterThan(10);
      expect(tag.description, tag.name).not.toContain("\n");
    }
    const used = new Set(operationsOf(doc).flatMap(({ op }) => op.tags as string[]));
    expect([...used].filter((t) => !names.includes(t))).toEqual([]);
    // And none declared that no operation uses.
    expect(names.filter((t) => !used.has(t))).toEqual([]);
  });

  it("says `_fields` answers a subset: where a route narrows its answer, the parameter, the answer and the document say the required properties hold only for a full answer", async () => {
    const doc = await documentOf();
    expect(doc.info.description).toContain("`_fields`");
    expect(doc.info.description).toContain(FIELDS_SUBSET);
    const narrowing = operationsOf(doc).filter(({ op }) => (op.parameters ?? []).some((p: Json) => p.name === "_fields"));
    const ids = narrowing.map(({ op }) => op.operationId);
    // Every GET whose JSON answer goes through the shared presenters (http/respond.ts) narrows; these do not.
    expect(ids).toEqual(expect.arrayContaining(["listEvents", "getEvent", "getOrder", "listOrders", "getOrderStatus", "listValidTickets", "getSalesReport"]));
    for (const id of ["getServiceInfo", "checkHealth", "getOpenApiDocument", "pingWebhook", "createEvent", "updateEvent", "downloadTickets"])
      expect(ids).not.toContain(id);
    for (const { method, path, op } of narrowing) {
      const param = op.parameters.find((p: Json) => p.name === "_fields");
      expect(param, `${method} ${path}`).toMatchObject({ in: "query", required: false, schema: { type: "string" } });
      expect(param.description, `${method} ${path}`).toContain(FIELDS_SUBSET);
      const success = Object.entries(op.responses as Record<string, Json>).find(([status, r]) => status.startsWith("2") && r.content?.["application/json"]);
      expect(success?.[1].description, `${method} ${path}`).toContain(FIELDS_SUBSET);
    }
    expect(narrowing.length).toBeGreaterThan(40);
  });

  it("refuses to build a document where an operation has no operationId or shares one", () => {
    const same = { summary: "One", description: "", success: answers.ok(z.object({})) };
    const twice = new Hono()
      .get("/a", describeRoute({ operationId: "getThing", ...same }), (c) => c.json({}))
      .get("/b", describeRoute({ operationId: "getThing", ...same }), (c) => c.json({}));
    expect(() => openApiDocument(twice, "http://x")).toThrow(/getThing/);
    const undescribed = new Hono().get("/a", (c) => c.json({}));
    expect(() => openApiDocument(undescribed, "http://x")).toThrow(/operationId/);
    const badlyNamed = new Hono().get("/a", describeRoute({ operationId: "get-thing", ...same }), (c) => c.json({}));
    expect(() => openApiDocument(badlyNamed, "http://x")).toThrow(/get-thing/);
  });
});

/** What the document says wherever `_fields` narrows an answer. */
const FIELDS_SUBSET = "only the named fields are present";
const FIELDS_SENTENCE = "With `_fields`, only the named fields are present, so the schema's required properties hold only for an answer without `_fields`.";

function operationsOf(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
    Object.entries(ops as Record<string, Json>).map(([method, op]) => ({ method, path, op })),
  );
}

/** The operationId the document used to derive from the path (`getOrdersIdUidStatus`): no operation may keep it. */
function pathDerivedId(method: string, path: string): string {
  return `${method}${path
    .replace("/ticketing/v1", "")
    .replace(/[{}]/g, "")
    .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`;
}

describe("GET /docs", () => {
  /** The directives of a Content-Security-Policy, by name. */
  const directives = (csp: string) =>
    new Map(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...values]) => [name!, values]),
    );

  it("is Scalar's API reference of /openapi.json, without a key: its renderer from the service's own assets, under a CSP of 'self' scripts (decisions.md 15)", async () => {
    const res = await call("GET", "/docs", pub);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const policy = directives(res.headers.get("Content-Security-Policy") ?? "");
    expect(policy.get("script-src")).toEqual(["'self'"]);
    expect(policy.get("default-src")).toEqual(["'self'"]);
    expect(policy.get("connect-src")).toEqual(["'self'"]);
    expect(policy.get("object-src")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'none'"]);

    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attrs: m[1]!, body: m[2]! }));
    const sources = scripts.flatMap((s) => [...s.attrs.matchAll(/\ssrc="([^"]*)"/g)].map((m) => m[1]!));
    expect(sources).toEqual([SCALAR_ASSET]);
    // Nothing inline runs: the one script without a source is data (JSON), which no browser executes.
    for (const script of scripts.filter((s) => !/\ssrc=/.test(s.attrs))) {
      expect(script.attrs).toMatch(/\stype="application\/json"/);
      expect(script.body.trim()).toBe("");
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
    // It reads the document from the same origin, with Scalar's fonts and telemetry off: nothing from elsewhere.
    expect(html).toContain('id="api-reference"');
    expect(html).toContain('data-url="/ticketing/v1/openapi.json"');
    const configuration = JSON.parse(/data-configuration="([^"]*)"/.exec(html)![1]!.replaceAll("&quot;", '"'));
    expect(configuration).toMatchObject({ withDefaultFonts: false, telemetry: false });
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/["'(]\/\/[a-z]/i);
  });

  it("the renderer is a static asset of the service (the pinned @scalar/api-reference's standalone bundle)", async () => {
    const res = await env.ASSETS.fetch(new Request(`https://docs.example${SCALAR_ASSET}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/javascript/);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const script = await res.text();
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).toContain("createApiReference");
  });
});
