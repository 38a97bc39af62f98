import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { orders } from "../../../src/db/schema";
import worker from "../../../src/index";
import { BASE, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";

/** The shop page's tests (decisions.md 15 "The box office"): its GET and its form's POST, as a browser sends them. */

export type Json = Record<string, any>;

export interface Shop {
  event: Json;
  types: Json[];
  fields: Json[];
}

/** An event with the given ticket types (default one "Regular" at 10.00) and input fields. */
export async function shop(options: { event?: Json; types?: Json[]; fields?: Json[] } = {}): Promise<Shop> {
  const event = await createEvent({ event_name: unique("Shop page "), ...options.event });
  const types: Json[] = [];
  for (const t of options.types ?? [{ name: "Regular", price: 10 }]) types.push(await createTicketType(event.id, t));
  const fields: Json[] = [];
  for (const f of options.fields ?? []) fields.push(await createInputField(event.id, f));
  return { event, types, fields };
}

type Overrides = Record<string, unknown> | null;

async function send(req: Request, overrides: Overrides): Promise<Response> {
  if (overrides === null) return exports.default.fetch(req);
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** `GET /shop/<event_id>` as a browser opens it (no key), optionally under other settings. */
export function openPage(eventId: number | string, query = "", headers: Record<string, string> = {}, overrides: Overrides = null): Promise<Response> {
  return send(new Request(`${BASE}/shop/${eventId}${query}`, { headers }), overrides);
}

export async function pageHtml(res: Response | Promise<Response>, status = 200): Promise<string> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(status);
  expect(r.headers.get("Content-Type")).toMatch(/^text\/html/);
  return text;
}

export type FormFields = Record<string, string | string[]>;

export function formBody(fields: FormFields): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  return form.toString();
}

/** The form's post, as the browser sends it (redirects not followed). */
export function postForm(
  eventId: number | string,
  fields: FormFields | string,
  options: { lang?: string; headers?: Record<string, string>; overrides?: Overrides } = {},
): Promise<Response> {
  const query = options.lang ? `?lang=${options.lang}` : "";
  const body = typeof fields === "string" ? fields : formBody(fields);
  return send(
    new Request(`${BASE}/shop/${eventId}${query}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...options.headers },
      body,
    }),
    options.overrides ?? null,
  );
}

let tokens = 0;
/** A token as the page makes them (16-64 of A-Z a-z 0-9 _ -), unique per call. */
export function freshToken(): string {
  tokens += 1;
  return `t${Date.now().toString(36)}${tokens}`.padEnd(20, "x");
}

/** A complete, valid form for `s`: one of the first type, none of the others. */
export function validForm(s: Shop, counts: number[] = [1], extra: FormFields = {}): FormFields {
  const tickets = Object.fromEntries(s.types.map((t, i) => [`ticket_${t.id}`, String(counts[i] ?? 0)]));
  return { form_token: freshToken(), name: "Ann Smith", email: "ann@example.com", ...tickets, ...extra };
}

export const ordersOf = (eventId: number) => db.select().from(orders).where(eq(orders.eventId, eventId)).orderBy(orders.id);

function decode(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, "&");
}

/** The error shown beside `control` (its `<p class="field-error">`), checked to be wired to its input; null when none. */
export function errorAt(html: string, control: string): string | null {
  const m = new RegExp(`<p class="field-error" id="${control}-error">([^<]*)</p>`).exec(html);
  if (!m) return null;
  const input = new RegExp(`<(input|select)[^>]*id="${control}"[^>]*>`).exec(html)?.[0] ?? "";
  expect(input, `the input ${control}`).toContain('aria-invalid="true"');
  expect(input).toMatch(new RegExp(`aria-describedby="[^"]*${control}-error`));
  return decode(m[1]!);
}

/** The texts of the error summary at the top (`#form-errors`), each with the control its link names (null: none). */
export function summaryOf(html: string): { control: string | null; text: string }[] {
  const box = /<div id="form-errors" role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1];
  if (box === undefined) return [];
  return [...box.matchAll(/<li>(?:<a href="#([^"]+)">([^<]*)<\/a>|([^<]*))<\/li>/g)].map((m) => ({
    control: m[1] ?? null,
    text: decode(m[2] ?? m[3] ?? ""),
  }));
}

/** The value an input shows (its `value` attribute), decoded; undefined when it has none. */
export function enteredValue(html: string, control: string): string | undefined {
  const input = new RegExp(`<input[^>]*id="${control}"[^>]*>`).exec(html)?.[0] ?? "";
  const m = /value="([^"]*)"/.exec(input);
  return m ? decode(m[1]!) : undefined;
}

export const tokenOf = (html: string): string => /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
