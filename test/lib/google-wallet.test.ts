import { describe, expect, it } from "vitest";
import { eventTicketPayload, GOOGLE_SAVE_URL, googleSaveLink, readServiceAccount, type WalletTicket } from "../../src/lib/google-wallet";
import { pkcs8FromPem, signRs256Jwt } from "../../src/lib/rs256-jwt";
import { CLIENT_EMAIL, decodeJwt, ISSUER_ID, serviceAccount } from "../helpers/google-wallet";

/** Google Wallet save links (src/lib/google-wallet.ts, src/lib/rs256-jwt.ts; docs/wallet.md). */

const TICKET: WalletTicket = {
  eventId: 42,
  eventName: "Night Concert",
  start: "2031-07-04T21:15:00+02:00",
  ticketId: "K7Q2M9X4D1F8H3J6",
  ticketType: "VIP",
  seat: "Row 3, Seat 12",
  holderName: "Ada Lovelace",
  barcode: "test1.42.K7Q2M9X4D1F8H3J6.sig",
};

describe("signRs256Jwt", () => {
  it("signs a JWT whose RS256 signature verifies with the key's public part, header and claims as given", async () => {
    const account = await serviceAccount();
    const jwt = await signRs256Jwt({ a: 1, b: "ü" }, account.pem);
    expect(jwt).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const decoded = await decodeJwt(jwt, account.publicKey);
    expect(decoded).toStrictEqual({ header: { alg: "RS256", typ: "JWT" }, claims: { a: 1, b: "ü" }, verified: true });
    // Another key's public part does not verify it.
    const other = await serviceAccount();
    expect((await decodeJwt(jwt, other.publicKey)).verified).toBe(false);
  });

  it("reads PKCS#8 PEMs only", async () => {
    const account = await serviceAccount();
    expect(pkcs8FromPem(account.pem)).not.toBeNull();
    expect(pkcs8FromPem(account.pem.replace(/\n/g, "\r\n"))).not.toBeNull();
    expect(pkcs8FromPem(account.pem.replace(/PRIVATE KEY/g, "RSA PRIVATE KEY"))).toBeNull();
    expect(pkcs8FromPem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")).toBeNull();
    expect(pkcs8FromPem("not a key")).toBeNull();
  });
});

describe("readServiceAccount", () => {
  it("answers the client email and key of a service account's JSON key, null for anything else", async () => {
    const account = await serviceAccount();
    expect(readServiceAccount(account.json)).toStrictEqual({ clientEmail: CLIENT_EMAIL, privateKeyPem: account.pem });
    const parsed = JSON.parse(account.json);
    for (const bad of [
      "",
      "{",
      "[]",
      "null",
      JSON.stringify({ ...parsed, client_email: undefined }),
      JSON.stringify({ ...parsed, client_email: "nobody" }),
      JSON.stringify({ ...parsed, private_key: "not a key" }),
      JSON.stringify({ ...parsed, private_key: 7 }),
    ]) {
      expect(readServiceAccount(bad), bad.slice(0, 40)).toBeNull();
    }
  });
});

describe("eventTicketPayload", () => {
  it("holds one event ticket class and one object as Google's Wallet API documents them", () => {
    expect(eventTicketPayload(ISSUER_ID, "Tickets", TICKET)).toStrictEqual({
      eventTicketClasses: [
        {
          id: `${ISSUER_ID}.event-42`,
          issuerName: "Tickets",
          eventName: { defaultValue: { language: "en", value: "Night Concert" } },
          dateTime: { start: "2031-07-04T21:15:00+02:00" },
          reviewStatus: "UNDER_REVIEW",
        },
      ],
      eventTicketObjects: [
        {
          id: `${ISSUER_ID}.ticket-K7Q2M9X4D1F8H3J6`,
          classId: `${ISSUER_ID}.event-42`,
          state: "ACTIVE",
          ticketHolderName: "Ada Lovelace",
          ticketType: { defaultValue: { language: "en", value: "VIP" } },
          seatInfo: { seat: { defaultValue: { language: "en", value: "Row 3, Seat 12" } } },
          barcode: { type: "QR_CODE", value: TICKET.barcode, alternateText: "K7Q2M9X4D1F8H3J6" },
        },
      ],
    });
  });

  it("leaves out the date of an undated event and the seat of an unseated ticket", () => {
    const payload = eventTicketPayload(ISSUER_ID, "Tickets", { ...TICKET, start: null, seat: "" });
    expect(payload.eventTicketClasses[0]).not.toHaveProperty("dateTime");
    expect(payload.eventTicketObjects[0]).not.toHaveProperty("seatInfo");
  });
});

describe("googleSaveLink", () => {
  it("is the save URL with a savetowallet JWT for Google, signed by the service account", async () => {
    const account = await serviceAccount();
    const link = await googleSaveLink(readServiceAccount(account.json)!, ISSUER_ID, "Tickets", TICKET, 1_900_000_000, "https://tickets.example.com");
    expect(link.startsWith(GOOGLE_SAVE_URL)).toBe(true);
    const decoded = await decodeJwt(link.slice(GOOGLE_SAVE_URL.length), account.publicKey);
    expect(decoded.verified).toBe(true);
    expect(decoded.claims).toStrictEqual({
      iss: CLIENT_EMAIL,
      aud: "google",
      typ: "savetowallet",
      iat: 1_900_000_000,
      origins: ["https://tickets.example.com"],
      payload: eventTicketPayload(ISSUER_ID, "Tickets", TICKET),
    });
    // Lean enough for a link: one class and one object with a ~115-character code stay near Google's advised size.
    expect(link.length).toBeLessThan(2000);
    const local = await googleSaveLink(readServiceAccount(account.json)!, ISSUER_ID, "Tickets", TICKET, 1, "");
    expect((await decodeJwt(local.slice(GOOGLE_SAVE_URL.length), account.publicKey)).claims.origins).toEqual([]);
  });
});
