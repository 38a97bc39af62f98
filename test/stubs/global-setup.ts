import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { handleMollie } from "./mollie-api";
import { quietExpectedRuntimeLines } from "./quiet-runtime";

/**
 * Local stand-ins for what lies outside the service, speaking their real protocols over real HTTP on 127.0.0.1:
 * webhook receivers, and later an email API, a payment provider, reCAPTCHA and eligibility servers. Tests
 * program them and read what they received through `/control/...` (see test/helpers/stubs.ts).
 *
 * Runs in Node (vitest globalSetup); the port reaches the workerd tests through `provide("stubPort")`.
 */

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

interface Behaviour {
  /** Answer this status for the next `failTimes` requests, then `status`. */
  failTimes: number;
  failStatus: number;
  status: number;
  body: string;
  delayMs: number;
}

const received = new Map<string, Recorded[]>();
const behaviours = new Map<string, Behaviour>();

const defaults = (): Behaviour => ({ failTimes: 0, failStatus: 500, status: 200, body: "{}", delayMs: 0 });

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(value));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://stub");
  const body = await readBody(req);
  // Mollie's Payments API v2, stateful per account (test/stubs/mollie-api.ts).
  if (await handleMollie(req, res, url, body)) return;
  const control = /^\/control\/([\w.-]+)(\/requests)?$/.exec(url.pathname);
  if (control) {
    const name = control[1]!;
    if (control[2] && req.method === "GET") return json(res, 200, received.get(name) ?? []);
    if (req.method === "PUT") {
      behaviours.set(name, { ...defaults(), ...(JSON.parse(body || "{}") as Partial<Behaviour>) });
      received.set(name, []);
      return json(res, 200, { ok: true });
    }
    return json(res, 404, { error: "unknown control call" });
  }
  // /<name>/...: record, then answer as programmed.
  const name = url.pathname.split("/")[1] ?? "";
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : (v ?? "");
  const list = received.get(name) ?? [];
  list.push({ method: req.method ?? "", path: url.pathname + url.search, headers, body, at: Date.now() });
  received.set(name, list);
  const b = behaviours.get(name) ?? defaults();
  if (b.delayMs > 0) await new Promise((r) => setTimeout(r, b.delayMs));
  if (b.failTimes > 0) {
    b.failTimes -= 1;
    res.writeHead(b.failStatus, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: "programmed failure" }));
    return;
  }
  res.writeHead(b.status, { "Content-Type": "application/json", "X-Stub": name });
  res.end(b.body);
}

export default async function setup({ provide }: { provide: (key: string, value: unknown) => void }) {
  // Here, in the process that runs workerd, before the first test file starts it.
  quietExpectedRuntimeLines();
  const server = createServer((req, res) => {
    handle(req, res).catch((err) => json(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  provide("stubPort", typeof address === "object" && address ? address.port : 0);
  // `npm run openapi:write`: the OpenAPI test writes the examples it captured instead of comparing them.
  provide("openapiWrite", process.env.OPENAPI_WRITE === "1");
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
