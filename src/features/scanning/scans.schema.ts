import { z } from "zod";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { dateTimeView } from "../../http/view-types";

/** `POST /scans`: the ticket's scan code as its QR code carries it (the ticket id, or later its signed code). */
export const scanBody = z.strictObject({
  id: z.string().trim().min(1, "must not be empty").max(300, "must be at most 300 characters"),
});
export type ScanInput = z.output<typeof scanBody>;

/** `GET /scans/revoked?since=<date-time>`: in the event's zone; omitted, every revoked ticket. */
export const revokedQuery = z.object({
  since: z.string().max(40).optional(),
});

const int = z.number().int();
const UNAVAILABLE = "`scan_unavailable`: the event's object stays behind its catalogue; try again.";
const KEY = "A scan key of the event in `X-EVT-API-KEY` (no service key).";

/** The decision on one scan (decisions.md 6, 12, 13): `status` true admits; a refusal says why in `error`. */
export const scanResultView = named(
  "ScanResult",
  z.object({
    order_id: int.describe("0 when the ticket is unknown here."),
    qrcode: z.string(),
    event: z.string(),
    name: z.string(),
    email: z.string(),
    level: int,
    type: z.string(),
    status: z.boolean().describe("true: admitted (or, at an information level, shown)."),
    date: z.string().describe("When, in the scan key's `date_format`: this scan, or the earlier scan that refuses it."),
    location: z.string(),
    error: z.string().optional().describe("Why the ticket is refused (`Ticket not found`, already scanned, ...)."),
  }),
);

/** The public scan routes (spec "Public scans"; decisions.md 6, 13): a scan key, no service key. */
export const scansApi = {
  scan: {
    summary: "Scan a ticket",
    description: `The event's object decides from its own state at the key's level and location; the scan reaches D1 and \`scan.created\` through the queue. The code is a ticket id or a signed ticket code. ${KEY}`,
    success: answers.ok(scanResultView, "The decision; a refused ticket is a `200` too, with `status: false` and `error`."),
    errors: { "503": UNAVAILABLE },
  },
  revoked: {
    summary: "List tickets revoked since a moment",
    description: `For offline scanners: tickets of the key's event that stopped being valid since \`since\` (the event's time zone; all when omitted), newest last. ${KEY}`,
    success: answers.ok(
      z.object({ event_id: int, revoked: z.array(z.object({ ticket_id: z.string(), revoked_at: dateTimeView.describe("In the event's time zone.") })) }),
      "The revoked tickets.",
    ),
  },
  valid: {
    summary: "List the event's valid tickets",
    description: `For scanners going offline: every valid ticket of the key's event, with the name a door checks (never the email). ${KEY}`,
    success: answers.ok(
      z.object({ event_id: int, tickets: z.array(z.object({ ticket_id: z.string(), order_id: int, ticket_type: z.string(), name: z.string() })) }),
      "The valid tickets.",
    ),
    errors: { "503": UNAVAILABLE },
  },
  ticket: {
    summary: "Get a ticket and its scans",
    description: `The ticket (by id or signed code) with its scans since the last exit reload, for any scan key of its event. ${KEY}`,
    success: answers.ok(
      z.object({
        order_id: int,
        qrcode: z.string(),
        event_name: z.string(),
        ticket_type: z.string(),
        name: z.string(),
        email: z.string(),
        scans: z.array(z.object({ scan_level: int, scan_date: z.string(), scan_location: z.string() })),
      }),
      "The ticket and its scans.",
    ),
    errors: { "404": "`scan_ticket_not_found`: no valid ticket of the key's event has this id or code.", "503": UNAVAILABLE },
  },
  publicKeys: {
    summary: "List the keys that verify signed ticket codes",
    description: "The Ed25519 public keys of the signed codes in QR codes, for scanners verifying offline. Any scan key.",
    success: answers.ok(
      z.object({
        keys: z.array(
          z.object({
            kid: z.string(),
            alg: z.literal("Ed25519"),
            public_key: z.string().describe("The raw public key, base64url."),
            jwk: z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string(), kid: z.string() }),
          }),
        ),
      }),
      "The public keys, the signing one first.",
    ),
  },
} satisfies Record<string, RouteDoc>;
