import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A stand-in for Mollie's Payments API v2 (https://docs.mollie.com/reference/payments-api), stateful like a Mollie
 * test account: each account (`/mollie/<account>/v2/...`) has its API key, its payments and their refunds.
 *
 * API (Bearer key required; errors as Mollie writes them, `application/hal+json` `{status, title, detail, field?}`):
 *   POST   /v2/payments                      create (201, status `open`, `_links.checkout.href`)
 *   GET    /v2/payments/<id>                 get (404 for an unknown id)
 *   DELETE /v2/payments/<id>                 cancel while `isCancelable` (else 422)
 *   POST   /v2/payments/<id>/refunds         create a refund; the same `Idempotency-Key` answers the first answer again
 *   GET    /v2/payments/<id>/refunds         list refunds
 * Control (the test's hand, as a customer paying or the dashboard would):
 *   PUT    /mollie-control/<account>               a fresh account: `{apiKey}` (default test_stubkey)
 *   PATCH  /mollie-control/<account>               `{down: 503 | null}`: answer every API call with that status
 *   PATCH  /mollie-control/<account>/payments/<id> `{status?, amount?, amountRefunded?}`
 *   GET    /mollie-control/<account>/requests      what the API received
 */

type Json = Record<string, unknown>;
type Amount = { currency: string; value: string };

interface Account {
  apiKey: string;
  down: number | null;
  payments: Map<string, Json>;
  refunds: Map<string, Json[]>;
  /** Idempotency-Key -> the first answer to it. */
  idempotent: Map<string, { status: number; body: Json }>;
  requests: { method: string; path: string; headers: Record<string, string>; body: string; at: number }[];
}

const accounts = new Map<string, Account>();
const DOCS = { href: "https://docs.mollie.com/overview/handling-errors", type: "text/html" };

const token = (n = 10) =>
  randomBytes(n * 2)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, n);

const newAccount = (apiKey = "test_stubkey"): Account => ({ apiKey, down: null, payments: new Map(), refunds: new Map(), idempotent: new Map(), requests: [] });

/** Answers, and says the request was handled. */
function hal(res: ServerResponse, status: number, value: unknown): true {
  res.writeHead(status, { "Content-Type": "application/hal+json" });
  res.end(JSON.stringify(value));
  return true;
}

function problem(res: ServerResponse, status: number, title: string, detail: string, field?: string): true {
  return hal(res, status, { status, title, detail, ...(field ? { field } : {}), _links: { documentation: DOCS } });
}

const isAmount = (a: unknown): a is Amount =>
  !!a &&
  typeof a === "object" &&
  typeof (a as Amount).currency === "string" &&
  /^[A-Z]{3}$/.test((a as Amount).currency) &&
  typeof (a as Amount).value === "string" &&
  /^\d+\.\d{2}$/.test((a as Amount).value);

const cents = (a: Amount) => Math.round(Number(a.value) * 100);
const decimal = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, "0")}`;

function paymentLinks(base: string, p: Json): Json {
  return {
    self: { href: `${base}/v2/payments/${p.id}`, type: "application/hal+json" },
    ...(p.status === "open" ? { checkout: { href: `https://www.mollie.com/checkout/select-method/${p.checkoutToken}`, type: "text/html" } } : {}),
    dashboard: { href: `https://www.mollie.com/dashboard/org_1/payments/${p.id}`, type: "text/html" },
    documentation: { href: "https://docs.mollie.com/reference/get-payment", type: "text/html" },
  };
}

function view(base: string, p: Json): Json {
  const { checkoutToken: _t, ...rest } = p;
  return { ...rest, isCancelable: p.status === "open" ? true : undefined, _links: paymentLinks(base, p) };
}

function setStatus(p: Json, status: string): void {
  p.status = status;
  const now = new Date().toISOString();
  if (status === "paid") {
    p.paidAt = now;
    p.method = p.method ?? "ideal";
    p.amountRemaining = p.amount;
    p.amountRefunded = p.amountRefunded ?? { currency: (p.amount as Amount).currency, value: "0.00" };
  }
  if (status === "canceled") p.canceledAt = now;
  if (status === "expired") p.expiredAt = now;
  if (status === "failed") p.failedAt = now;
}

/** Answers `/mollie/...` and `/mollie-control/...`; false for any other path. */
export async function handleMollie(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<boolean> {
  const control = /^\/mollie-control\/([\w.-]+)(\/requests|\/payments\/(tr_\w+))?$/.exec(url.pathname);
  if (control) {
    const name = control[1]!;
    const input = (body ? JSON.parse(body) : {}) as Json;
    if (!control[2] && req.method === "PUT") {
      accounts.set(name, newAccount(typeof input.apiKey === "string" ? input.apiKey : undefined));
      hal(res, 200, { ok: true });
      return true;
    }
    const account = accounts.get(name);
    if (!account) {
      problem(res, 404, "Not Found", `no stub account ${name}`);
      return true;
    }
    if (control[2] === "/requests" && req.method === "GET") {
      hal(res, 200, account.requests);
      return true;
    }
    if (!control[2] && req.method === "PATCH") {
      account.down = typeof input.down === "number" ? input.down : null;
      hal(res, 200, { ok: true });
      return true;
    }
    const payment = control[3] ? account.payments.get(control[3]) : undefined;
    if (payment && req.method === "PATCH") {
      if (input.amount) payment.amount = input.amount;
      if (input.amountRefunded) payment.amountRefunded = input.amountRefunded;
      if (typeof input.status === "string") setStatus(payment, input.status);
      hal(res, 200, payment);
      return true;
    }
    problem(res, 404, "Not Found", "unknown control call");
    return true;
  }

  const api = /^\/mollie\/([\w.-]+)(\/v2\/.*)$/.exec(url.pathname);
  if (!api) return false;
  const account = accounts.get(api[1]!);
  if (!account) {
    problem(res, 404, "Not Found", "no such stub account");
    return true;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : (v ?? "");
  account.requests.push({ method: req.method ?? "", path: api[2]!, headers, body, at: Date.now() });
  if (account.down !== null) {
    problem(res, account.down, "Service Unavailable", "programmed outage");
    return true;
  }
  if (headers.authorization !== `Bearer ${account.apiKey}`) {
    problem(res, 401, "Unauthorized Request", "Missing authentication, or failed to authenticate");
    return true;
  }
  const base = `http://${req.headers.host}/mollie/${api[1]}`;
  const path = api[2]!;
  let input: Json = {};
  if (body) {
    try {
      input = JSON.parse(body) as Json;
    } catch {
      problem(res, 400, "Bad Request", "The JSON body is invalid");
      return true;
    }
  }

  if (path === "/v2/payments" && req.method === "POST") {
    if (!isAmount(input.amount)) return problem(res, 422, "Unprocessable Entity", "The amount is invalid", "amount");
    if (typeof input.description !== "string" || input.description === "") return problem(res, 422, "Unprocessable Entity", "The description is invalid", "description");
    if (typeof input.redirectUrl !== "string") return problem(res, 422, "Unprocessable Entity", "The redirect URL is invalid", "redirectUrl");
    const p: Json = {
      resource: "payment",
      id: `tr_${token(10)}`,
      mode: account.apiKey.startsWith("live_") ? "live" : "test",
      createdAt: new Date().toISOString(),
      amount: input.amount,
      description: input.description,
      method: null,
      metadata: input.metadata ?? null,
      status: "open",
      expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
      profileId: "pfl_stub",
      sequenceType: "oneoff",
      redirectUrl: input.redirectUrl,
      webhookUrl: input.webhookUrl ?? null,
      checkoutToken: token(8),
    };
    account.payments.set(p.id as string, p);
    hal(res, 201, view(base, p));
    return true;
  }
  const one = /^\/v2\/payments\/(tr_\w+)(\/refunds)?$/.exec(path);
  const payment = one ? account.payments.get(one[1]!) : undefined;
  if (!one || !payment) {
    problem(res, 404, "Not Found", `No payment exists with token ${one?.[1] ?? path}.`);
    return true;
  }
  if (!one[2] && req.method === "GET") return hal(res, 200, view(base, payment));
  if (!one[2] && req.method === "DELETE") {
    if (payment.status !== "open") return problem(res, 422, "Unprocessable Entity", "The payment cannot be canceled");
    setStatus(payment, "canceled");
    return hal(res, 200, view(base, payment));
  }
  if (one[2] && req.method === "GET") {
    const list = account.refunds.get(payment.id as string) ?? [];
    hal(res, 200, {
      count: list.length,
      _embedded: { refunds: list },
      _links: { self: { href: `${base}${path}`, type: "application/hal+json" }, previous: null, next: null, documentation: DOCS },
    });
    return true;
  }
  if (one[2] && req.method === "POST") {
    const key = headers["idempotency-key"];
    const seen = key ? account.idempotent.get(key) : undefined;
    if (seen) return hal(res, seen.status, seen.body);
    const answer = (status: number, value: Json) => {
      if (key) account.idempotent.set(key, { status, body: value });
      return hal(res, status, value);
    };
    const fail = (status: number, detail: string, field?: string) =>
      answer(status, { status, title: "Unprocessable Entity", detail, ...(field ? { field } : {}), _links: { documentation: DOCS } });
    if (!isAmount(input.amount)) return fail(422, "The amount is invalid", "amount");
    const amount = payment.amount as Amount;
    if (payment.status !== "paid") return fail(422, "The payment cannot be refunded");
    if (input.amount.currency !== amount.currency) return fail(422, "The currency does not match the payment's currency", "amount");
    const refunded = cents((payment.amountRefunded as Amount | undefined) ?? { currency: amount.currency, value: "0.00" });
    const remaining = cents(amount) - refunded;
    if (cents(input.amount) > remaining) return fail(422, "The amount is higher than the remaining amount of the payment", "amount");
    const refund: Json = {
      resource: "refund",
      id: `re_${token(10)}`,
      amount: input.amount,
      status: "pending",
      createdAt: new Date().toISOString(),
      description: typeof input.description === "string" ? input.description : "",
      metadata: input.metadata ?? null,
      paymentId: payment.id,
      settlementAmount: { currency: amount.currency, value: `-${input.amount.value}` },
      _links: { self: { href: `${base}${path}/re`, type: "application/hal+json" }, payment: { href: `${base}/v2/payments/${payment.id}`, type: "application/hal+json" } },
    };
    account.refunds.set(payment.id as string, [...(account.refunds.get(payment.id as string) ?? []), refund]);
    payment.amountRefunded = { currency: amount.currency, value: decimal(refunded + cents(input.amount)) };
    payment.amountRemaining = { currency: amount.currency, value: decimal(remaining - cents(input.amount)) };
    return answer(201, refund);
  }
  problem(res, 405, "Method Not Allowed", `${req.method} is not allowed here`);
  return true;
}
