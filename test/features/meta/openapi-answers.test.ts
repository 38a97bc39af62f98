import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { buildApp } from "../../../src/app";
import { writeLog } from "../../../src/features/logs/logs.service";
import examples from "../../../src/features/meta/openapi-examples.json";
import { answeringRoutes, openApiPath } from "../../../src/http/openapi";
import worker from "../../../src/index";
import { depsFromEnv } from "../../../src/platform/deps";
import { eventObject } from "../../../src/platform/event-object.client";
import { BASE, type CallOptions, call, expectJson, request, unique } from "../../helpers/api";
import { criteria } from "../../helpers/bulk";
import { emailedConfirmLink } from "../../helpers/orders";
import { asExample, type CheckedAnswer, checkAnswer, fieldDifferences, type Json, operationKey, pointer, registerDocument, validAt } from "../../helpers/openapi";
import { stripeEnv, stripeSignature } from "../../helpers/stripe";
import { serviceAccount, walletEnv } from "../../helpers/google-wallet";
import { mollieAccount } from "../../helpers/mollie";
import { walletCredentials } from "../../helpers/wallet-credentials";
import { whileLogging } from "../../helpers/logs";
import { programStub, stubUrl, waitForRequests } from "../../helpers/stubs";
import { makePdf, upload } from "../../helpers/uploads";

/**
 * Every route of the app, called for real (happy path, through the public HTTP surface and the usual fixtures), and
 * each answer checked against the OpenAPI document the service serves: status, content type, body schema and the
 * headers declared (test/helpers/openapi.ts). It fails when a route of `answeringRoutes(buildApp())` was not
 * called, so a new route cannot go undocumented, and each operation's success example must be a real answer: the
 * committed examples (src/features/meta/openapi-examples.json) are this test's captures, and every run checks that
 * each still has the fields of this run's answer. `npm run openapi:write` rewrites them (OPENAPI_WRITE=1) and then
 * docs/openapi.json.
 */

const URI = "https://ticketing.test/openapi.json";
const pub = { key: null, auth: null } as const;
const shop = { auth: null } as const;
const EXAMPLES_FILE = "../../../src/features/meta/openapi-examples.json";

/** Operations whose success has no example: the document itself, pages, PDFs and redirects. */
const NO_EXAMPLE = new Set(["get /ticketing/v1/openapi.json"]);

let doc: Json;
/** The first answer of each route in this run, by operation key. */
const answered = new Map<string, CheckedAnswer>();

type How = CallOptions | ((path: string) => Promise<Response>);

function fill(template: string, params: Record<string, string | number>): string {
  if (template === "/") return "";
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

/** Calls `route` (`GET /admin/events/{id}`) with its path parameters, checks the answer against the document, records it. */
async function hit(route: string, params: Record<string, string | number> = {}, how: How = {}, query = ""): Promise<any> {
  const [method, template] = route.split(" ") as [string, string];
  const path = fill(template, params) + query;
  const res = typeof how === "function" ? await how(path) : await call(method, path, how);
  const checked = await checkAnswer(doc, URI, route, res);
  expect(checked.status, `${route}: a success`).toBeLessThan(400);
  if (!answered.has(checked.key)) answered.set(checked.key, checked);
  return checked.body;
}

/** Calls a route expecting a failure; the answer is checked against the document all the same (not counted as covering it). */
async function miss(route: string, status: number, params: Record<string, string | number> = {}, how: How = {}): Promise<void> {
  const [method, template] = route.split(" ") as [string, string];
  const path = fill(template, params);
  const res = typeof how === "function" ? await how(path) : await call(method, path, how);
  const checked = await checkAnswer(doc, URI, route, res);
  expect(checked.status).toBe(status);
}

const address = (label: string) => `${unique(label)}@example.com`.toLowerCase();

/** The fixtures the calls share, made as they go. */
const s: Json = {};

async function ticketIdsOf(orderId: number): Promise<string[]> {
  return (await expectJson(call("GET", `/admin/tickets/${orderId}`), 200)).tickets.map((t: Json) => t.ticket_id);
}

/** The event object took the order's hold (its deferred confirm ran): it knows the tickets' order. */
async function taken(eventId: number, uid: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const snap = await eventObject(env, eventId).snapshot();
    if (snap.reservations.find((r) => r.uid === uid)?.state === "taken") return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`order ${uid} not taken at event ${eventId}`);
}

/** As a browser sends it, not following the redirect it answers. */
function browser(method: string, body?: string): How {
  const headers = body === undefined ? undefined : { "Content-Type": "application/x-www-form-urlencoded" };
  return (path) => exports.default.fetch(new Request(`${BASE}${path}`, { method, redirect: "manual", headers, body }));
}

describe("every route answers as the OpenAPI document says", () => {
  beforeAll(async () => {
    doc = await expectJson(call("GET", "/openapi.json", pub), 200);
    registerDocument(doc, URI);
  });

  it("meta: the service, its health, the document and its page", async () => {
    await hit("GET /", {}, pub);
    await hit("GET /health", {}, pub);
    await hit("GET /openapi.json", {}, pub);
    await hit("GET /docs", {}, pub);
  });

  it("users and application passwords", async () => {
    const username = unique("oa");
    const user = await hit("POST /admin/users", {}, { body: { username, email: `${username}@example.com`, role: "organizer", name: "Olive Api" } });
    await hit("GET /admin/users");
    await hit("GET /admin/users/{id}", { id: user.id });
    await hit("PUT /admin/users/{id}", { id: user.id }, { body: { name: "Olive A. Pi" } });
    const added = await hit("POST /admin/users/{id}/application-passwords", { id: user.id }, { body: { name: "CI" } });
    await hit("GET /admin/users/{id}/application-passwords", { id: user.id });
    // The console's session (decisions.md 15): signed in with the added password, then out again.
    let cookie = "";
    const session = await hit("POST /console/session", {}, async (path) => {
      const res = await call("POST", path, { ...pub, body: { username, password: added.application_password } });
      cookie = (res.headers.get("Set-Cookie") ?? "").split(";")[0]!;
      return res;
    });
    expect(session.user).toMatchObject({ id: user.id, username });
    await hit("DELETE /console/session", {}, { ...pub, headers: { Cookie: cookie, "X-Ticketing-CSRF": session.csrf_token } });
    await hit("DELETE /admin/users/{id}/application-passwords/{uuid}", { id: user.id, uuid: added.uuid });
    await hit("DELETE /admin/users/{id}", { id: user.id });
  });

  it("catalogue: an event, its ticket types, input fields and scan keys", async () => {
    s.event = await hit(
      "POST /admin/events",
      {},
      {
        body: {
          event_name: unique("OpenAPI "),
          event_date: "2031-05-01 20:00:00",
          add_dashboard_orders_needed: true,
          invoice_needed: true,
          emails_needed: true,
          email: { sender_name: "Ticketing", sender_email: "tickets@example.com", subject: "Your tickets", body: "<p>Thanks {%NAME%}</p>" },
        },
      },
    );
    const id = s.event.id;
    await hit("GET /admin/events", {}, {}, `?include=${id}`);
    await hit("GET /admin/events/{id}", { id });
    await hit("PUT /admin/events/{id}", { id }, { body: { order_submit_text: "Order now" } });
    s.regular = await hit("POST /admin/events/{id}/ticket-types", { id }, { body: { name: "Regular", price: 12.5, vat: 21, stock_control: true, stock: 100 } });
    s.vip = await hit("POST /admin/events/{id}/ticket-types", { id }, { body: { name: "VIP", price: 30, vat: 21, maximum_to_order: 0 } });
    await hit("GET /admin/events/{id}/ticket-types", { id });
    await hit("GET /admin/events/{id}/ticket-types/{typeId}", { id, typeId: s.regular.id });
    await hit("PUT /admin/events/{id}/ticket-types/{typeId}", { id, typeId: s.regular.id }, { body: { show_remaining: true } });
    const field = await hit("POST /admin/events/{id}/input-fields", { id }, { body: { name: "Company" } });
    await hit("GET /admin/events/{id}/input-fields", { id });
    await hit("GET /admin/events/{id}/input-fields/{fieldId}", { id, fieldId: field.id });
    await hit("PUT /admin/events/{id}/input-fields/{fieldId}", { id, fieldId: field.id }, { body: { max: "60" } });
    s.scanKey = (await hit("POST /admin/events/{id}/scan-keys", { id }, { body: { location: "Main entrance", level: 0 } })).key;
    await hit("GET /admin/events/{id}/scan-keys", { id });
    await hit("GET /admin/events/{id}/scan-keys/{key}", { id, key: s.scanKey });
    await hit("PUT /admin/events/{id}/scan-keys/{key}", { id, key: s.scanKey }, { body: { location: "Main door" } });
    await hit("GET /admin/events/{id}/scan-keys/{key}/qr", { id, key: s.scanKey });
    await hit("GET /admin/events/{id}/scan-keys/{key}/qr", { id, key: s.scanKey }, {}, "?format=svg");
    await miss("GET /admin/events/{id}/scan-keys/{key}/qr", 400, { id, key: s.scanKey }, (path) => call("GET", `${path}?format=gif`));
    // `_embed` answers what the document says too.
    await checkAnswer(doc, URI, "GET /admin/events/{id}", await call("GET", `/admin/events/${id}?_embed`));
  });

  it("dashboard orders and an order's tickets (an Idempotency-Key replays the first answer)", async () => {
    const lines = (regular: number, vip: number) => [{ [s.regular.id]: regular }, { [s.vip.id]: vip }];
    const body = { event_id: s.event.id, name: "Ada Lovelace", email: address("ada"), fields: [], tickets: lines(2, 1) };
    const key = unique("dashboard-");
    s.order = await hit("POST /admin/orders", {}, { body, headers: { "Idempotency-Key": key } });
    const replay = await call("POST", "/admin/orders", { body, headers: { "Idempotency-Key": key } });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    await checkAnswer(doc, URI, "POST /admin/orders", replay);
    s.plainOrder = await expectJson(call("POST", "/admin/orders", { body: { ...body, email: address("grace"), tickets: lines(1, 0) } }), 201);
    await hit("GET /admin/orders", {}, {}, `?include=${s.order.id}`);
    await hit("GET /admin/orders/{id}", { id: s.order.id });
    await hit("PUT /admin/orders/{id}", { id: s.order.id }, { body: { custom_status: "checked" } });
    await hit("GET /admin/tickets/{id}", { id: s.order.id });
    await checkAnswer(doc, URI, "GET /admin/orders/{id}", await call("GET", `/admin/orders/${s.order.id}?_embed`));
  });

  it("e-tickets, invoices and personalisation", async () => {
    await hit("GET /tickets/{uid}", { uid: s.plainOrder.uid }, pub);
    await hit("GET /invoices/{uid}", { uid: s.plainOrder.uid }, pub);

    const event = await expectJson(call("POST", "/admin/events", { body: { event_name: unique("Badges "), add_dashboard_orders_needed: true } }), 201);
    const badge = await expectJson(call("POST", `/admin/events/${event.id}/input-fields`, { body: { name: "Badge", is_personalised: true, is_required: true } }), 201);
    const guest = await expectJson(call("POST", `/admin/events/${event.id}/ticket-types`, { body: { name: "Guest", price: 0, personalise: "Badge" } }), 201);
    const order = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: event.id, name: "Alan Turing", email: address("alan"), tickets: [{ [guest.id]: 1 }] } }),
      201,
    );
    const needs = await hit("GET /tickets/{uid}/personalisation", { uid: order.uid }, pub);
    await hit("GET /tickets/{uid}/personalise", { uid: order.uid }, pub);
    const ticketId = needs.tickets[0].ticket_id;
    await hit("PUT /tickets/{uid}/personalisation", { uid: order.uid }, { ...pub, body: { tickets: [{ ticket_id: ticketId, fields: { [badge.id]: "Alan" } }] } });

    // Google Wallet, configured through the settings as a deployment would (docs/wallet.md); unconfigured, a 404.
    const wallet = walletEnv(await serviceAccount());
    const viaWallet = async (path: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`${BASE}${path}`, { redirect: "manual" }), wallet, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    await hit("GET /tickets/{uid}/{ticket_id}/wallet/google", { uid: order.uid, ticket_id: ticketId }, viaWallet);
    await miss("GET /tickets/{uid}/{ticket_id}/wallet/google", 404, { uid: order.uid, ticket_id: "AAAAAAAAAAAAAAAA" }, viaWallet);
    await miss("GET /tickets/{uid}/{ticket_id}/wallet/google", 404, { uid: order.uid, ticket_id: ticketId }, pub);
    // Apple Wallet (decisions.md 15 "Wallet passes"): configured with throwaway credentials; unconfigured, a 404.
    const appleCredentials = await walletCredentials();
    const withApple = async (path: string) => {
      const ctx = createExecutionContext();
      const apple = {
        APPLE_PASS_CERT: appleCredentials.certPem,
        APPLE_PASS_KEY: appleCredentials.keyPem,
        APPLE_WWDR_CERT: appleCredentials.wwdrPem,
        APPLE_PASS_TYPE_ID: "pass.test",
        APPLE_TEAM_ID: "TEAM123456",
      };
      const res = await worker.fetch(request("GET", path, pub), { ...env, ...apple } as typeof env, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const applePass = "GET /tickets/{uid}/{ticket_id}/wallet.pkpass";
    await hit(applePass, { uid: order.uid, ticket_id: ticketId }, withApple);
    await miss(applePass, 404, { uid: order.uid, ticket_id: ticketId }, pub);
    await miss(applePass, 404, { uid: order.uid, ticket_id: "A".repeat(16) }, withApple);
  });

  it("scans, revoked and valid tickets, public keys; re-issued tickets; reports", async () => {
    const key = { key: s.scanKey, auth: null };
    await taken(s.event.id, s.order.uid);
    const [ticket] = await ticketIdsOf(s.order.id);
    await hit("POST /scans", {}, { ...key, body: { id: ticket } });
    await hit("GET /scans/{ticket_id}", { ticket_id: ticket! }, key);
    const list = await hit("GET /scans/tickets", {}, key);
    // A page with its next link and a delta answer as the document says; an unchanged list is a 304 with its ETag.
    await checkAnswer(doc, URI, "GET /scans/tickets", await call("GET", "/scans/tickets?per_page=1", key));
    await checkAnswer(doc, URI, "GET /scans/tickets", await call("GET", `/scans/tickets?since=${list.sync_token}`, key));
    const etag = (await call("GET", "/scans/tickets", key)).headers.get("ETag")!;
    await miss("GET /scans/tickets", 304, {}, { ...key, headers: { "If-None-Match": etag } });
    await hit("GET /scan-keys/public-keys", {}, key);
    await hit("GET /scan-keys/self", {}, key);
    await hit("DELETE /admin/tickets/{id}", { id: s.plainOrder.id });
    await hit("POST /admin/tickets/{id}", { id: s.plainOrder.id });
    await hit("GET /scans/revoked", {}, key);
    const id = s.event.id;
    await hit("GET /admin/events/{id}/sales", { id });
    await hit("GET /admin/events/{id}/sales/group", { id });
    await hit("GET /admin/events/{id}/scans", { id });
    await hit("GET /admin/events/{id}/scans/group", { id });
    await hit("GET /admin/events/{id}/live", { id });
    await hit("GET /admin/events/{id}/exports/orders.csv", { id });
    await hit("GET /admin/events/{id}/exports/tickets.csv", { id });
    await hit("GET /admin/events/{id}/exports/scans.csv", { id });
  });

  it("customer orders, the order form and status, the test checkout, refunds, bulk actions, Stripe's notices, RSVP confirmation", async () => {
    const id = s.event.id;
    await hit("GET /events/{id}/order-form", { id }, shop);
    await hit("GET /shop/{id}", { id }, pub);
    const shopForm = new URLSearchParams({
      form_token: unique("shop-form-token-"),
      name: "Ann Smith",
      email: address("shop"),
      [`ticket_${s.regular.id}`]: "1",
      [`ticket_${s.vip.id}`]: "0",
    });
    await hit("POST /shop/{id}", { id }, browser("POST", shopForm.toString()));
    const order = (email: string) => ({ name: "Ann Smith", email, tickets: [{ [s.regular.id]: 1 }, { [s.vip.id]: 0 }] });
    s.customer = await hit("POST /events/{id}/orders", { id }, { ...shop, body: order(address("ann")), headers: { "Idempotency-Key": unique("checkout-") } });
    await hit("GET /orders/{id}/{uid}/status", { id: s.customer.id, uid: s.customer.uid }, pub);
    await hit("GET /shop/orders/{uid}", { uid: s.customer.uid }, pub);
    await hit("GET /pay/test/{uid}", { uid: s.customer.uid }, pub);
    await hit("POST /pay/test/{uid}", { uid: s.customer.uid }, browser("POST", "action=pay"));
    await hit("POST /admin/orders/{id}/refund", { id: s.customer.id }, { body: {} });

    const second = await expectJson(call("POST", `/events/${id}/orders`, { ...shop, body: order(address("bea")) }), 201);
    await hit("POST /pay/test/{uid}", { uid: second.uid }, browser("POST", "action=pay"));
    await hit("POST /admin/bulk/refunds/list", {}, { body: criteria([id]) });
    await hit("POST /admin/bulk/refunds/send", {}, { body: { order_ids: [second.id], cost_type: "order", cost: 0 } });
    await hit("POST /admin/bulk/order-emails/list", {}, { body: criteria([id]) });
    await hit("POST /admin/bulk/order-emails/send", {}, { body: { order_ids: [s.order.id] } });

    // Stripe's notices carry no key; an event the service does not act on is acknowledged.
    await hit("POST /payments/stripe/webhook", {}, async (path) => {
      const body = JSON.stringify({ id: `evt_${unique("oa")}`, object: "event", type: "customer.created", data: { object: { id: "cus_1", object: "customer" } } });
      const req = new Request(`${BASE}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": await stripeSignature(body) },
        body,
      });
      const ctx = createExecutionContext();
      const res = await worker.fetch(req, stripeEnv("stripe-unused"), ctx);
      await waitOnExecutionContext(ctx);
      return res;
    });

    // Mollie's notice names only a payment id; one Mollie does not know is acknowledged, and a body without one is refused.
    const mollie = await mollieAccount();
    const mollieCall = (body: string) => async (path: string) => {
      const req = new Request(`${BASE}${path}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
      const ctx = createExecutionContext();
      const res = await worker.fetch(req, mollie.env(), ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    await hit("POST /payments/mollie/webhook", {}, mollieCall("id=tr_unknownPayment"));
    await miss("POST /payments/mollie/webhook", 400, {}, mollieCall("id=abc"));
    await mollie.down(503);
    await whileLogging("warn", [/mollie payment could not be fetched/], () => miss("POST /payments/mollie/webhook", 503, {}, mollieCall("id=tr_unknownPayment")));
    await mollie.down(null);

    const rsvp = await expectJson(
      call("POST", "/admin/events", {
        body: { event_name: unique("RSVP "), confirmation_emails_needed: true, email_confirmation: { subject: "You are on the list", body: "<p>See you</p>" } },
      }),
      201,
    );
    const guest = await expectJson(call("POST", `/admin/events/${rsvp.id}/ticket-types`, { body: { name: "Guest", price: 0 } }), 201);
    const booked = await expectJson(
      call("POST", `/events/${rsvp.id}/orders`, { ...shop, body: { name: "Ann Smith", email: address("rsvp"), tickets: [{ [guest.id]: 1 }] } }),
      201,
    );
    const token = (await emailedConfirmLink(booked.id)).split("/").pop()!;
    await hit("GET /orders/confirm/{token}", { token }, browser("GET"));
  });

  it("the waiting list: joining a sold-out type, the organiser's list and a delete", async () => {
    const event = await expectJson(call("POST", "/admin/events", { body: { event_name: unique("Waiting "), waiting_list_needed: true } }), 201);
    const type = await expectJson(call("POST", `/admin/events/${event.id}/ticket-types`, { body: { name: "Standing", price: 10, stock_control: true, stock: 0 } }), 201);
    const entry = await hit(
      "POST /events/{id}/waiting-list",
      { id: event.id },
      { ...shop, body: { name: "Wendy Wait", email: address("wait"), ticket_type_id: type.id, count: 2 } },
    );
    await miss("POST /events/{id}/waiting-list", 409, { id: event.id }, { ...shop, body: { name: "Wendy Wait", email: entry.email, ticket_type_id: type.id, count: 2 } });
    // The shop page's join form (docs/shop.md "The waiting list"): a 303 to the page's confirmation.
    const shopJoin = new URLSearchParams({
      form_token: unique("shop-join-token-"),
      waiting_name: "Walt Wait",
      waiting_email: address("shop-wait"),
      waiting_type: type.id,
      waiting_count: "1",
    });
    await hit("POST /shop/{id}/waiting-list", { id: event.id }, browser("POST", shopJoin.toString()));
    await hit("GET /admin/events/{id}/waiting-list", { id: event.id });
    await hit("GET /admin/events/{id}/waiting-list/{entryId}", { id: event.id, entryId: entry.id });
    await hit("DELETE /admin/events/{id}/waiting-list/{entryId}", { id: event.id, entryId: entry.id });
  });

  it("coupons and bulk coupon emails", async () => {
    const code = unique("OA");
    const email = address("coupon");
    const coupon = await hit("POST /admin/coupons", {}, { body: { code, type: "percent", amount: 10, email, events: String(s.event.id) } });
    await hit("GET /admin/coupons", {}, {}, `?search=${code}`);
    await hit("GET /admin/coupons/{id}", { id: coupon.id });
    await hit("PUT /admin/coupons/{id}", { id: coupon.id }, { body: { description: "Ten percent off" } });
    await hit("GET /admin/coupons/{id}/reset-counters", { id: coupon.id });
    const mail = { subject: "Your code {%CODE%}", body: "<p>Code {%CODE%} gives {%AMOUNT%} off.</p>" };
    const open = { date_from: "", date_to: "", tickets_minimum: 0, tickets_maximum: 0, amount_minimum: 0, amount_maximum: 0 };
    const listed = await hit(
      "POST /admin/coupons/bulk/emails/list",
      {},
      {
        body: { bulk_source: "1", event_ids: String(s.event.id), template_code: "", code_prefix: code, code_suffix: "", ...open, ...mail },
      },
    );
    await hit("POST /admin/coupons/bulk/emails/send", {}, { body: { bulk_source: "1", template_code: "", ids: listed.ids, ...mail } });
    await hit("POST /admin/coupons/bulk/emails/send-example", {}, { body: { email: address("example"), ...mail } });
    await hit("DELETE /admin/coupons/{id}", { id: coupon.id });
  });

  it("PDF templates and email lists", async () => {
    const pdf = await makePdf(1);
    const created = await hit("POST /admin/pdf-templates", {}, (path) => upload("POST", path, { file: pdf, fields: { title: "Ticket" } }));
    await hit("GET /admin/pdf-templates");
    await hit("GET /admin/pdf-templates/{id}", { id: created.id });
    await hit("GET /admin/pdf-templates/{id}/file", { id: created.id });
    await hit("GET /admin/pdf-templates/{id}/preview", { id: created.id }, {}, `?event_id=${s.event.id}`);
    await hit("PUT /admin/pdf-templates/{id}", { id: created.id }, { body: { title: "Ticket, 2031" } });
    await hit("DELETE /admin/pdf-templates/{id}", { id: created.id });

    const csv = `Ann Smith,${address("list")},0\nBea Jones,${address("list")},0\n`;
    const id = s.event.id;
    await hit("POST /admin/emaillists/{id}", { id }, (path) => upload("POST", path, { file: csv, filename: "list.csv", type: "text/csv" }));
    await hit("GET /admin/emaillists");
    await hit("GET /admin/emaillists/{id}", { id });
    await hit("DELETE /admin/emaillists/{id}", { id });
  });

  it("log entries", async () => {
    const description = unique("Payment provider said: ");
    await writeLog(depsFromEnv(env), { logType: "REST API", eventId: s.event.id, orderId: s.order.id, description });
    await hit("GET /admin/logs");
    const entries = await hit("GET /admin/logs/order/{id}", { id: s.order.id });
    const entry = entries.find((e: Json) => e.description === description);
    await hit("GET /admin/logs/{id}", { id: entry.id });
    await hit("DELETE /admin/logs/{id}", { id: entry.id });
  });

  it("webhooks, their deliveries, and the outbox", async () => {
    const name = unique("oa-hook-");
    await programStub(name, { body: '{"ok":true}' });
    const hook = await hit("POST /admin/webhooks", {}, { body: { name: "Receiver", url: stubUrl(`/${name}/hook`), secret: "s3cret", topic: "event.created" } });
    await hit("GET /admin/webhooks");
    await hit("GET /admin/webhooks/{id}", { id: hook.id });
    await hit("PUT /admin/webhooks/{id}", { id: hook.id }, { body: { enabled: true } });
    await expectJson(call("POST", "/admin/events", { body: { event_name: unique("Hooked ") } }), 201);
    const [first] = await waitForRequests(name, 1);
    const deliveryId = first!.headers["x-evt-webhook-delivery-id"]!;
    for (let i = 0; i < 100; i++) {
      const hookNow = await expectJson(call("GET", `/admin/webhooks/${hook.id}`), 200);
      if (hookNow.delivered === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await hit("GET /admin/webhooks/{id}/deliveries", { id: hook.id });
    await hit("GET /admin/webhooks/{id}/deliveries/{deliveryId}", { id: hook.id, deliveryId });
    await hit("POST /admin/webhooks/{id}/deliveries/{deliveryId}/redeliver", { id: hook.id, deliveryId });
    await hit("GET /admin/webhooks/{id}/ping", { id: hook.id });
    await hit("GET /admin/webhooks/{id}/reset-counters", { id: hook.id });
    await hit("DELETE /admin/webhooks/{id}", { id: hook.id });

    const outbox = await hit("GET /admin/emails", {}, {}, `?search=${encodeURIComponent(s.order.email)}`);
    expect(outbox.length).toBeGreaterThan(0);
    await hit("GET /admin/emails/{id}", { id: outbox[0].id });
  });

  it("deletes: an order, a ticket type, an input field, a scan key, an event", async () => {
    await hit("DELETE /admin/orders/{id}", { id: s.plainOrder.id });
    const event = await expectJson(call("POST", "/admin/events", { body: { event_name: unique("Doomed ") } }), 201);
    const id = event.id;
    const type = await expectJson(call("POST", `/admin/events/${id}/ticket-types`, { body: { name: "Regular", price: 10 } }), 201);
    const field = await expectJson(call("POST", `/admin/events/${id}/input-fields`, { body: { name: "Company" } }), 201);
    const key = await expectJson(call("POST", `/admin/events/${id}/scan-keys`, { body: { location: "Side door" } }), 201);
    await hit("DELETE /admin/events/{id}/ticket-types/{typeId}", { id, typeId: type.id });
    await hit("DELETE /admin/events/{id}/input-fields/{fieldId}", { id, fieldId: field.id });
    await hit("DELETE /admin/events/{id}/scan-keys/{key}", { id, key: key.key });
    await hit("DELETE /admin/events/{id}", { id });
  });

  it("failures answer as the document says: 400, 401, 403, 404, 409", async () => {
    await miss("POST /admin/events", 400, {}, { body: { event_name: "" } });
    await miss("GET /admin/events/{id}", 404, { id: 999_999_999 });
    await miss("GET /admin/users", 401, {}, { auth: null });
    await miss("GET /admin/users", 401, {}, { key: "wrong" });
    const organizer = await expectJson(call("POST", "/admin/users", { body: { username: unique("org"), email: address("org"), role: "organizer" } }), 201);
    await miss("GET /admin/users", 403, {}, { auth: { username: organizer.username, password: organizer.application_password } });
    await miss("POST /scans", 401, {}, { key: "0000000000000000", auth: null, body: { id: "x" } });
    await miss("GET /scan-keys/self", 401, {}, { key: "0000000000000000", auth: null });
    await miss("GET /tickets/{uid}", 404, { uid: "no-such-order" }, pub);
    await miss("DELETE /admin/events/{id}", 409, { id: s.event.id });
    const order = { event_id: s.event.id, name: "Ann", email: address("x"), tickets: [{ [s.regular.id]: 1 }, { [s.vip.id]: 0 }] };
    const key = unique("reused-");
    await expectJson(call("POST", "/admin/orders", { body: order, headers: { "Idempotency-Key": key } }), 201);
    await miss("POST /admin/orders", 409, {}, { body: { ...order, name: "Bea" }, headers: { "Idempotency-Key": key } });
  });

  it("covers every route the app answers", () => {
    const routes = answeringRoutes(buildApp()).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`);
    expect(routes.length).toBeGreaterThan(90);
    expect(routes.filter((r) => !answered.has(r)).sort(), "routes this test never called").toEqual([]);
  });

  it("is no rubber stamp: an answer fails a schema that says otherwise", async () => {
    const event = answered.get("put /ticketing/v1/admin/events/{id}")!.body as Json;
    const ref = pointer("paths", "/ticketing/v1/admin/events/{id}", "put", "responses", "200", "content", "application/json", "schema");
    expect(doc.paths["/ticketing/v1/admin/events/{id}"].put.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Event" });
    expect((await validAt(URI, ref, event)).valid).toBe(true);
    const wrong = structuredClone(doc);
    wrong.components.schemas.Event.properties.id = { type: "string" };
    registerDocument(wrong, "https://ticketing.test/wrong.json");
    expect((await validAt("https://ticketing.test/wrong.json", ref, event)).valid).toBe(false);
    // And an extra field the schema does not name fails too (response objects are closed).
    expect((await validAt(URI, ref, { ...event, surprise: 1 })).valid).toBe(false);
  });

  it("each success example is a real answer of this route", async () => {
    const captured: Record<string, unknown> = {};
    for (const [key, answer] of [...answered.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      if (answer.mediaType === "application/json" && !NO_EXAMPLE.has(key)) captured[key] = asExample(answer.body);
    }
    if (inject("openapiWrite")) {
      await expect(`${JSON.stringify(captured, null, 2)}\n`).toMatchFileSnapshot(EXAMPLES_FILE);
      return;
    }
    const committed = examples as Record<string, unknown>;
    expect(Object.keys(committed).sort(), "operations with an example: run npm run openapi:write").toEqual(Object.keys(captured).sort());
    for (const [key, example] of Object.entries(committed)) {
      expect(fieldDifferences(example, captured[key]), `${key}: the example's fields are not this run's answer's (npm run openapi:write)`).toEqual([]);
      const [method, path] = key.split(" ") as [string, string];
      const success = Object.keys(doc.paths[path][method].responses).find(
        (status) => doc.paths[path][method].responses[status].content?.["application/json"]?.example !== undefined,
      );
      expect(success, `${key}: the document carries the example`).toBeDefined();
      const { valid, errors } = await validAt(URI, pointer("paths", path, method, "responses", success!, "content", "application/json", "schema"), example);
      expect(valid, `${key}: the example fails its schema: ${errors}`).toBe(true);
    }
  });
});

describe("the operations", () => {
  it("each has a summary, a description and a success answer", async () => {
    const document = await expectJson(call("GET", "/openapi.json", pub), 200);
    for (const [path, ops] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method} ${path}`;
        expect(op.summary, key).toMatch(/\S/);
        expect(op.description, key).toMatch(/\S/);
        expect(Object.keys(op.responses).filter((s) => /^[23]\d\d$/.test(s)).length, `${key} declares its success`).toBeGreaterThan(0);
      }
    }
    expect(operationKey("GET /admin/events/{id}")).toBe("get /ticketing/v1/admin/events/{id}");
  });
});
