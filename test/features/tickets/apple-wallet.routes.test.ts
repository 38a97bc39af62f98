import { unzipSync } from "fflate";
import * as pkijs from "pkijs";
import { beforeAll, describe, expect, it } from "vitest";
import { decideOffline } from "../../../src/door-app/offline-decision";
import { TicketSigner, ticketIdOfCode } from "../../../src/lib/ticket-codes";
import { call, expectError, expectJson, request, unique } from "../../helpers/api";
import { expectLogged } from "../../helpers/logs";
import { createEvent, createInputField, createScanKey, createTicketType } from "../../helpers/catalogue";
import { waitKnown } from "../../helpers/offline-list";
import { fetchWith } from "../../helpers/limited";
import { appleWalletSettings, type WalletCredentials, walletCredentials } from "../../helpers/wallet-credentials";

/**
 * `GET /tickets/<uid>/<ticket_id>/wallet.pkpass` (decisions.md 15 "Wallet passes"; docs/wallet.md): the ticket as an
 * Apple Wallet pass, with throwaway credentials made here. Storage is shared: every test makes its own events and
 * orders. test/node/wallet-signature.node.mjs checks the signature with openssl.
 */

type Json = Record<string, any>;

let creds: WalletCredentials;
let configured: Record<string, unknown>;

beforeAll(async () => {
  creds = await walletCredentials();
  configured = appleWalletSettings(creds);
});

const passPath = (uid: string, ticketId: string) => `/tickets/${uid}/${ticketId}/wallet.pkpass`;
const getPass = (uid: string, ticketId: string, e: Record<string, unknown> = configured) =>
  fetchWith(e, request("GET", passPath(uid, ticketId), { key: null, auth: null }));

async function newEvent(body: Json = {}): Promise<Json> {
  return createEvent({ event_name: unique("Wallet "), add_dashboard_orders_needed: true, ...body });
}

async function dashboardOrder(eventId: number, typeId: string, count: number): Promise<{ order: Json; ticketIds: string[] }> {
  const body = { event_id: eventId, name: "Grace Hopper", email: `${unique("w")}@example.com`, tickets: [{ [typeId]: count }] };
  const order = await expectJson(call("POST", "/admin/orders", { body }), 201);
  const listed = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
  return { order, ticketIds: listed.tickets.map((t: Json) => t.ticket_id as string) };
}

async function sha1Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function readPass(res: Response): Promise<Record<string, Uint8Array>> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  return unzipSync(bytes);
}

describe("GET /tickets/<uid>/<ticket_id>/wallet.pkpass", () => {
  it("unconfigured: 404 wallet_not_configured", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const { order, ticketIds } = await dashboardOrder(event.id, type.id, 1);
    await expectError(call("GET", passPath(order.uid, ticketIds[0]!), { key: null, auth: null }), 404, "wallet_not_configured");
  });

  it("a pass: the zip's files, a manifest hashing every other file, pass.json's fields, a signature that verifies", async () => {
    const event = await newEvent({ event_date: "2031-07-04 21:15:00", timezone: "Europe/Amsterdam", event_date_format: "d/m/Y H:i" });
    const type = await createTicketType(event.id, { name: "Balcony" });
    const { order, ticketIds } = await dashboardOrder(event.id, type.id, 2);
    const ticketId = ticketIds[1]!;

    const res = await getPass(order.uid, ticketId);
    expect(res.headers.get("Content-Type")).toBe("application/vnd.apple.pkpass");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${ticketId}.pkpass"`);
    const files = await readPass(res);
    expect(Object.keys(files).sort()).toEqual(["icon.png", "icon@2x.png", "logo.png", "manifest.json", "pass.json", "signature"]);

    const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]));
    expect(Object.keys(manifest).sort()).toEqual(["icon.png", "icon@2x.png", "logo.png", "pass.json"]);
    for (const [name, hash] of Object.entries(manifest)) expect(hash).toBe(await sha1Hex(files[name]!));
    for (const png of ["icon.png", "icon@2x.png", "logo.png"]) expect([...files[png]!.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);

    const pass = JSON.parse(new TextDecoder().decode(files["pass.json"]));
    expect(pass).toMatchObject({
      formatVersion: 1,
      passTypeIdentifier: "pass.test.throwaway",
      teamIdentifier: "TEAM123456",
      serialNumber: ticketId,
      relevantDate: "2031-07-04T21:15:00+02:00",
      eventTicket: {
        primaryFields: [{ key: "event", value: event.event_name }],
        secondaryFields: [{ key: "date", value: "04/07/2031 21:15" }],
        auxiliaryFields: [
          { key: "type", value: "Balcony" },
          { key: "holder", value: "Grace Hopper" },
        ],
      },
    });
    expect(pass.barcodes).toHaveLength(1);
    expect(pass.barcodes[0]).toMatchObject({ format: "PKBarcodeFormatQR", messageEncoding: "iso-8859-1" });
    expect(pass.barcodes[0].message.startsWith(`test1.${event.id}.${ticketId}.`)).toBe(true);

    // The signature: detached SignedData over the manifest, by the pass certificate, carrying the intermediate.
    const info = pkijs.ContentInfo.fromBER(files.signature!);
    expect(info.contentType).toBe("1.2.840.113549.1.7.2");
    const signed = new pkijs.SignedData({ schema: info.content });
    expect(signed.encapContentInfo.eContent).toBeUndefined();
    expect(signed.certificates).toHaveLength(2);
    const attrs = signed.signerInfos[0]!.signedAttrs!.attributes.map((a) => a.type);
    expect(attrs).toContain("1.2.840.113549.1.9.5");
    const verified = await signed.verify({ signer: 0, data: files["manifest.json"]!.slice().buffer, trustedCerts: [creds.root], checkChain: true });
    expect(verified).toBe(true);
    const tampered = new Uint8Array(files["manifest.json"]!);
    tampered[2] = tampered[2]! ^ 1;
    await expect(signed.verify({ signer: 0, data: tampered.buffer, trustedCerts: [creds.root], checkChain: true })).rejects.toBeTruthy();
  });

  it("the barcode admits the ticket at POST /scans, and in the door app's offline decision", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const { order, ticketIds } = await dashboardOrder(event.id, type.id, 1);
    const ticketId = ticketIds[0]!;
    const gate = (await createScanKey(event.id, { level: 0, location: "Gate" })).key as string;
    const pass = JSON.parse(new TextDecoder().decode((await readPass(await getPass(order.uid, ticketId)))["pass.json"]));
    const code: string = pass.barcodes[0].message;

    // Offline first (the door phone with what it synced), then online: an online scan would make the second a re-entry.
    const published = await expectJson(call("GET", "/scan-keys/public-keys", { key: gate, auth: null }), 200);
    const doorSigner = new TicketSigner(published.keys.map((k: Json) => k.jwk));
    const read = await ticketIdOfCode(doorSigner, event.id, code);
    expect(read).toBe(ticketId);
    const keyConfig = await expectJson(call("GET", "/scan-keys/self", { key: gate, auth: null }), 200);
    const list = await waitKnown(gate, [ticketId]);
    const entry = list.tickets.find((t: Json) => t.ticket_id === read);
    expect(entry).toBeDefined();
    expect(decideOffline(keyConfig, entry, []).admitted).toBe(true);

    const scanned = await expectJson(call("POST", "/scans", { key: gate, auth: null, body: { id: code } }), 200);
    expect(scanned).toMatchObject({ status: true, qrcode: ticketId });
  });

  it("no pass for an unknown order or ticket, an unpaid order, missing personalisation, a revoked ticket: 404 rest_ticket_invalid_id", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Regular" });
    const { order, ticketIds } = await dashboardOrder(event.id, type.id, 1);
    await expectError(getPass("0".repeat(40), ticketIds[0]!), 404, "rest_ticket_invalid_id");
    await expectError(getPass(order.uid, "A".repeat(16)), 404, "rest_ticket_invalid_id");
    const other = await dashboardOrder(event.id, type.id, 1);
    await expectError(getPass(order.uid, other.ticketIds[0]!), 404, "rest_ticket_invalid_id");

    // Unpaid: a customer order of a paid type stays open until paid (its tickets are written when it becomes final,
    // so any id it is asked with is refused alike).
    const paid = await createEvent({ event_name: unique("Wallet paid ") });
    const priced = await createTicketType(paid.id, { name: "Priced", price: 10, maximum_to_order: 0 });
    const open = await expectJson(
      call("POST", `/events/${paid.id}/orders`, { auth: null, body: { name: "Ann", email: "ann@example.com", tickets: [{ [priced.id]: 1 }] } }),
      201,
    );
    expect(open.payment_status).toBe("open");
    const openTickets = await expectJson(call("GET", `/admin/tickets/${open.id}`), 200);
    await expectError(getPass(open.uid, openTickets.tickets[0]?.ticket_id ?? "A".repeat(16)), 404, "rest_ticket_invalid_id");

    // Personalisation missing, then saved.
    const named = await newEvent();
    const field = await createInputField(named.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const namedType = await createTicketType(named.id, { name: "Named", personalise: "Attendee" });
    const unnamed = await dashboardOrder(named.id, namedType.id, 1);
    await expectError(getPass(unnamed.order.uid, unnamed.ticketIds[0]!), 404, "rest_ticket_invalid_id");
    await expectJson(
      call("PUT", `/tickets/${unnamed.order.uid}/personalisation`, {
        key: null,
        auth: null,
        body: { tickets: [{ ticket_id: unnamed.ticketIds[0]!, fields: { [field.id]: "Ada" } }] },
      }),
      200,
    );
    expect((await getPass(unnamed.order.uid, unnamed.ticketIds[0]!)).status).toBe(200);

    // Revoked: the order's tickets deleted.
    await expectJson(call("DELETE", `/admin/tickets/${order.id}`), 200);
    await expectError(getPass(order.uid, ticketIds[0]!), 404, "rest_ticket_invalid_id");
  });

  it("a partial set of the Apple settings is a misconfiguration /health names, never with values", async () => {
    const partial = { APPLE_PASS_TYPE_ID: "pass.test.throwaway", APPLE_PASS_KEY: "-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----" };
    // The service says so in its log too, naming the settings only.
    const logged = expectLogged("error", /incomplete configuration/);
    const res = await fetchWith(partial, request("GET", "/health", { key: null, auth: null }));
    const text = await res.text();
    expect(res.status, text).toBe(503);
    for (const name of ["APPLE_PASS_CERT", "APPLE_WWDR_CERT", "APPLE_TEAM_ID"]) expect(text).toContain(name);
    expect(text).not.toContain("secret");
    expect(logged.lines).toHaveLength(1);
    expect(logged.all.join("\n")).not.toContain("secret");
  });
});
