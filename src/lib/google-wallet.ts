/**
 * Google Wallet "Save to Google Wallet" links for event tickets (decisions.md 15 "Wallet passes"; docs/wallet.md):
 * a JWT signed RS256 with the issuer's service account key, whose payload carries the event ticket class and object
 * as Google's Wallet API documents them (EventTicketClass, EventTicketObject). Pure: the caller reads the ticket.
 */
import { pkcs8FromPem, signRs256Jwt } from "./rs256-jwt";

/** Where a signed JWT is saved from; the link is `<this><jwt>`. */
export const GOOGLE_SAVE_URL = "https://pay.google.com/gp/v/save/";

export interface GoogleServiceAccount {
  clientEmail: string;
  privateKeyPem: string;
}

/**
 * The parts of a service account's JSON key the link needs, or null when the text is not such a key (not JSON, no
 * `client_email`, or a `private_key` that is not a PKCS#8 PEM).
 */
export function readServiceAccount(json: string): GoogleServiceAccount | null {
  let key: unknown;
  try {
    key = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof key !== "object" || key === null) return null;
  const { client_email: clientEmail, private_key: privateKeyPem } = key as Record<string, unknown>;
  if (typeof clientEmail !== "string" || !/^[^\s@]+@[^\s@]+$/.test(clientEmail)) return null;
  if (typeof privateKeyPem !== "string" || pkcs8FromPem(privateKeyPem) === null) return null;
  return { clientEmail, privateKeyPem };
}

/** What a pass shows: the event, the ticket and the code the door scans. */
export interface WalletTicket {
  eventId: number;
  eventName: string;
  /** ISO 8601 with the event zone's offset; null when the event has no date. */
  start: string | null;
  ticketId: string;
  ticketType: string;
  /** The seat text of a seated ticket; "" when unseated. */
  seat: string;
  holderName: string;
  /** The signed code the PDF's QR code carries (lib/ticket-codes.ts qrPayload). */
  barcode: string;
}

const localized = (value: string) => ({ defaultValue: { language: "en", value } });

/** The `payload` of a save JWT: one class per event, one object per ticket, ids under the issuer's. */
export function eventTicketPayload(issuerId: string, issuerName: string, t: WalletTicket) {
  const classId = `${issuerId}.event-${t.eventId}`;
  const eventTicketClass = {
    id: classId,
    issuerName,
    eventName: localized(t.eventName),
    ...(t.start ? { dateTime: { start: t.start } } : {}),
    reviewStatus: "UNDER_REVIEW",
  };
  const eventTicketObject = {
    id: `${issuerId}.ticket-${t.ticketId}`,
    classId,
    state: "ACTIVE",
    ticketHolderName: t.holderName,
    ticketType: localized(t.ticketType),
    ...(t.seat ? { seatInfo: { seat: localized(t.seat) } } : {}),
    barcode: { type: "QR_CODE", value: t.barcode, alternateText: t.ticketId },
  };
  return { eventTicketClasses: [eventTicketClass], eventTicketObjects: [eventTicketObject] };
}

/**
 * The save link: `iss` the service account, `aud` "google", `typ` "savetowallet", `origins` the service's own origin
 * when known (Google checks it where the link is embedded as a button), `iat` in seconds.
 */
export async function googleSaveLink(
  account: GoogleServiceAccount,
  issuerId: string,
  issuerName: string,
  ticket: WalletTicket,
  nowSeconds: number,
  origin: string,
): Promise<string> {
  const claims = {
    iss: account.clientEmail,
    aud: "google",
    typ: "savetowallet",
    iat: nowSeconds,
    origins: origin ? [origin] : [],
    payload: eventTicketPayload(issuerId, issuerName, ticket),
  };
  return GOOGLE_SAVE_URL + (await signRs256Jwt(claims, account.privateKeyPem));
}
