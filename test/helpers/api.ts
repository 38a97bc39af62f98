import { exports } from "cloudflare:workers";
import { expect } from "vitest";

/** Calls the service through its public HTTP surface, as a client would. */

export const API_KEY = "test-api-key";
export const ADMIN = { username: "admin", password: "test-admin-password" } as const;
export const ORIGIN = "http://ticketing.test";
export const BASE = `${ORIGIN}/ticketing/v1`;

export interface Credentials {
  username: string;
  password: string;
}

export interface CallOptions {
  body?: unknown;
  /** Basic credentials; `null` sends none. Defaults to the bootstrap administrator. */
  auth?: Credentials | null;
  /** `X-EVT-API-KEY`; `null` sends none. */
  key?: string | null;
  headers?: Record<string, string>;
}

export function basic({ username, password }: Credentials): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

export function request(method: string, path: string, options: CallOptions = {}): Request {
  const headers = new Headers(options.headers);
  const key = options.key === undefined ? API_KEY : options.key;
  if (key !== null) headers.set("X-EVT-API-KEY", key);
  const auth = options.auth === undefined ? ADMIN : options.auth;
  if (auth !== null) headers.set("Authorization", basic(auth));
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return new Request(`${BASE}${path}`, { method, headers, body });
}

export function call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  return exports.default.fetch(request(method, path, options));
}

/** Asserts the status and returns the parsed JSON body. */
export async function expectJson<T = any>(res: Response | Promise<Response>, status: number): Promise<T> {
  const response = await res;
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** Asserts the error envelope of decisions.md section 3 and returns it. */
export async function expectError(res: Response | Promise<Response>, status: number, code: string) {
  const body = await expectJson(res, status);
  expect(body).toMatchObject({ code, data: { status } });
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  expect(Object.keys(body).sort()).toEqual(["code", "data", "message"]);
  return body as { code: string; message: string; data: { status: number; params?: Record<string, string> } };
}

let sequence = 0;

/** A unique suffix so that tests in one file never collide on usernames or emails. */
export function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}${Date.now().toString(36)}${sequence}`;
}

export interface CreatedUser {
  id: number;
  username: string;
  email: string;
  credentials: Credentials;
  body: any;
}

export async function createUser(role: "administrator" | "organizer", extra: Record<string, unknown> = {}): Promise<CreatedUser> {
  const username = unique(role === "administrator" ? "adm" : "org");
  const body = await expectJson(call("POST", "/admin/users", { body: { username, email: `${username}@example.com`, role, ...extra } }), 201);
  return { id: body.id, username, email: body.email, credentials: { username, password: body.application_password }, body };
}
