import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config";
import worker from "../../../src/index";
import { signerFor, ticketIdOfCode } from "../../../src/lib/ticket-codes";
import { call, expectError, expectJson, request, unique } from "../../helpers/api";
import { expectLogged } from "../../helpers/logs";
import { createEvent, createInputField, createScanKey, createTicketType } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder as placeTypedOrder } from "../../helpers/orders";
import { CLIENT_EMAIL, decodeJwt, ISSUER_ID, serviceAccount, walletEnv } from "../../helpers/google-wallet";

/**
 * `GET /tickets/<uid>/<ticket_id>/wallet/google` (decisions.md 15 "Wallet passes"; docs/wallet.md): a `302` to Google's
 * save page with an RS256 JWT holding the event ticket class and object, the ticket's signed code as the barcode. A
 * pass only where the download is allowed. Storage is shared: every test makes its own events and orders.
 */

type Json = Record<string, any>;
const SAVE = "https://pay.google.com/gp/v/save/";
const account = await serviceAccount();

async function callWith(e: typeof env, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const passPath = (uid: string, ticketId: string) => `/tickets/${uid}/${ticketId}/wallet/google`;
const pass = (uid: string, ticketId: string, e = walletEnv(account)) => callWith(e, request("GET", passPath(uid, ticketId), { key: null, auth: null }));

async function newEvent(body: Json = {}): Promise<Json> {
  return createEvent({ event_name: unique("Wallet "), add_dashboard_orders_needed: true, ...body });
}

async function placeOrder(eventId: number, typeId: string, count = 1): Promise<Json> {
  const body = { event_id: eventId, name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [typeId]: count }] };
  return expectJson(call("POST", "/admin/orders", { body }), 201);
}

async function ticketIds(orderId: number): Promise<string[]> {
  const view = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return view.tickets.map((t: Json) => t.ticket_id as string);
}

describe("GET /tickets/<uid>/<ticket_id>/wallet/google", () => {
  it("redirects to Google's save page with a JWT the service account signed, holding the event's class and the ticket's object", async () => {
    const event = await newEvent({ event_date: "2031-07-04 21:15:00", timezone: "Europe/Amsterdam" });
    const type = await createTicketType(event.id, { name: "Balcony" });
    const order = await placeOrder(event.id, type.id, 2);
    const [first, second] = (await ticketIds(order.id)) as [string, string];

    const res = await pass(order.uid, second);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const location = res.headers.get("Location")!;
    expect(location.startsWith(SAVE)).toBe(true);
    const { header, claims, verified } = await decodeJwt(location.slice(SAVE.length), account.publicKey);
    expect(verified).toBe(true);
    expect(header).toStrictEqual({ alg: "RS256", typ: "JWT" });
    expect(claims).toMatchObject({ iss: CLIENT_EMAIL, aud: "google", typ: "savetowallet" });
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
    expect(Array.isArray(claims.origins)).toBe(true);

    const code = await signerFor(loadConfig(env).ticketSigningKeys).sign(event.id, second);
    expect(claims.payload).toStrictEqual({
      eventTicketClasses: [
        {
          id: `${ISSUER_ID}.event-${event.id}`,
          issuerName: loadConfig(env).email.fromName,
          eventName: { defaultValue: { language: "en", value: event.event_name } },
          dateTime: { start: "2031-07-04T21:15:00+02:00" },
          reviewStatus: "UNDER_REVIEW",
        },
      ],
      eventTicketObjects: [
        {
          id: `${ISSUER_ID}.ticket-${second}`,
          classId: `${ISSUER_ID}.event-${event.id}`,
          state: "ACTIVE",
          ticketHolderName: "Ada Lovelace",
          ticketType: { defaultValue: { language: "en", value: "Balcony" } },
          barcode: { type: "QR_CODE", value: code, alternateText: second },
        },
      ],
    });
    // Each ticket its own object.
    const other = (await pass(order.uid, first)).headers.get("Location")!;
    const otherClaims = (await decodeJwt(other.slice(SAVE.length), account.publicKey)).claims;
    expect(otherClaims.payload.eventTicketObjects[0].id).toBe(`${ISSUER_ID}.ticket-${first}`);
  });

  it("a seated ticket's object names its seat, without the separator its format puts before it", async () => {
    const event = await createOrderEvent({ seats_needed: true, seats: { seats_config: "A:1-2", seats_format: ", seat %s%d", number_of_seats: 0, linked_event: 0 } });
    const type = await createOrderType(event.id, "Stalls");
    const order = await placeTypedOrder(orderBody(event.id, [type.id], { [type.id]: 1 }));
    const [ticketId] = (await ticketIds(order.id)) as [string];
    const location = (await pass(order.uid, ticketId)).headers.get("Location")!;
    const object = (await decodeJwt(location.slice(SAVE.length), account.publicKey)).claims.payload.eventTicketObjects[0];
    expect(object.ticketType).toStrictEqual({ defaultValue: { language: "en", value: "Stalls" } });
    expect(object.seatInfo).toStrictEqual({ seat: { defaultValue: { language: "en", value: "seat A1" } } });
  });

  it("the pass's barcode, sent to POST /scans with the event's scan key, admits its ticket; the door app's reading names it too", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, type.id);
    const [ticketId] = (await ticketIds(order.id)) as [string];
    const gate = (await createScanKey(event.id, { level: 0, location: "Gate" })).key as string;

    const location = (await pass(order.uid, ticketId)).headers.get("Location")!;
    const value: string = (await decodeJwt(location.slice(SAVE.length), account.publicKey)).claims.payload.eventTicketObjects[0].barcode.value;
    expect(value).not.toBe(ticketId);
    // The door app decides offline with the same reading of a code (lib/ticket-codes.ts, decisions.md 13).
    expect(await ticketIdOfCode(signerFor(loadConfig(env).ticketSigningKeys), event.id, value)).toBe(ticketId);
    const scan = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: value } }), 200);
    expect(scan).toMatchObject({ status: true, qrcode: ticketId, order_id: order.id });
  });

  it("without Google Wallet configured: 404 wallet_not_configured", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, type.id);
    const [ticketId] = (await ticketIds(order.id)) as [string];
    await expectError(call("GET", passPath(order.uid, ticketId), { key: null, auth: null }), 404, "wallet_not_configured");
  });

  it("an unknown order or ticket, another order's ticket: 404 rest_ticket_invalid_id", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, type.id);
    const other = await placeOrder(event.id, type.id);
    const [ticketId] = (await ticketIds(order.id)) as [string];
    const [othersTicket] = (await ticketIds(other.id)) as [string];
    await expectError(pass("0".repeat(40), ticketId), 404, "rest_ticket_invalid_id");
    await expectError(pass(order.uid, "AAAAAAAAAAAAAAAA"), 404, "rest_ticket_invalid_id");
    await expectError(pass(order.uid, othersTicket), 404, "rest_ticket_invalid_id");
    await expectError(pass("x".repeat(101), ticketId), 404, "rest_ticket_invalid_id");
  });

  it("no pass before payment (the order holds no tickets yet): 404 rest_ticket_invalid_id for any id", async () => {
    const event = await createEvent({ event_name: unique("Wallet unpaid ") });
    const type = await createTicketType(event.id, { name: "Paid", price: 25 });
    const placed = await expectJson(
      call("POST", `/events/${event.id}/orders`, { auth: null, body: { name: "Ann Smith", email: "ann@example.com", tickets: [{ [type.id]: 1 }] } }),
      201,
    );
    expect(placed.payment_status).toBe("open");
    for (const id of [...(await ticketIds(placed.id)), "AAAAAAAAAAAAAAAA"]) await expectError(pass(placed.uid, id), 404, "rest_ticket_invalid_id");
  });

  it("no pass while a ticket awaits personalisation, one once it is personalised", async () => {
    const event = await newEvent();
    const field = await createInputField(event.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const type = await createTicketType(event.id, { name: "Named", personalise: "Attendee" });
    const order = await placeOrder(event.id, type.id);
    const [ticketId] = (await ticketIds(order.id)) as [string];
    await expectError(pass(order.uid, ticketId), 404, "rest_ticket_invalid_id");
    await expectJson(
      call("PUT", `/tickets/${order.uid}/personalisation`, {
        key: null,
        auth: null,
        body: { tickets: [{ ticket_id: ticketId, fields: { [field.id]: "Grace Hopper" } }] },
      }),
      200,
    );
    expect((await pass(order.uid, ticketId)).status).toBe(302);
  });

  it("no pass for a revoked ticket (deleted, then issued again): 404 rest_ticket_invalid_id; the new ticket has one", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, type.id);
    const [old] = (await ticketIds(order.id)) as [string];
    expect((await pass(order.uid, old)).status).toBe(302);
    await expectJson(call("DELETE", `/admin/tickets/${order.id}`), 200);
    await expectError(pass(order.uid, old), 404, "rest_ticket_invalid_id");
    await expectJson(call("POST", `/admin/tickets/${order.id}`), 201);
    const [fresh] = (await ticketIds(order.id)) as [string];
    expect(fresh).not.toBe(old);
    await expectError(pass(order.uid, old), 404, "rest_ticket_invalid_id");
    expect((await pass(order.uid, fresh)).status).toBe(302);
  });
});

describe("the Google Wallet settings", () => {
  const healthWith = (overrides: Record<string, unknown>) =>
    worker.fetch(request("GET", "/health", { key: null, auth: null }), { ...env, ...overrides } as typeof env, createExecutionContext());
  const misconfigured = (settings: string[]) => ({ status: "misconfigured", settings });

  it("both or none: one alone, a key that is not a service account's JSON key or a malformed issuer id is named by /health, never shown", async () => {
    const secret = JSON.parse(account.json).private_key as string;
    const logged = expectLogged("error", /invalid configuration/);
    expect(await expectJson(healthWith({ GOOGLE_WALLET_SERVICE_ACCOUNT: account.json }), 503)).toStrictEqual(misconfigured(["GOOGLE_WALLET_ISSUER_ID"]));
    expect(await expectJson(healthWith({ GOOGLE_WALLET_ISSUER_ID: ISSUER_ID }), 503)).toStrictEqual(misconfigured(["GOOGLE_WALLET_SERVICE_ACCOUNT"]));
    const pkcs1 = account.json.replace(/PRIVATE KEY/g, "RSA PRIVATE KEY");
    expect(await expectJson(healthWith({ GOOGLE_WALLET_SERVICE_ACCOUNT: pkcs1, GOOGLE_WALLET_ISSUER_ID: ISSUER_ID }), 503)).toStrictEqual(
      misconfigured(["GOOGLE_WALLET_SERVICE_ACCOUNT"]),
    );
    expect(await expectJson(healthWith({ GOOGLE_WALLET_SERVICE_ACCOUNT: "{not json", GOOGLE_WALLET_ISSUER_ID: "issuer" }), 503)).toStrictEqual(
      misconfigured(["GOOGLE_WALLET_SERVICE_ACCOUNT", "GOOGLE_WALLET_ISSUER_ID"]),
    );
    const lines = logged.lines.join("\n");
    expect(lines).not.toContain(secret.slice(40, 80));
    expect(lines).not.toContain(CLIENT_EMAIL);
    expect(await expectJson(healthWith({ GOOGLE_WALLET_SERVICE_ACCOUNT: account.json, GOOGLE_WALLET_ISSUER_ID: ISSUER_ID }), 200)).toEqual({ status: "ok" });
    expect(await expectJson(healthWith({ GOOGLE_WALLET_SERVICE_ACCOUNT: "", GOOGLE_WALLET_ISSUER_ID: " " }), 200)).toEqual({ status: "ok" });
  });
});
