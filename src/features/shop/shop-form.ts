import { z } from "zod";
import { createCustomerOrderBody, type CustomerOrderInput } from "../checkout/customer-orders.schema";

/**
 * The shop page's form (decisions.md 15 "The box office", the form contract of docs/ordering.md "How the shop page
 * orders") read into the body of `POST /events/<event_id>/orders`: the same zod schema reads it, so a form orders
 * exactly as the API does, and a bad shape becomes an error beside its control instead of a 500.
 */

/** A form's token: made by `newFormToken`, it is the order's Idempotency-Key. */
const FORM_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

/** A fresh token per rendered form, so a double click or a retried post never makes two orders. */
export function newFormToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

/** What the buyer entered, as posted, to show again with the errors (a password field's value is never shown). */
export interface EnteredValues {
  name: string;
  email: string;
  coupon: string;
  termsAccepted: boolean;
  /** By ticket type id. */
  tickets: Record<string, string>;
  /** By input field id. */
  fields: Record<string, string>;
  eventIds: string[];
}

export const emptyValues = (): EnteredValues => ({ name: "", email: "", coupon: "", termsAccepted: false, tickets: {}, fields: {}, eventIds: [] });

/** A control of the form an error belongs beside: `name`, `email`, `coupon`, `terms_accepted`, `event_ids`, `ticket_<id>`, `field_<id>`. */
export type Control = string;

/** An error of the form's shape: beside `control` (the summary only when null), in the catalogue's words. */
export interface ShapeError {
  control: Control | null;
  kind: "count" | "value";
}

export interface PostedForm {
  /** The form's token, null when missing or not one `newFormToken` makes. */
  token: string | null;
  values: EnteredValues;
  captcha: string;
  /** The waiting-list offer's token the form orders through (docs/shop.md "The waiting list"); "" when none. */
  offer: string;
}

/** A posted form's `form_token`, null when missing or not one `newFormToken` makes. */
export function formTokenOf(form: URLSearchParams): string | null {
  const token = form.get("form_token") ?? "";
  return FORM_TOKEN.test(token) ? token : null;
}

const TICKET = "ticket_";
const FIELD = "field_";

/** The posted `application/x-www-form-urlencoded` body; the first of a repeated control counts (but `event_ids`). */
export function readPostedForm(body: string): PostedForm {
  const form = new URLSearchParams(body);
  const values = emptyValues();
  for (const [key, value] of form) {
    if (key.startsWith(TICKET) && !(key.slice(TICKET.length) in values.tickets)) values.tickets[key.slice(TICKET.length)] = value;
    else if (key.startsWith(FIELD) && !(key.slice(FIELD.length) in values.fields)) values.fields[key.slice(FIELD.length)] = value;
  }
  values.name = form.get("name") ?? "";
  values.email = form.get("email") ?? "";
  values.coupon = form.get("coupon") ?? "";
  values.termsAccepted = form.get("terms_accepted") === "on";
  values.eventIds = form.getAll("event_ids");
  return { token: formTokenOf(form), values, captcha: form.get("g-recaptcha-response") ?? "", offer: form.get("offer") ?? "" };
}

/** A count as typed: empty is none; otherwise digits only (the API's own schema then bounds it). */
const countText = z
  .string()
  .trim()
  .regex(/^\d{0,9}$/)
  .transform((s) => (s === "" ? 0 : Number(s)));
const eventIdText = z
  .string()
  .trim()
  .regex(/^[1-9]\d{0,15}$/)
  .transform(Number);

/**
 * The API body of a posted form. Every ticket type on the page counts (an input left out, as for a sold-out type,
 * is 0); a `ticket_<id>` of no type of this event is passed on, so the order rules refuse it as the API does.
 */
export function toOrderInput(form: PostedForm, typeIds: readonly string[]): { input: CustomerOrderInput; errors: [] } | { input: null; errors: ShapeError[] } {
  const errors: ShapeError[] = [];
  const counts = new Map<string, number>(typeIds.map((id) => [id, 0]));
  for (const [id, text] of Object.entries(form.values.tickets)) {
    const count = countText.safeParse(text);
    if (count.success) counts.set(id, count.data);
    else errors.push({ control: `${TICKET}${id}`, kind: "count" });
  }
  const eventIds: number[] = [];
  for (const text of form.values.eventIds) {
    const id = eventIdText.safeParse(text);
    if (id.success) eventIds.push(id.data);
    else errors.push({ control: "event_ids", kind: "value" });
  }
  if (errors.length > 0) return { input: null, errors };
  const { values } = form;
  const wire = {
    name: values.name,
    email: values.email,
    tickets: [...counts].map(([id, n]) => ({ [id]: n })),
    fields: values.fields,
    ...(eventIds.length > 0 ? { event_ids: eventIds } : {}),
    ...(values.coupon.trim() !== "" ? { coupon: values.coupon } : {}),
    ...(values.termsAccepted ? { terms_accepted: true } : {}),
    ...(form.captcha !== "" ? { recaptcha_token: form.captcha } : {}),
  };
  const parsed = createCustomerOrderBody.safeParse(wire);
  if (parsed.success) return { input: parsed.data, errors: [] };
  return { input: null, errors: parsed.error.issues.map((issue) => shapeErrorAt(issue.path, values)) };
}

/** Where a schema issue belongs: the control its path names, else the summary. */
function shapeErrorAt(path: readonly PropertyKey[], values: EnteredValues): ShapeError {
  const [top, , inner] = path;
  if (top === "tickets" && typeof inner === "string") return { control: `${TICKET}${inner}`, kind: "count" };
  if (top === "fields") {
    // The fields' schema is a union: its issue names no field, so the overlong answer is found by its length.
    const id = Object.entries(values.fields).find(([, v]) => v.length > 1000)?.[0];
    return { control: id === undefined ? null : `${FIELD}${id}`, kind: "value" };
  }
  if (top === "coupon" || top === "event_ids") return { control: top, kind: "value" };
  return { control: null, kind: "value" };
}
