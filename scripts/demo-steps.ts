/**
 * The first steps of docs/quickstart.md as data: an event that takes dashboard orders, a ticket type, the event's shop
 * page (the link to share), a scan key, a dashboard order with an Idempotency-Key (and the same request again), the
 * order's tickets, the PDF e-tickets and two scans at the door. One list, three readers:
 *
 * - `npm run demo` (scripts/demo.mjs) runs it against a running service and prints every call and answer;
 * - test/quickstart.test.ts runs it inside workerd against the test runtime and asserts every answer;
 * - the same test checks that docs/quickstart.md shows each step's `curl` command (`curlCommand`), in this order,
 *   so the document and the demo cannot drift apart.
 *
 * No imports and erasable TypeScript only: Node 22 runs this file as it is (type stripping), vitest transforms it
 * like any test module, and both type checks (tsconfig.json through the test, tsconfig.node.json) read it.
 *
 * Paths, header values and bodies name values an earlier answer gave as `$NAME`, the shell variables the quickstart
 * sets; `run` substitutes them, `curlCommand` leaves them for the shell.
 */

/** A fetch as both Node and workerd have it, reduced to what the steps use. */
export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<ResponseLike>;

interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The service API key and the administrator's application password (user name and password). */
export interface Credentials {
  apiKey: string;
  username: string;
  password: string;
}

/** What `npm run dev` uses on a fresh clone: `.dev.vars.example` (the README says the same). */
export const DEV_CREDENTIALS: Credentials = { apiKey: "dev-api-key", username: "admin", password: "dev-app-password" };

/** Where `npm run dev` answers. */
export const DEV_BASE = "http://127.0.0.1:8787/ticketing/v1";

export interface DemoStep {
  /** What the step shows, one line. */
  title: string;
  method: "GET" | "POST";
  /** The path under `/ticketing/v1`. */
  path: string;
  /** `admin`: the API key and Basic credentials (every `/admin` path); `none`: no credentials of the service. */
  auth: "admin" | "none";
  /** More request headers (the order's Idempotency-Key; the scan key in `X-EVT-API-KEY`). */
  headers?: Record<string, string>;
  /** The JSON body. */
  body?: string;
  /** The answer is a file: curl writes it there (`-o`). */
  saveAs?: string;
  /** curl shows the answer's status line and headers (`-i`): the step is about a header. */
  showHeaders?: boolean;
  /** The answer is a page for people: `npm run demo` prints its address to open in a browser. */
  page?: string;
  /** The status a correct service answers. */
  status: number;
  /** Shell variables later steps use, each read from the JSON answer at a dotted path (`tickets.0.ticket_id`). */
  saves?: Record<string, string>;
  /** The fields of the answer worth printing (dotted paths); the whole answer, trimmed, when absent. */
  show?: string[];
}

const ORDER = {
  method: "POST",
  path: "/admin/orders",
  auth: "admin",
  headers: { "Idempotency-Key": "quickstart-$EVENT_ID" },
  body: '{"event_id": $EVENT_ID, "name": "Ann Smith", "email": "ann@example.com", "tickets": [{"$TYPE_ID": 2}]}',
  status: 201,
} as const;

const SCAN = { method: "POST", path: "/scans", auth: "none", headers: { "X-EVT-API-KEY": "$SCAN_KEY" }, body: '{"id": "$TICKET_ID"}', status: 200 } as const;

export const DEMO_STEPS: readonly DemoStep[] = [
  {
    title: "Create an event that takes dashboard orders",
    method: "POST",
    path: "/admin/events",
    auth: "admin",
    body: '{"event_name": "Quickstart concert", "add_dashboard_orders_needed": true}',
    status: 201,
    saves: { EVENT_ID: "id" },
    show: ["id", "event_name", "add_dashboard_orders_needed"],
  },
  {
    title: "Give it a ticket type",
    method: "POST",
    path: "/admin/events/$EVENT_ID/ticket-types",
    auth: "admin",
    body: '{"name": "Regular", "price": 25}',
    status: 201,
    saves: { TYPE_ID: "id" },
    show: ["id", "name", "price"],
  },
  {
    title: "Open the event's shop page: the link to share, where the public buys (no key)",
    method: "GET",
    path: "/shop/$EVENT_ID",
    auth: "none",
    status: 200,
    page: "The event's shop page",
  },
  {
    title: "Make a scan key for the door (level 0: entrance, once)",
    method: "POST",
    path: "/admin/events/$EVENT_ID/scan-keys",
    auth: "admin",
    body: '{"location": "Main entrance", "level": 0}',
    status: 201,
    saves: { SCAN_KEY: "key" },
    show: ["key", "level", "location"],
  },
  {
    ...ORDER,
    title: "Place a dashboard order for two tickets, with an Idempotency-Key",
    saves: { ORDER_ID: "id", ORDER_UID: "uid" },
    show: ["id", "uid", "payment_status", "num_tickets", "total", "_links.tickets"],
  },
  {
    ...ORDER,
    title: "Send the same request again (as after a timeout): the same order answers, no second one",
    showHeaders: true,
    show: ["id", "uid"],
  },
  {
    title: "Read the order's tickets: their ids and the download link",
    method: "GET",
    path: "/admin/tickets/$ORDER_ID",
    auth: "admin",
    status: 200,
    saves: { TICKET_ID: "tickets.0.ticket_id" },
    show: ["order_id", "tickets.0.ticket_id", "tickets.1.ticket_id", "_links.download"],
  },
  {
    title: "Download the PDF e-tickets (no key: the order's uid in the path is the capability)",
    method: "GET",
    path: "/tickets/$ORDER_UID",
    auth: "none",
    saveAs: "tickets.pdf",
    status: 200,
  },
  { ...SCAN, title: "Scan the first ticket at the door, with the scan key (not the API key)" },
  { ...SCAN, title: "Scan it again: refused, already scanned" },
];

/** One call a step made, and its answer. */
export interface DemoCall {
  step: DemoStep;
  method: string;
  /** The path with the values substituted. */
  path: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  status: number;
  answerHeaders: ResponseLike["headers"];
  contentType: string;
  bytes: Uint8Array;
  /** The parsed answer when it is JSON. */
  json?: unknown;
}

const VARIABLE = /\$([A-Z][A-Z0-9_]*)/g;

function substitute(text: string, values: ReadonlyMap<string, string>, escapeForJson: boolean): string {
  return text.replace(VARIABLE, (_, name: string) => {
    const value = values.get(name);
    if (value === undefined) throw new Error(`$${name} is used before a step saved it`);
    return escapeForJson ? JSON.stringify(value).slice(1, -1) : value;
  });
}

/** The value at a dotted path (`tickets.0.ticket_id`) of a parsed JSON answer. */
export function valueAt(json: unknown, path: string): unknown {
  let value = json;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function basic({ username, password }: Credentials): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

/**
 * Runs the steps in order against `base` (ending with `/ticketing/v1`), calling `onCall` after each answer. A status
 * other than the step's throws (with the answer), so a run that returns went as the quickstart says.
 */
export async function runDemo(
  fetchLike: FetchLike,
  base: string,
  credentials: Credentials,
  onCall: (call: DemoCall, index: number) => void = () => {},
  steps: readonly DemoStep[] = DEMO_STEPS,
): Promise<DemoCall[]> {
  const values = new Map<string, string>();
  const calls: DemoCall[] = [];
  for (const [index, step] of steps.entries()) {
    const path = substitute(step.path, values, false);
    const headers: Record<string, string> = {};
    if (step.auth === "admin") {
      headers["X-EVT-API-KEY"] = credentials.apiKey;
      headers.Authorization = basic(credentials);
    }
    for (const [name, value] of Object.entries(step.headers ?? {})) headers[name] = substitute(value, values, false);
    const body = step.body === undefined ? undefined : substitute(step.body, values, true);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const url = `${base.replace(/\/+$/, "")}${path}`;
    const response = await fetchLike(url, body === undefined ? { method: step.method, headers } : { method: step.method, headers, body });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const contentType = response.headers.get("Content-Type") ?? "";
    const call: DemoCall = { step, method: step.method, path, url, headers, body, status: response.status, answerHeaders: response.headers, contentType, bytes };
    if (/^application\/([\w.-]+\+)?json/i.test(contentType)) call.json = JSON.parse(new TextDecoder().decode(bytes));
    calls.push(call);
    onCall(call, index);
    if (response.status !== step.status) {
      const text = new TextDecoder().decode(bytes.slice(0, 1000));
      throw new Error(`step ${index + 1} (${step.method} ${path}) answered ${response.status}, not ${step.status}: ${text}`);
    }
    for (const [name, at] of Object.entries(step.saves ?? {})) {
      const value = valueAt(call.json, at);
      if (typeof value !== "string" && typeof value !== "number") throw new Error(`step ${index + 1} (${step.method} ${path}): the answer has no ${at} for $${name}`);
      values.set(name, String(value));
    }
  }
  return calls;
}

const shellQuote = (text: string) => (text.includes("$") ? `"${text}"` : `'${text}'`);

/**
 * The step as the quickstart shows it: a `curl` command for a shell where `$API` is the base address and the saved
 * values are shell variables (the body goes through a here-document, so they expand in it too).
 */
export function curlCommand(step: DemoStep, credentials: Credentials = DEV_CREDENTIALS): string {
  const first = ["curl"];
  if (step.showHeaders) first.push("-i");
  if (step.saveAs) first.push("-o", step.saveAs);
  if (step.method !== "GET") first.push("-X", step.method);
  first.push(`"$API${step.path}"`);
  const options: string[] = [];
  if (step.auth === "admin") options.push(`-H ${shellQuote(`X-EVT-API-KEY: ${credentials.apiKey}`)} -u ${credentials.username}:${credentials.password}`);
  for (const [name, value] of Object.entries(step.headers ?? {})) options.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (step.body !== undefined) options.push(`-H 'Content-Type: application/json' -d @- <<EOF\n${step.body}\nEOF`);
  return [first.join(" "), ...options].join(" \\\n  ");
}
