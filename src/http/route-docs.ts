import type { MiddlewareHandler } from "hono";
import { z } from "zod";

/**
 * What the OpenAPI document says of a route beyond the request schemas the validation wrapper records: a summary, a
 * description, what it answers on success, and the failures particular to it. A feature writes these next to its
 * presenters (`*.schema.ts`) and puts `describeRoute(...)` first in the route's handlers; middleware that answers
 * failures of its own (keys, logins, rate limits, idempotency) is marked once with `documented(...)`. The document
 * generator (http/openapi.ts) reads both off the app's routes, as it reads the recorded request schemas.
 */

const ROUTE_DOC = Symbol("routeDoc");
const MIDDLEWARE_DOC = Symbol("middlewareDoc");

/** Response headers the document declares (components.headers). */
export type ResponseHeader =
  | "Location"
  | "X-WP-Total"
  | "X-WP-TotalPages"
  | "Link"
  | "Content-Disposition"
  | "Retry-After"
  | "WWW-Authenticate"
  | "Idempotent-Replayed"
  | "ETag";

/** A successful answer. */
export type Success =
  | {
      kind: "json";
      status: 200 | 201 | 202;
      schema: z.ZodType;
      description: string;
      headers: readonly ResponseHeader[];
      /** Written by the handler itself, not through http/respond.ts: `_fields` does not narrow it. */
      whole?: true;
    }
  | { kind: "pdf"; description: string }
  | { kind: "image"; mediaTypes: readonly string[]; description: string }
  | { kind: "html"; description: string }
  | { kind: "csv"; description: string }
  | { kind: "file"; mediaType: string; description: string }
  | { kind: "redirect"; status: 302 | 303; description: string };

/** A failure: a description of when it happens (answered in the error envelope), or a body of its own. */
export type Failure = string | { description: string; schema: z.ZodType };

export interface RequestHeader {
  description: string;
  required: boolean;
  schema: Record<string, unknown>;
}

export interface RouteDoc {
  /**
   * The operation's stable name, lowerCamelCase, for what it does as an integrator sees it (`listEvents`,
   * `createCustomerOrder`, `scanTicket`): a generated client names its function after it. Unique in the document; the
   * verbs are list, get, create, update, delete, replace, or a specific one (docs/wire-conventions.md "The OpenAPI
   * document").
   */
  operationId: string;
  /** One line: what the route does. */
  summary: string;
  /** Markdown: the rules a client needs beyond the schemas. */
  description: string;
  success: Success;
  /** A second success the route may answer instead (an upload merged into what exists: `200` rather than `201`). */
  alsoSuccess?: Success;
  /** When the route answers `304 Not Modified` to `If-None-Match` (no body; the `ETag` again): when it does. */
  notModified?: string;
  /** Failures particular to this route, by status (added to those of its validators and middleware). */
  errors?: Readonly<Record<string, Failure>>;
  /** Request headers the route itself reads. */
  headers?: Readonly<Record<string, RequestHeader>>;
  /** Headers the route itself sends with some of its failures, by status. */
  errorHeaders?: Readonly<Record<string, readonly ResponseHeader[]>>;
}

/** What a middleware adds to every route it runs before. */
export interface MiddlewareDoc {
  /** Failures it answers, by status. */
  errors?: Readonly<Record<string, string>>;
  /** Headers it sends with those failures, by status. */
  errorHeaders?: Readonly<Record<string, readonly ResponseHeader[]>>;
  /** Request headers it reads. */
  headers?: Readonly<Record<string, RequestHeader>>;
  /** Headers a success may carry because of it. */
  successHeaders?: readonly ResponseHeader[];
}

/** A no-op middleware carrying the route's documentation; put it first in the route's handlers. */
// biome-ignore lint/suspicious/noExplicitAny: fits every route, whatever its env
export function describeRoute(doc: RouteDoc): MiddlewareHandler<any> {
  const middleware: MiddlewareHandler = (_c, next) => next();
  Object.defineProperty(middleware, ROUTE_DOC, { value: doc });
  return middleware;
}

export function routeDocOf(handler: unknown): RouteDoc | undefined {
  return (handler as { [ROUTE_DOC]?: RouteDoc } | null)?.[ROUTE_DOC];
}

/** Marks a middleware with the failures and headers it adds to the routes it runs before. */
export function documented<M extends object>(middleware: M, doc: MiddlewareDoc): M {
  Object.defineProperty(middleware, MIDDLEWARE_DOC, { value: doc });
  return middleware;
}

export function middlewareDocOf(handler: unknown): MiddlewareDoc | undefined {
  return (handler as { [MIDDLEWARE_DOC]?: MiddlewareDoc } | null)?.[MIDDLEWARE_DOC];
}

/**
 * A response schema with a name of its own (zod metadata `id`): the document lists it once under
 * `components.schemas` and refers to it, and a generated client names its type.
 */
export function named<S extends z.ZodType>(id: string, schema: S): S {
  return schema.meta({ id }) as S;
}

/** The failure of every route that asks an event's object (decisions.md 15 "Overload"). */
export const OVERLOADED =
  "`rest_overloaded` with `Retry-After` (1 to 5 seconds): the event's object (or the database) is too busy to answer, or stays behind its catalogue; nothing was decided or written: try again after the wait.";

/** The answers routes give on success. */
export const answers = {
  /** `200` with one JSON body. */
  ok: (schema: z.ZodType, description = "The resource as the interface shows it."): Success => ({ kind: "json", status: 200, schema, description, headers: [] }),
  /** `201` with the new resource and its absolute address in `Location`. */
  created: (schema: z.ZodType, description = "Created: the new resource, its address in `Location`."): Success => ({
    kind: "json",
    status: 201,
    schema,
    description,
    headers: ["Location"],
  }),
  /** `200` with a JSON body the handler writes itself (meta routes, the ping): `_fields` does not narrow it. */
  whole: (schema: z.ZodType, description: string): Success => ({ kind: "json", status: 200, schema, description, headers: [], whole: true }),
  /** A paged collection: `X-WP-Total`, `X-WP-TotalPages` and `Link` (`prev`, `next`). */
  page: (item: z.ZodType, description = "One page of the collection."): Success => ({
    kind: "json",
    status: 200,
    schema: z.array(item),
    description,
    headers: ["X-WP-Total", "X-WP-TotalPages", "Link"],
  }),
  /** An unpaged collection: every row, `X-WP-Total` and `X-WP-TotalPages: 1`. */
  collection: (item: z.ZodType, description = "The whole collection, on one page."): Success => ({
    kind: "json",
    status: 200,
    schema: z.array(item),
    description,
    headers: ["X-WP-Total", "X-WP-TotalPages"],
  }),
  /** `202`: the work is under way; ask again after `Retry-After` seconds. */
  accepted: (schema: z.ZodType, description: string): Success => ({ kind: "json", status: 202, schema, description, headers: ["Retry-After"] }),
  pdf: (description: string): Success => ({ kind: "pdf", description }),
  /** An image in one of `mediaTypes` (as a query asks), named in `Content-Disposition`. */
  image: (mediaTypes: readonly string[], description: string): Success => ({ kind: "image", mediaTypes, description }),
  html: (description: string): Success => ({ kind: "html", description }),
  /** A CSV file (`text/csv; charset=utf-8`), named in `Content-Disposition`. */
  csv: (description: string): Success => ({ kind: "csv", description }),
  /** Bytes of one media type (an Apple Wallet pass), named in `Content-Disposition`. */
  file: (mediaType: string, description: string): Success => ({ kind: "file", mediaType, description }),
  redirect: (status: 302 | 303, description: string): Success => ({ kind: "redirect", status, description }),
};
