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
import { BASE, ORIGIN, call, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { stripeEnv } from "../../helpers/stripe";
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
 * An order placed through the shop: the shop's form post (H2's route) calls createCustomerOrder with `via: "shop"`;
 * until then the service is called directly, as that route will.
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
