import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { emails } from "../../../src/db/schema";
import { BASE, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { googleWalletSettings, serviceAccount } from "../../helpers/google-wallet";
import { emailedConfirmLink } from "../../helpers/orders";
import { fetchWith } from "../../helpers/limited";
import { appleWalletSettings, walletCredentials } from "../../helpers/wallet-credentials";

/**
 * Where a customer meets the wallet passes (decisions.md 15 "Wallet passes"; docs/wallet.md "Where the passes are
 * linked"): the `{%WALLET%}` block of the order's emails and the order page, each ticket with a link per configured
 * wallet, only while the download is allowed. Storage is shared: every test makes its own events and orders.
 */

type Json = Record<string, any>;

/** Settings over the test env (helpers/limited.ts `fetchWith`): none, Google Wallet's, both wallets'. */
type Settings = Record<string, unknown>;
const NONE: Settings = {};
let googleOnly: Settings;
let both: Settings;

beforeAll(async () => {
  const [creds, account] = await Promise.all([walletCredentials(), serviceAccount()]);
  googleOnly = googleWalletSettings(account);
  both = { ...googleOnly, ...appleWalletSettings(creds) };
});

/** A call of the service with `e`'s settings (its key and admin, as `call` has them). */
const callAs = (e: Settings, method: string, path: string, body?: unknown) => fetchWith(e, request(method, path, { body }));
/** A customer's call: no key, no credentials, redirects not followed. */
const open = (e: Settings, url: string) => fetchWith(e, new Request(url, { redirect: "manual" }));

async function newEvent(body: Json = {}): Promise<Json> {
  return createEvent({
    event_name: unique("Wallet links "),
    add_dashboard_orders_needed: true,
    // The event's own body empty: the default one, which ends with {%WALLET%}.
    emails_needed: true,
    email: { subject: "Your tickets", body: "" },
    ...body,
  });
}

async function dashboardOrder(e: Settings, eventId: number, typeId: string, count: number): Promise<{ order: Json; ticketIds: string[] }> {
  const body = { event_id: eventId, name: "Grace Hopper", email: `${unique("w")}@example.com`, tickets: [{ [typeId]: count }] };
  const order = await expectJson(callAs(e, "POST", "/admin/orders", body), 201);
  const listed = await expectJson(callAs(e, "GET", `/admin/tickets/${order.id}`), 200);
  return { order, ticketIds: listed.tickets.map((t: Json) => t.ticket_id as string) };
}

/** The bodies of the order's emails, oldest first, as the outbox holds them. */
async function emailBodies(orderId: number): Promise<string[]> {
  const rows = await db.select({ body: emails.body }).from(emails).where(eq(emails.orderId, orderId)).orderBy(asc(emails.id));
  return rows.map((r) => r.body);
}

const appleLink = (uid: string, ticketId: string) => `${BASE}/tickets/${uid}/${ticketId}/wallet.pkpass`;
const googleLink = (uid: string, ticketId: string) => `${BASE}/tickets/${uid}/${ticketId}/wallet/google`;
const ANY_PASS = /wallet\.pkpass|wallet\/google/;

describe("{%WALLET%}: the pass links of the order's emails", () => {
  it("a final order's email links each ticket's pass in each wallet, numbered and named; each link gives its ticket's pass", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Balcony <b>" });
    const { order, ticketIds } = await dashboardOrder(both, event.id, type.id, 2);
    const [body] = await emailBodies(order.id);
    expect(body).toContain("Add your tickets to your phone's wallet:");
    // Numbered as the admin API and the order page list them (created, then id).
    ticketIds.forEach((id, i) => {
      expect(body).toContain(`<tr><td>${i + 1}. Balcony &lt;b&gt;</td><td><a href="${appleLink(order.uid, id)}">Add to Apple Wallet</a></td>`);
      expect(body).toContain(`<td><a href="${googleLink(order.uid, id)}">Add to Google Wallet</a></td></tr>`);
    });

    const pkpass = await open(both, appleLink(order.uid, ticketIds[1]!));
    expect(pkpass.status).toBe(200);
    expect(pkpass.headers.get("Content-Type")).toBe("application/vnd.apple.pkpass");
    const google = await open(both, googleLink(order.uid, ticketIds[0]!));
    expect(google.status).toBe(302);
    expect(google.headers.get("Location")).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\//);
  });

  it("only a configured wallet is linked; with none, the keyword is empty", async () => {
    const event = await newEvent({ email: { subject: "Tickets", body: "<p>Before</p>{%WALLET%}<p>After</p>" } });
    const type = await createTicketType(event.id, { name: "Regular" });

    const google = await dashboardOrder(googleOnly, event.id, type.id, 1);
    const [withGoogle] = await emailBodies(google.order.id);
    expect(withGoogle).toContain(googleLink(google.order.uid, google.ticketIds[0]!));
    expect(withGoogle).not.toContain("wallet.pkpass");
    expect(withGoogle).not.toContain("Apple Wallet");

    const none = await dashboardOrder(NONE, event.id, type.id, 1);
    const [withNone] = await emailBodies(none.order.id);
    expect(withNone).toContain("<p>Before</p><p>After</p>");
    expect(withNone).not.toMatch(ANY_PASS);
  });

  it("no passes while a ticket awaits personalisation; the email sent again once it is done has them", async () => {
    const event = await newEvent();
    const field = await createInputField(event.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const type = await createTicketType(event.id, { name: "Named", personalise: "Attendee" });
    const { order, ticketIds } = await dashboardOrder(both, event.id, type.id, 1);
    const [first] = await emailBodies(order.id);
    expect(first).toContain("/personalise");
    expect(first).not.toMatch(ANY_PASS);

    const saved = { tickets: [{ ticket_id: ticketIds[0]!, fields: { [field.id]: "Ada" } }] };
    await expectJson(fetchWith(both, request("PUT", `/tickets/${order.uid}/personalisation`, { key: null, auth: null, body: saved })), 200);
    const resent = await expectJson(callAs(both, "POST", "/admin/bulk/order-emails/send", { order_ids: [order.id] }), 200);
    expect(resent.errors ?? []).toEqual([]);
    const [, again] = await emailBodies(order.id);
    expect(again).toContain(appleLink(order.uid, ticketIds[0]!));
    expect(again).toContain(googleLink(order.uid, ticketIds[0]!));
  });

  it("a booking to confirm: the request has no passes (no tickets yet), the email saying it is confirmed has them", async () => {
    const event = await newEvent({ confirmation_emails_needed: true, email_confirmation: { subject: "Confirmed", body: "" } });
    const type = await createTicketType(event.id, { name: "Free seat", price: 0, maximum_to_order: 0 });
    const body = { name: "Ann Smith", email: `${unique("ann")}@example.com`, tickets: [{ [type.id]: 1 }] };
    const order = await expectJson(fetchWith(both, request("POST", `/events/${event.id}/orders`, { auth: null, body })), 201);
    expect(order.payment_status).toBe("booked");
    const [request_] = await emailBodies(order.id);
    expect(request_).not.toMatch(ANY_PASS);

    expect((await open(both, await emailedConfirmLink(order.id))).status).toBeLessThan(400);
    const tickets = await expectJson(callAs(both, "GET", `/admin/tickets/${order.id}`), 200);
    const ticketId = tickets.tickets[0].ticket_id as string;
    const [, confirmed] = await emailBodies(order.id);
    expect(confirmed).toContain(appleLink(order.uid, ticketId));
    expect(confirmed).toContain(googleLink(order.uid, ticketId));
  });
});

describe("the order page's passes", () => {
  const page = (e: Settings, uid: string, lang = "en") => open(e, `${BASE}/shop/orders/${uid}?lang=${lang}`);

  it("each ticket with its passes, numbered, each link named for its ticket; in the page's language", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Balcony <i>" });
    const { order, ticketIds } = await dashboardOrder(both, event.id, type.id, 2);
    const html = await (await page(both, order.uid)).text();
    expect(html).toContain("Add your tickets to your phone&#39;s wallet:");
    ticketIds.forEach((id, i) => {
      expect(html).toContain(`<a href="${appleLink(order.uid, id)}" aria-label="Add to Apple Wallet: ticket ${i + 1}, Balcony &lt;i&gt;">Add to Apple Wallet</a>`);
      expect(html).toContain(`<a href="${googleLink(order.uid, id)}" aria-label="Add to Google Wallet: ticket ${i + 1}, Balcony &lt;i&gt;">Add to Google Wallet</a>`);
    });
    expect(html).not.toContain("<i>");

    const dutch = await (await page(both, order.uid, "nl")).text();
    expect(dutch).toContain("Zet je tickets in de wallet van je telefoon:");
    expect(dutch).toContain(`aria-label="Toevoegen aan Google Wallet: ticket 2, Balcony &lt;i&gt;">Toevoegen aan Google Wallet</a>`);

    const googleOnlyPage = await (await page(googleOnly, order.uid)).text();
    expect(googleOnlyPage).toContain(googleLink(order.uid, ticketIds[0]!));
    expect(googleOnlyPage).not.toContain("wallet.pkpass");
  });

  it("no passes before payment, while personalisation is missing, after the tickets are revoked, or unconfigured", async () => {
    // Unpaid: a customer order of a paid type stays open until paid.
    const paid = await newEvent();
    const priced = await createTicketType(paid.id, { name: "Priced", price: 10, maximum_to_order: 0 });
    const body = { name: "Ann", email: `${unique("ann")}@example.com`, tickets: [{ [priced.id]: 1 }] };
    const unpaid = await expectJson(fetchWith(both, request("POST", `/events/${paid.id}/orders`, { auth: null, body })), 201);
    expect(unpaid.payment_status).toBe("open");
    expect(await (await page(both, unpaid.uid)).text()).not.toMatch(ANY_PASS);

    const named = await newEvent();
    const field = await createInputField(named.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const namedType = await createTicketType(named.id, { name: "Named", personalise: "Attendee" });
    const unnamed = await dashboardOrder(both, named.id, namedType.id, 1);
    expect(await (await page(both, unnamed.order.uid)).text()).not.toMatch(ANY_PASS);
    const saved = { tickets: [{ ticket_id: unnamed.ticketIds[0]!, fields: { [field.id]: "Ada" } }] };
    await expectJson(fetchWith(both, request("PUT", `/tickets/${unnamed.order.uid}/personalisation`, { key: null, auth: null, body: saved })), 200);
    expect(await (await page(both, unnamed.order.uid)).text()).toContain(appleLink(unnamed.order.uid, unnamed.ticketIds[0]!));
    // The personalisation page, all done, points there with the wallets named.
    const personalise = await (await fetchWith(both, request("GET", `/tickets/${unnamed.order.uid}/personalise`, { key: null, auth: null }))).text();
    expect(personalise).toContain(
      `<p id="ready"><a href="/ticketing/v1/shop/orders/${unnamed.order.uid}">Your tickets are ready: download them, or add them to your phone's wallet</a></p>`,
    );
    expect(await (await page(NONE, unnamed.order.uid)).text()).not.toMatch(ANY_PASS);

    await expectJson(callAs(both, "DELETE", `/admin/tickets/${unnamed.order.id}`), 200);
    expect(await (await page(both, unnamed.order.uid)).text()).not.toMatch(ANY_PASS);
  });

  it("a passe-partout's tickets at its child events are named with their event, on the page and in the email", async () => {
    const group = unique("G");
    const first = await newEvent({ event_name: unique("Friday "), group_type: 1, event_group: group });
    const second = await newEvent({ event_name: unique("Saturday "), group_type: 1, event_group: group });
    const pass = await newEvent({ group_type: 3, event_group: group });
    const type = await createTicketType(pass.id, { name: "Weekend" });
    const { order, ticketIds } = await dashboardOrder(both, pass.id, type.id, 1);
    expect(ticketIds).toHaveLength(2);
    const html = await (await page(both, order.uid)).text();
    for (const child of [first, second]) expect(html).toContain(`Weekend (${child.event_name})`);
    for (const id of ticketIds) expect(html).toContain(googleLink(order.uid, id));
    const [body] = await emailBodies(order.id);
    for (const child of [first, second]) expect(body).toContain(`. Weekend (${child.event_name})</td>`);
    for (const id of ticketIds) expect(body).toContain(googleLink(order.uid, id));
  });
});
