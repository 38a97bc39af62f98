import { z } from "zod";
import { decodeCursor, LIST_MAX_PER_PAGE, LIST_PAGE_BYTES, parseSyncToken, WHOLE_LIST_MAX } from "../../domain/offline-list";
import { positiveInt } from "../../http/paging";
import { answers, named, OVERLOADED, type RouteDoc } from "../../http/route-docs";
import { dateTimeView } from "../../http/view-types";

/** `POST /scans`: the ticket's scan code as its QR code carries it (the ticket id, or later its signed code). */
export const scanBody = z.strictObject({
  id: z.string().trim().min(1, "must not be empty").max(300, "must be at most 300 characters"),
});

/** `GET /scans/revoked?since=<date-time>`: in the event's zone; omitted, every revoked ticket. */
export const revokedQuery = z.object({
  since: z.string().max(40).optional(),
});

/**
 * `GET /scans/tickets` (docs/scanning.md "Offline list"): none of these, the whole list in one answer (up to
 * WHOLE_LIST_MAX tickets); any of them, one page of a walk. `cursor` comes from a `next` link and carries its walk's
 * `since`, which must then be sent as it was (the next link keeps it).
 */
export const validTicketsQuery = z
  .object({
    per_page: positiveInt(LIST_MAX_PER_PAGE).optional().describe(`Tickets a page (1 to ${LIST_MAX_PER_PAGE}; default ${LIST_MAX_PER_PAGE}). Sending it pages the list.`),
    cursor: z
      .string()
      .max(400, "is not a cursor of this list (take it from a next link)")
      .transform((text, ctx) => {
        const cursor = decodeCursor(text);
        if (cursor === null) {
          ctx.addIssue({ code: "custom", message: "is not a cursor of this list (take it from a next link)", input: text });
          return z.NEVER;
        }
        return cursor;
      })
      .optional()
      .describe("Where the walk goes on: from the `next` link of the page before (opaque)."),
    since: z
      .string()
      .transform((text, ctx) => {
        const seq = parseSyncToken(text);
        if (seq === null) {
          ctx.addIssue({ code: "custom", message: "must be a sync_token from an earlier answer of this list", input: text });
          return z.NEVER;
        }
        return seq;
      })
      .optional()
      .describe("A `sync_token` of an earlier answer: only what changed after it (changed and new tickets, and `revoked`)."),
  })
  .superRefine((q, ctx) => {
    if (q.cursor === undefined) return;
    const since = q.cursor.kind === "delta" ? q.cursor.since : undefined;
    if (since !== q.since) ctx.addIssue({ code: "custom", path: ["cursor"], message: "does not belong to this query (send the next link as it is)", input: q.cursor });
  });
export type ValidTicketsQuery = z.output<typeof validTicketsQuery>;

const int = z.number().int();
const KEY = "A scan key of the event in `X-EVT-API-KEY` (no service key).";

/** The decision on one scan (decisions.md 6, 12, 13): `status` true admits; a refusal says why in `error`. */
const scanResultView = named(
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

const listedTicketView = z.object({
  ticket_id: z.string(),
  order_id: int,
  ticket_type: z.string().describe("The type name, with the seat when seated."),
  name: z.string(),
  ticket_type_id: z
    .string()
    .describe(
      "The ticket type's `id` (as the ticket types of the admin API show it; a passe-partout's ticket at a child event: the pass's type): what a scan key's `ticket_type_ids` admits (`GET /scan-keys/self`). Empty for a ticket the event's object learned before it kept types, until the object learns it again.",
    ),
});
const linkView = z.array(z.object({ href: z.string() }));

/** The offline list's answer: the whole list, a page of it, or a page of changes (`revoked` only then). */
export const offlineListView = named(
  "OfflineList",
  z.object({
    event_id: int,
    tickets: z.array(listedTicketView).describe("Valid tickets: by `ticket_id` in a list, in change order in a delta."),
    revoked: z
      .array(z.object({ ticket_id: z.string() }))
      .optional()
      .describe("With `since` only: tickets that stopped being valid (deleted, or their order was) after it."),
    sync_token: z.string().describe("This walk's position in the list's changes: keep it after the last page and send it as `since` next time."),
    _links: z.object({ self: linkView, next: linkView.optional().describe("The next page; absent on the last one.") }),
  }),
);

/** What a door phone decides scans with offline (docs/scanning.md "The key's own settings"): the key's settings, never the key itself. */
export const scanKeySelfView = named(
  "ScanKeySelf",
  z.object({
    event_id: int,
    event_name: z.string(),
    level: int.describe("0 entrance, 1 checkpoint, 6 reset, 7 leave, 8 re-enter, 9 exit (decisions.md 6)."),
    location: z.string(),
    date_format: z.string().describe("How scan dates are shown: PHP `date()` letters, in the event's time zone."),
    tickets: z.string().describe("The key's ticket filter as the scan-key admin API shows it: type names, comma-separated; empty: all."),
    ticket_type_ids: z
      .array(z.string())
      .nullable()
      .describe("The ticket type ids the key admits, to compare with the offline list's `ticket_type_id`; null: every type (the filter is empty)."),
  }),
);

/** The public scan routes (spec "Public scans"; decisions.md 6, 13): a scan key, no service key. */
export const scansApi = {
  scan: {
    operationId: "scanTicket",
    summary: "Scan a ticket",
    description: `The event's object decides from its own state at the key's level and location; the scan reaches D1 and \`scan.created\` through the queue. The code is a ticket id or a signed ticket code. ${KEY}`,
    success: answers.ok(scanResultView, "The decision; a refused ticket is a `200` too, with `status: false` and `error`."),
    errors: { "503": OVERLOADED },
  },
  revoked: {
    operationId: "listRevokedTickets",
    summary: "List tickets revoked since a moment",
    description: `For offline scanners: tickets of the key's event that stopped being valid since \`since\` (the event's time zone; all when omitted), newest last. ${KEY}`,
    success: answers.ok(
      z.object({ event_id: int, revoked: z.array(z.object({ ticket_id: z.string(), revoked_at: dateTimeView.describe("In the event's time zone.") })) }),
      "The revoked tickets.",
    ),
  },
  valid: {
    operationId: "listValidTickets",
    summary: "List the event's valid tickets (offline list)",
    description: [
      `For scanners going offline: the valid tickets of the key's event, with the name a door checks (never the email). ${KEY}`,
      `Without parameters: the whole list in one answer, as it always was, when it holds at most ${WHOLE_LIST_MAX} tickets (else \`400 scan_list_too_large\`).`,
      `In pages: \`per_page\` (up to ${LIST_MAX_PER_PAGE}) and then the \`next\` link (\`_links.next\`, and \`Link: <...>; rel="next"\`) until a page has none; tickets by \`ticket_id\`, each exactly once, and every page of a walk carries the walk's \`sync_token\`.`,
      "After a sync, `since=<sync_token>` answers only what changed after it: new and changed tickets in `tickets`, tickets no longer valid in `revoked`, in change order; a change made while a walk was going on is always in the next delta.",
      `\`ETag\` (weak): send it back in \`If-None-Match\`; while the list is unchanged the answer is \`304\` without a body. Pages end early rather than carry more than ${LIST_PAGE_BYTES.toLocaleString("en")} bytes of tickets. JSON is compressed at Cloudflare's edge for clients that send \`Accept-Encoding\`.`,
    ].join("\n\n"),
    success: { kind: "json", status: 200, schema: offlineListView, description: "The list, a page of it, or what changed since `since`.", headers: ["ETag", "Link"] },
    notModified: "Not modified: the list is what the `If-None-Match` ETag names (no body).",
    headers: {
      "If-None-Match": {
        description: "The `ETag` of an earlier answer to the same request: `304` while the list is unchanged.",
        required: false,
        schema: { type: "string" },
      },
    },
    errors: {
      "400": "`scan_list_too_large`: asked without parameters, the list holds more tickets than one answer carries; ask for it in pages (`per_page`).",
      "503": OVERLOADED,
    },
  },
  ticket: {
    operationId: "getTicketScans",
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
    errors: { "404": "`scan_ticket_not_found`: no valid ticket of the key's event has this id or code.", "503": OVERLOADED },
  },
  self: {
    operationId: "getOwnScanKey",
    summary: "Get the scan key's own settings",
    description: [
      "For a door phone deciding scans offline: the event, level, location, date format and ticket filter of the scan key in `X-EVT-API-KEY`, as the event's object decides scans with them, and the ticket type ids the filter admits (compare them with the offline list's `ticket_type_id`). Never the key itself, nothing of another event.",
      "Counts in the scan key's offline-sync budget, with the offline list. A deleted key is refused at once.",
    ].join("\n\n"),
    success: answers.ok(scanKeySelfView, "The key's settings."),
    errors: { "503": OVERLOADED },
  },
  publicKeys: {
    operationId: "listTicketSigningKeys",
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
