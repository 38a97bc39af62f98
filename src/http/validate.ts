import { zValidator } from "@hono/zod-validator";
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import type { IdResource } from "../domain/error-codes";
import { type ApiError, invalidId, invalidParams, missingParams, noRoute, unsupportedMediaType } from "../domain/errors";

/**
 * The one validation wrapper of the service. Every request schema goes through here so that failures answer in
 * the error envelope (never @hono/zod-validator's default body), and so that each route's schemas are recorded
 * on its middleware for the OpenAPI document.
 */

const ROUTE_SCHEMA = Symbol("routeSchema");

export interface RecordedSchema {
  target: "json" | "form" | "query" | "param";
  schema: z.ZodType;
  readOnly?: readonly string[];
  /** A form that also arrives as `application/x-www-form-urlencoded`. */
  urlencoded?: boolean;
  /** Path parameters: the resource each names (an unknown one answers `404 rest_<resource>_invalid_id`). */
  resources?: Record<string, IdResource>;
}

function recorded<M extends MiddlewareHandler>(middleware: M, info: RecordedSchema): M {
  Object.defineProperty(middleware, ROUTE_SCHEMA, { value: info });
  return middleware;
}

export function recordedSchemaOf(handler: unknown): RecordedSchema | undefined {
  return (handler as { [ROUTE_SCHEMA]?: RecordedSchema } | null)?.[ROUTE_SCHEMA];
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The part of a zod issue this module reads (the validator's hook types it as zod 3 or zod 4). */
interface Issue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  keys?: readonly string[];
}

/**
 * Turns zod issues into `rest_missing_callback_param` (only absent fields) or `rest_invalid_param`. `data.params`
 * is keyed by top-level field, as WordPress does; a nested problem names its inner path in the message.
 */
function validationError(error: { issues: readonly Issue[] }, input: unknown, dropPrefix?: string): ApiError {
  // Without a prototype, a field named `constructor` or `__proto__` is an ordinary key.
  const missing: Record<string, string> = Object.create(null);
  const invalid: Record<string, string> = Object.create(null);
  for (const issue of error.issues) {
    const path = dropPrefix && issue.path[0] === dropPrefix ? issue.path.slice(1) : issue.path;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys ?? []) {
        if (path.length === 0) invalid[key] ??= "is not a known field";
        else invalid[String(path[0])] ??= `${[...path.slice(1), key].join(".")} is not a known field`;
      }
      continue;
    }
    const field = path.length > 0 ? String(path[0]) : "body";
    if (path.length === 1 && valueAt(input, path) === undefined) {
      missing[field] ??= "is required";
    } else {
      const inner = path.slice(1).map(String).join(".");
      invalid[field] ??= inner ? `${inner}: ${issue.message}` : issue.message;
    }
  }
  if (Object.keys(invalid).length === 0) return missingParams(missing);
  return invalidParams({ ...missing, ...invalid });
}

function requireJsonBody(c: Context): void {
  const contentType = c.req.header("Content-Type");
  const hasBody = c.req.raw.body !== null && c.req.header("Content-Length") !== "0";
  if (!hasBody) return;
  const mediaType = (contentType ?? "").split(";")[0]!.trim();
  if (!JSON_MEDIA_TYPE.test(mediaType)) throw unsupportedMediaType("application/json");
}

function withoutKeys(value: unknown, keys: readonly string[]): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of keys) delete copy[key];
  return copy;
}

function pickKeys(value: unknown, keys: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return picked;
  for (const key of keys) if (key in value) picked[key] = (value as Record<string, unknown>)[key];
  return picked;
}

const jsonObjectSchema = <S extends z.ZodType>(schema: S) => z.preprocess((raw) => (raw === undefined ? {} : raw), schema);

/** What a client may send back from what it read without meaning it: the links, and what `_embed` added. */
const IGNORED = ["_links", "_embedded"];

/**
 * Body of a create: a strict object. `_links` and `_embedded` are ignored; a read-only field is refused, since on a
 * create there is no stored value it could equal.
 */
export function createBody<S extends z.ZodObject>(schema: S, readOnly: readonly string[] = []) {
  const wrapped = jsonObjectSchema(
    z.preprocess((raw, ctx) => {
      for (const key of Object.keys(pickKeys(raw, readOnly))) {
        ctx.addIssue({ code: "custom", path: [key], message: "is read-only", input: raw });
      }
      return withoutKeys(raw, [...IGNORED, ...readOnly]);
    }, schema),
  );
  const middleware = zValidator("json", wrapped, (result, c) => {
    requireJsonBody(c);
    if (!result.success) throw validationError(result.error, result.data);
  });
  return recorded(middleware, { target: "json", schema, readOnly });
}

/**
 * Body of an update: a strict object of the changeable fields, validated as `patch`. Read-only fields are set
 * aside in `readOnlySent`; the route checks them against the stored resource with `assertReadOnlyUnchanged`, so a
 * client may PUT back what it read.
 */
export function updateBody<S extends z.ZodObject>(schema: S, readOnly: readonly string[] = []) {
  const wrapped = jsonObjectSchema(
    z.preprocess(
      (raw) => ({ patch: withoutKeys(raw, [...IGNORED, ...readOnly]), readOnlySent: pickKeys(raw, readOnly) }),
      z.object({ patch: schema, readOnlySent: z.record(z.string(), z.unknown()) }),
    ),
  );
  const middleware = zValidator("json", wrapped, (result, c) => {
    requireJsonBody(c);
    if (!result.success) throw validationError(result.error, result.data, "patch");
  });
  return recorded(middleware, { target: "json", schema, readOnly });
}

export function isMultipart(c: Context): boolean {
  return (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

function requireForm(c: Context, urlencoded: boolean): void {
  if (isMultipart(c)) return;
  const type = (c.req.header("Content-Type") ?? "").toLowerCase();
  if (!(urlencoded && type.startsWith("application/x-www-form-urlencoded"))) throw unsupportedMediaType("multipart/form-data");
}

/**
 * A multipart upload (spec: a part named `file`, arriving as a `File`), or with `urlencoded` also an HTML form
 * post. Parts are validated like a strict JSON body.
 */
export function formBody<S extends z.ZodObject>(schema: S, options: { urlencoded?: boolean } = {}) {
  const middleware = zValidator("form", schema, (result, c) => {
    requireForm(c, options.urlencoded ?? false);
    if (!result.success) throw validationError(result.error, result.data);
  });
  return recorded(middleware, { target: "form", schema, urlencoded: options.urlencoded ?? false });
}

/** A file part of a multipart body. */
export const filePart = z.instanceof(File, { message: "must be a file part" });

/**
 * An update that takes JSON, or multipart when it carries a file: the content type picks which of the two
 * validators runs, and the route reads `c.req.valid("form")` when `isMultipart(c)`, else `c.req.valid("json")`.
 */
// biome-ignore-start lint/suspicious/noExplicitAny: any handler, whatever its env, path and input
type AnyHandler = MiddlewareHandler<any, any, any>;
type InputOf<M> = M extends MiddlewareHandler<any, any, infer I> ? I : never;

export function jsonOrForm<J extends AnyHandler, F extends AnyHandler>(json: J, form: F): MiddlewareHandler<any, string, InputOf<J> & InputOf<F>> {
  // biome-ignore-end lint/suspicious/noExplicitAny: end of the handler generics
  const middleware: AnyHandler = (c, next) => (isMultipart(c) ? form(c, next) : json(c, next));
  Object.defineProperty(middleware, ROUTE_SCHEMA, { value: recordedSchemaOf(json) });
  Object.defineProperty(middleware, ALTERNATIVE_SCHEMA, { value: recordedSchemaOf(form) });
  return middleware;
}

const ALTERNATIVE_SCHEMA = Symbol("alternativeSchema");

/** The form schema a `jsonOrForm` middleware also takes. */
export function alternativeSchemaOf(handler: unknown): RecordedSchema | undefined {
  return (handler as { [ALTERNATIVE_SCHEMA]?: RecordedSchema } | null)?.[ALTERNATIVE_SCHEMA];
}

/** Query parameters: unknown names are ignored (as WordPress does); known ones are validated. */
export function query<S extends z.ZodObject>(schema: S) {
  const middleware = zValidator("query", schema, (result) => {
    if (!result.success) throw validationError(result.error, result.data);
  });
  return recorded(middleware, { target: "query", schema });
}

const NUMERIC_ID = /^[1-9]\d{0,15}$/;

interface PathParam<T> {
  resource: IdResource;
  schema: z.ZodType<T, string>;
}

/** A numeric id parameter (`/events/7`). */
export function numericParam(resource: IdResource): PathParam<number> {
  return { resource, schema: z.string().regex(NUMERIC_ID).transform(Number).pipe(z.number().int().max(Number.MAX_SAFE_INTEGER)) };
}

/**
 * A string id parameter (`/ticket-types/v05ef7`). Its shape is not checked here: a malformed one is simply not
 * found, after the resources outside it were (so an unknown event stays an unknown event).
 */
export function keyParam(resource: IdResource): PathParam<string> {
  return { resource, schema: z.string().min(1).max(100) };
}

/**
 * All path parameters of a route, in one validator (Hono keeps only the last validated value per target). A
 * parameter that cannot name anything answers as an unknown id of its resource: `404 rest_<resource>_invalid_id`,
 * the outermost first (`/events/x/ticket-types/y` is an unknown event).
 */
export function pathParams<P extends Record<string, PathParam<unknown>>>(params: P) {
  const schema = z.object(Object.fromEntries(Object.entries(params).map(([name, p]) => [name, p.schema]))) as z.ZodObject<{
    [K in keyof P]: P[K]["schema"];
  }>;
  const middleware = zValidator("param", schema, (result) => {
    if (result.success) return;
    const failed = new Set(result.error.issues.map((issue) => String(issue.path[0])));
    const entries = Object.entries(params);
    // zod failed on one of the parameters, so one is found; the first one stands in if none is.
    const [, first] = entries.find(([name]) => failed.has(name)) ?? entries[0] ?? [];
    throw first ? invalidId(first.resource) : noRoute();
  });
  const resources = Object.fromEntries(Object.entries(params).map(([name, p]) => [name, p.resource]));
  return recorded(middleware, { target: "param", schema, resources });
}

/** A route whose only path parameter is the numeric `:id` of `resource`. */
export function pathId(resource: IdResource) {
  return pathParams({ id: numericParam(resource) });
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Read-only fields sent in an update must equal the stored resource as the API shows it; otherwise a 400. */
export function assertReadOnlyUnchanged(sent: Record<string, unknown>, current: Record<string, unknown>): void {
  const changed: Record<string, string> = {};
  for (const [key, value] of Object.entries(sent)) {
    if (canonical(value) !== canonical(current[key])) changed[key] = "is read-only";
  }
  if (Object.keys(changed).length > 0) throw invalidParams(changed);
}

export { canonical as canonicalJson };
