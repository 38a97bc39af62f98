import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders } from "../../../src/db/schema";
import worker from "../../../src/index";
import { depsFromEnv, type Deps } from "../../../src/platform/deps";
import { createCustomerOrderBody } from "../../../src/features/checkout/customer-orders.schema";
import { createCustomerOrder } from "../../../src/features/checkout/customer-orders.service";
import { getEvent } from "../../../src/features/catalogue/events.service";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { refundOrder } from "../../../src/features/payments/refunds.service";
import { BASE, ORIGIN, call, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";
import { stripeEnv } from "../../helpers/stripe";
import { wallClockAt } from "../../helpers/wall-clock";
import { programStub, receivedBy } from "../../helpers/stubs";

/**
 * The box office's order page `GET /shop/orders/<uid>` and where every payment provider lands a customer
 * (decisions.md 15 "The box office", second bullet): orders placed through the shop return to that page, the event's
 * `redirect` winning when set; orders placed through the API keep section 12's status route. Storage is shared, so
 * every test makes its own events and orders.
 */

type Json = Record<string, any>;

interface Shop {
  event: Json;
  type: Json;
}

async function shop(event: Json = {}, type: Json = {}): Promise<Shop> {
  const e = await createEvent({ event_name: unique("Box office "), ...event });
  const t = await createTicketType(e.id, { name: "Regular", price: 10, maximum_to_order: 0, ...type });
  return { event: e, type: t };
}

const orderInput = (s: Shop, count = 1, extra: Json = {}) => ({ name: "Ann Smith", email: `${unique("ann")}@example.com`, tickets: [{ [s.type.id]: count }], ...extra });

/** An order placed through the API (the ordering endpoint, no key beyond the service's). */
function apiOrder(s: Shop, count = 1, extra: Json = {}): Promise<Json> {
  return expectJson(call("POST", `/events/${s.event.id}/orders`, { auth: null, body: orderInput(s, count, extra) }), 201);
}

/**
 * An order placed through the shop, as the shop's form post places it (shop.routes.tsx calls createCustomerOrder with
 * `via: "shop"`), called directly so a test can give it other settings (Stripe's).
 */
async function shopOrder(s: Shop, deps: Deps = depsFromEnv(env, undefined, ORIGIN), count = 1, extra: Json = {}) {
  const input = createCustomerOrderBody.parse(orderInput(s, count, extra));
  const result = await createCustomerOrder(deps, await getEvent(deps, s.event.id), input, "203.0.113.9", null, "api", { via: "shop" });
  return result;
}

/** A browser's call of an absolute address: no key, no credentials, redirects not followed. */
function open(url: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(url, { redirect: "manual", ...init }));
}

function decide(checkoutUrl: string, action: "pay" | "cancel"): Promise<Response> {
  return open(checkoutUrl, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` });
}

const orderPage = (uid: string) => `${BASE}/shop/orders/${uid}`;
const statusRoute = (o: Json) => `${BASE}/orders/${o.id}/${o.uid}/status`;

async function placedVia(id: number): Promise<string | undefined> {
  return (await db.select({ via: orders.placedVia }).from(orders).where(eq(orders.id, id)).get())?.via;
}

describe("where every provider lands a customer", () => {
  it("the test checkout: a shop order returns to its order page after paying and after cancelling; an API order to its status route", async () => {
    const s = await shop();
    const paidShop = await shopOrder(s);
    expect(await placedVia(paidShop.order.id)).toBe("shop");
    const paid = await decide(paidShop.payment!.checkout_url, "pay");
    expect(paid.status).toBe(303);
    expect(paid.headers.get("Location")).toBe(orderPage(paidShop.order.uid));

    const cancelledShop = await shopOrder(s);
    const cancelled = await decide(cancelledShop.payment!.checkout_url, "cancel");
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("Location")).toBe(orderPage(cancelledShop.order.uid));

    const api = await apiOrder(s);
    expect(await placedVia(api.id)).toBe("api");
    const apiPaid = await decide(api.payment.checkout_url, "pay");
    expect(apiPaid.status).toBe(303);
    expect(apiPaid.headers.get("Location")).toBe(statusRoute(api));
  });

  it("the test checkout: the event's redirect wins for shop orders as for API orders", async () => {
    const s = await shop({ redirect: "https://organiser.example/thanks" });
    const fromShop = await shopOrder(s);
    const paid = await decide(fromShop.payment!.checkout_url, "pay");
    expect(paid.headers.get("Location")).toBe("https://organiser.example/thanks");
    const fromApi = await apiOrder(s);
    const cancelled = await decide(fromApi.payment.checkout_url, "cancel");
    expect(cancelled.headers.get("Location")).toBe("https://organiser.example/thanks");
  });

  it("an RSVP confirmation link: a shop order lands on its order page, an API order on its status route; the event's confirmation redirect wins for both", async () => {
    const rsvp = (redirect: string) =>
      shop({ confirmation_emails_needed: true, confirmation_timeout: 30, email_confirmation: { subject: "Confirmed", body: "<p>See you.</p>", redirect } }, { price: 0 });
    const confirm = async (id: number) => open(`${BASE}/orders/confirm/${(await row(id)).confirmToken!}`);
    const s = await rsvp("");
    const fromShop = await shopOrder(s);
    const fromApi = await apiOrder(s);
    expect((await confirm(fromShop.order.id)).headers.get("Location")).toBe(orderPage(fromShop.order.uid));
    expect((await confirm(fromApi.id)).headers.get("Location")).toBe(statusRoute(fromApi));
    const r = await rsvp("https://organiser.example/confirmed");
    expect((await confirm((await shopOrder(r)).order.id)).headers.get("Location")).toBe("https://organiser.example/confirmed");
    expect((await confirm((await apiOrder(r)).id)).headers.get("Location")).toBe("https://organiser.example/confirmed");
  });

  it("Stripe: a shop order's Checkout Session returns to the order page on success and on cancel; an API order's to its status route", async () => {
    const api = unique("stripe-landing-");
    await programStub(api, { body: JSON.stringify({ id: "cs_test_landing", url: "https://checkout.stripe.test/c/pay/cs_test_landing" }) });
    const s = await shop();
    const fromShop = await shopOrder(s, depsFromEnv(stripeEnv(api), undefined, ORIGIN));
    const ctx = createExecutionContext();
    const res = await worker.fetch(request("POST", `/events/${s.event.id}/orders`, { auth: null, body: orderInput(s) }), stripeEnv(api), ctx);
    await waitOnExecutionContext(ctx);
    const fromApi = await expectJson(res, 201);

    const sessions = (await receivedBy(api)).map((r) => Object.fromEntries(new URLSearchParams(r.body)));
    expect(sessions).toHaveLength(2);
    const [shopSession, apiSession] = sessions;
    expect(shopSession!.client_reference_id).toBe(fromShop.order.uid);
    expect(shopSession!.success_url).toBe(orderPage(fromShop.order.uid));
    expect(shopSession!.cancel_url).toBe(orderPage(fromShop.order.uid));
    expect(apiSession!.client_reference_id).toBe(fromApi.uid);
    expect(apiSession!.success_url).toBe(statusRoute(fromApi));
    expect(apiSession!.cancel_url).toBe(statusRoute(fromApi));
  });

  it("Stripe: the event's redirect is where a Checkout Session returns, whoever placed the order", async () => {
    const api = unique("stripe-landing-");
    await programStub(api, { body: JSON.stringify({ id: "cs_test_redirect", url: "https://checkout.stripe.test/c/pay/cs_test_redirect" }) });
    const s = await shop({ redirect: "https://organiser.example/paid" });
    await shopOrder(s, depsFromEnv(stripeEnv(api), undefined, ORIGIN));
    const [session] = (await receivedBy(api)).map((r) => Object.fromEntries(new URLSearchParams(r.body)));
    expect(session!.success_url).toBe("https://organiser.example/paid");
    expect(session!.cancel_url).toBe("https://organiser.example/paid");
  });
});

/** The order page as a browser asks for it: no key, no credentials; `lang` as `?lang=`, headers as given. */
async function page(uid: string, options: { lang?: string; headers?: Record<string, string> } = {}) {
  const query = options.lang ? `?lang=${options.lang}` : "";
  const res = await open(`${orderPage(uid)}${query}`, { headers: options.headers });
  return { res, html: await res.text() };
}

/** The page must answer 200 as HTML in `lang`, with the box office's frame. */
async function pageOf(uid: string, lang = "en", options: { headers?: Record<string, string> } = {}): Promise<string> {
  const { res, html } = await page(uid, { lang, ...options });
  expect(res.status, html).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
  expect(html).toMatch(new RegExp(`<html lang="${lang}">`));
  expect(html).toContain('<body data-page="order">');
  return html;
}

const links = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
const downloadOf = (uid: string) => `${BASE}/tickets/${uid}`;
const personaliseOf = (uid: string) => `${BASE}/tickets/${uid}/personalise`;
const invoiceOf = (uid: string) => `${BASE}/invoices/${uid}`;
/** A payment deadline as the page writes it: the event's zone (the tests' events are in Europe/Amsterdam), to the minute. */
const formatPhpDeadline = (epochSeconds: number) => wallClockAt(epochSeconds * 1000).slice(0, 16);
const REFRESHING = /<main id="main" data-refresh="\d+">/;

async function row(id: number) {
  const r = await db.select().from(orders).where(eq(orders.id, id)).get();
  expect(r, `order ${id} in D1`).toBeDefined();
  return r!;
}

/** Paid through the test checkout, as the customer's browser does it. */
async function pay(checkoutUrl: string): Promise<void> {
  expect((await decide(checkoutUrl, "pay")).status).toBe(303);
}

describe("the order page", () => {
  it("waiting for payment: the checkout link and deadline, refreshing with a refresh link, no download; in English and Dutch", async () => {
    const s = await shop();
    const o = await apiOrder(s, 2);
    const html = await pageOf(o.uid);
    expect(html).toContain("Waiting for payment.");
    expect(html).toContain(`Order ${o.id}`);
    expect(html).toContain("Ann Smith");
    expect(html).toContain(s.event.event_name);
    expect(html).toContain("Regular");
    expect(html).toContain("€20.00");
    expect(links(html)).toContain(o.payment.checkout_url);
    const deadline = (await row(o.id)).expiresAt!;
    expect(html).toContain(`Please pay before ${formatPhpDeadline(deadline)}`);
    expect(html).toMatch(REFRESHING);
    expect(links(html)).toContain(`/ticketing/v1/shop/orders/${o.uid}?lang=en`);
    expect(html).toContain(">Refresh</a>");
    expect(html).not.toMatch(/http-equiv="refresh"/i);
    expect(links(html)).not.toContain(downloadOf(o.uid));

    const dutch = await pageOf(o.uid, "nl");
    expect(dutch).toContain("Wacht op betaling.");
    expect(dutch).toContain(">Vernieuwen</a>");
    expect(dutch).toContain("€\u00a020,00");
    expect(dutch).not.toContain("Waiting for payment.");
  });

  it("paid: the download link, no checkout link, no refresh; in German by Accept-Language", async () => {
    const s = await shop();
    const o = await apiOrder(s);
    await pay(o.payment.checkout_url);
    const html = await pageOf(o.uid, "de");
    expect(html).toContain("Bezahlt.");
    expect(links(html)).toContain(downloadOf(o.uid));
    expect(links(html)).not.toContain(o.payment.checkout_url);
    expect(links(html)).not.toContain(personaliseOf(o.uid));
    expect(links(html)).not.toContain(invoiceOf(o.uid));
    expect(html).not.toMatch(/data-refresh/);
    expect(html).not.toContain("Aktualisieren</a>");

    // Without ?lang= the browser's Accept-Language chooses.
    const byHeader = await open(orderPage(o.uid), { headers: { "Accept-Language": "de-CH, en;q=0.5" } });
    const text = await byHeader.text();
    expect(text).toMatch(/<html lang="de">/);
    expect(text).toContain("Tickets herunterladen");
    const english = await open(orderPage(o.uid));
    expect(await english.text()).toMatch(/<html lang="en">[\s\S]*Paid\. Thank you/);
  });

  it("cancelled and expired: said so, no checkout link, no download, no refresh", async () => {
    const s = await shop();
    const cancelled = await apiOrder(s);
    expect((await decide(cancelled.payment.checkout_url, "cancel")).status).toBe(303);
    const c = await pageOf(cancelled.uid);
    expect(c).toContain("Cancelled: this order was not paid.");
    expect(links(c)).not.toContain(cancelled.payment.checkout_url);
    expect(links(c)).not.toContain(downloadOf(cancelled.uid));
    expect(c).not.toMatch(/data-refresh/);
    expect(await pageOf(cancelled.uid, "fr")).toContain("Annulée");

    const expired = await apiOrder(s);
    await db
      .update(orders)
      .set({ expiresAt: Math.floor(Date.now() / 1000) - 60 })
      .where(eq(orders.id, expired.id));
    await expireOrder(depsFromEnv(env, undefined, ORIGIN), expired.uid, s.event.id);
    expect((await row(expired.id)).paymentStatus).toBe("expired");
    const e = await pageOf(expired.uid);
    expect(e).toContain("Expired: this order was not paid in time.");
    expect(links(e)).not.toContain(expired.payment.checkout_url);
    expect(e).not.toMatch(/data-refresh/);
    expect(await pageOf(expired.uid, "es")).toContain("Caducado");
  });

  it("refunded: said so, no download", async () => {
    const s = await shop();
    const o = await apiOrder(s);
    await pay(o.payment.checkout_url);
    await refundOrder(depsFromEnv(env, undefined, ORIGIN), o.id, 1000);
    expect((await row(o.id)).paymentStatus).toBe("refunded");
    const html = await pageOf(o.uid);
    expect(html).toContain("Refunded: the payment has been returned to you.");
    expect(links(html)).not.toContain(downloadOf(o.uid));
    expect(html).not.toMatch(/data-refresh/);
    expect(await pageOf(o.uid, "nl")).toContain("Terugbetaald");
  });

  it("RSVP: waiting for confirmation says to check the email and refreshes; confirmed offers the download", async () => {
    const e = await createEvent({
      event_name: unique("RSVP "),
      confirmation_emails_needed: true,
      confirmation_timeout: 30,
      email_confirmation: { subject: "Confirmed", body: "<p>See you.</p>", redirect: "" },
    });
    const t = await createTicketType(e.id, { name: "Guest", price: 0 });
    const o = await apiOrder({ event: e, type: t });
    const waiting = await pageOf(o.uid);
    expect(waiting).toContain("Waiting for your confirmation: we have sent you an email");
    expect(waiting).toMatch(REFRESHING);
    expect(links(waiting)).not.toContain(downloadOf(o.uid));
    expect(await pageOf(o.uid, "de")).toContain("Wartet auf Ihre Bestätigung");

    const token = (await row(o.id)).confirmToken!;
    expect((await open(`${BASE}/orders/confirm/${token}`)).status).toBe(302);
    const confirmed = await pageOf(o.uid);
    expect(confirmed).toContain("Confirmed. Thank you for your order!");
    expect(links(confirmed)).toContain(downloadOf(o.uid));
    expect(confirmed).not.toMatch(/data-refresh/);
  });

  it("a free order without confirmation is booked, with its download", async () => {
    const s = await shop({}, { price: 0 });
    const o = await apiOrder(s);
    const html = await pageOf(o.uid);
    expect(html).toContain("Booked. Thank you for your order!");
    expect(links(html)).toContain(downloadOf(o.uid));
    expect(await pageOf(o.uid, "nl")).toContain("Geboekt.");
  });

  it("personalised types: the personalisation link and no download until personalised; the invoice where the event has invoices", async () => {
    const e = await createEvent({ event_name: unique("Named "), invoice_needed: true });
    await createInputField(e.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const t = await createTicketType(e.id, { name: "Named", price: 10, maximum_to_order: 0, personalise: "Attendee" });
    const o = await apiOrder({ event: e, type: t });
    const before = await pageOf(o.uid);
    expect(links(before)).not.toContain(personaliseOf(o.uid));
    expect(links(before)).not.toContain(invoiceOf(o.uid));

    await pay(o.payment.checkout_url);
    const html = await pageOf(o.uid);
    expect(html).toContain("Paid.");
    expect(links(html)).toContain(personaliseOf(o.uid));
    expect(html).toContain("Your tickets must be personalised before they can be downloaded.");
    expect(links(html)).not.toContain(downloadOf(o.uid));
    expect(links(html)).toContain(invoiceOf(o.uid));
    expect((await open(invoiceOf(o.uid))).headers.get("Content-Type")).toBe("application/pdf");
    expect(await pageOf(o.uid, "es")).toContain("Personaliza tus entradas");
  });

  it("a group's dates paid together: the first order's page shows each date", async () => {
    const g = unique("G");
    const first = await shop({ group_type: 2, event_group: g, event_date: "2099-10-01 20:00:00" }, { name: "Day" });
    const second = await shop({ group_type: 2, event_group: g, event_date: "2099-10-02 20:00:00" }, { name: "Day" });
    const o = await apiOrder(first, 1, { event_ids: [first.event.id, second.event.id] });
    expect(o.group_orders).toHaveLength(2);
    await pay(o.payment.checkout_url);
    const html = await pageOf(o.uid);
    expect(html).toContain(first.event.event_name);
    expect(html).toContain(second.event.event_name);
    const other = await row(o.group_orders[1]);
    expect(links(html)).toContain(downloadOf(o.uid));
    expect(links(html)).toContain(downloadOf(other.uid));
    expect(html.match(/Paid\. Thank you/g)).toHaveLength(2);
  });

  it("tickets rendering in parts: pending with the progress and no download link, the render started; the download once kept", async () => {
    const e = await createOrderEvent();
    const t = await createOrderType(e.id, "Crowd");
    const o = await placeOrder(orderBody(e.id, [t.id], { [t.id]: 101 }));
    const html = await pageOf(o.uid);
    expect(html).toMatch(/Your tickets are being prepared: \d of 2 parts done\./);
    expect(html).toMatch(REFRESHING);
    expect(links(html)).not.toContain(downloadOf(o.uid));
    // The page asked for the render, as a download would have: its marker is in R2.
    expect((await env.FILES.list({ prefix: `ticket-parts/${o.uid}/` })).objects.length).toBeGreaterThan(0);
    expect(await pageOf(o.uid, "nl")).toContain("Je tickets worden klaargemaakt");

    // Once the PDF is kept the download is offered and nothing is pending.
    await env.FILES.put(`tickets/${o.uid}.pdf`, "%PDF-1.7 stand-in");
    const kept = await pageOf(o.uid);
    expect(links(kept)).toContain(downloadOf(o.uid));
    expect(kept).not.toMatch(/data-refresh/);
    expect(kept).not.toContain("being prepared");
  });

  it("escapes the organiser's and the customer's texts", async () => {
    const s = await shop({ event_name: `<script>alert("event")</script>` }, { name: "<img src=x onerror=alert(1)>" });
    const o = await apiOrder(s, 1, { name: "<script>alert(1)</script>" });
    const html = await pageOf(o.uid);
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    // The only script is the page's own module, from the service's assets.
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it("an unknown or malformed uid is a 404 page in the page's language that names no order", async () => {
    for (const uid of ["x".repeat(40), "no-such-order", "a".repeat(500), "%3Cscript%3E"]) {
      const { res, html } = await page(uid, { lang: "nl" });
      expect(res.status, uid).toBe(404);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(html).toMatch(/<html lang="nl">/);
      expect(html).toContain("Bestelling niet gevonden");
      expect(html).not.toContain("<script>");
      expect(html).not.toMatch(/data-refresh/);
    }
    const { res, html } = await page("x".repeat(40), { headers: { "Accept-Language": "fr" } });
    expect(res.status).toBe(404);
    expect(html).toContain("Commande introuvable");
  });

  it("is private and framed only as the shop is: CSP with scripts from 'self', no store, not indexed", async () => {
    const s = await shop();
    const o = await apiOrder(s);
    const { res } = await page(o.uid);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toMatch(/frame-ancestors 'self'/);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("X-Robots-Tag")).toBe("noindex");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it("a shop order lands on its page from the test checkout and shows it paid", async () => {
    const s = await shop();
    const placed = await shopOrder(s);
    const paid = await decide(placed.payment!.checkout_url, "pay");
    const { res, html } = await page(placed.order.uid);
    expect(paid.headers.get("Location")).toBe(orderPage(placed.order.uid));
    expect(res.status).toBe(200);
    expect(html).toContain("Paid. Thank you for your order!");
  });
});
