import { z } from "zod";
import { INPUT_FIELD_TYPES } from "../../db/schema";
import { answers, named, type RouteDoc } from "../../http/route-docs";

/** `PUT /tickets/<uid>/personalisation` (decisions.md 13, "Flows"): values per ticket, for some or all tickets. */
export const personaliseBody = z.strictObject({
  tickets: z
    .array(
      z.strictObject({
        ticket_id: z.string().min(1).max(32),
        fields: z.record(z.string(), z.string().max(1000)),
      }),
    )
    .min(1, "must name at least one ticket")
    .max(500),
});
export type PersonaliseInput = z.output<typeof personaliseBody>;

/** An order's tickets with the fields each must be personalised with (decisions.md 7, 13). */
const personalisationView = named(
  "Personalisation",
  z.object({
    tickets: z.array(
      z.object({
        ticket_id: z.string(),
        ticket_type: z.string(),
        personalised: z.boolean().describe("Saved (a ticket is saved once), or nothing to personalise."),
        fields: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            type: z.enum(INPUT_FIELD_TYPES),
            value: z.string(),
            required: z.boolean(),
            options: z.array(z.string()).optional().describe("The choices of a `select` field."),
          }),
        ),
      }),
    ),
  }),
);

export type PersonalisationView = z.infer<typeof personalisationView>;

/** The `202` of a download the queue is still rendering in parts (decisions.md 15). */
export const ticketsRenderingView = z.object({
  status: z.literal("rendering"),
  ready: z.number().int().describe("Parts rendered so far."),
  parts: z.number().int().describe("Parts in all (about 100 tickets each)."),
});

const CAPABILITY = "No key: the order's uid is the capability.";

/** The public ticket routes (decisions.md 7, 13): no key, the order's uid is the capability. */
export const ticketsApi = {
  personalisation: {
    operationId: "getPersonalisation",
    summary: "Get what an order's tickets need personalised",
    description: `Each ticket of the order with the fields its type asks for, and whether it was saved. ${CAPABILITY}`,
    success: answers.ok(personalisationView, "The order's tickets and their fields."),
  },
  personalise: {
    operationId: "personaliseTickets",
    summary: "Personalise an order's tickets",
    description: `Saves the values of some or all tickets, checked like order input fields; all named tickets are saved together or none. ${CAPABILITY}`,
    success: answers.ok(personalisationView, "The order's tickets and their fields, as saved."),
    errors: { "409": "`ticket_already_personalised`: a ticket is saved once." },
  },
  personalisePage: {
    operationId: "getPersonalisationPage",
    summary: "The personalisation page",
    description: `A small page with one form per ticket, saving through the JSON route. ${CAPABILITY}`,
    success: answers.html("The page."),
  },
  download: {
    operationId: "downloadTickets",
    summary: "Download an order's e-tickets",
    description: `The tickets as one PDF, one page each, on the ticket type's template with the QR code. An order of more tickets than one request renders (about 100) is rendered in parts by the queue: until its PDF is complete the answer is \`202\` with \`Retry-After\`; ask again then. ${CAPABILITY}`,
    success: answers.pdf("The tickets' PDF."),
    alsoSuccess: answers.accepted(ticketsRenderingView, "Still rendering (decisions.md 15): `ready` of `parts` are done; ask again after `Retry-After` seconds."),
    errors: {
      "404": "`tickets_not_found`: the order is not final or has no tickets (yet).",
      "409": "`tickets_not_personalised`: every ticket must be personalised first.",
    },
  },
  googleWallet: {
    operationId: "saveTicketToGoogleWallet",
    summary: "Save a ticket to Google Wallet",
    description: `Redirects to Google's save page with a signed JWT holding the event ticket class and object; the pass's QR code is the ticket's signed code, as on the PDF (decisions.md 15 "Wallet passes"). A pass only when the order's download would be allowed. ${CAPABILITY}`,
    success: answers.redirect(302, "To `https://pay.google.com/gp/v/save/<jwt>`."),
    errors: {
      "404":
        "`rest_ticket_invalid_id`: no such ticket in the order, or no pass yet (the order is not final, a ticket awaits personalisation, the ticket was revoked); `wallet_not_configured`: Google Wallet is not configured.",
    },
  },
  applePass: {
    operationId: "downloadApplePass",
    summary: "Download a ticket as an Apple Wallet pass",
    description: `An \`eventTicket\` pass (\`.pkpass\`) whose QR barcode is the ticket's signed code, as on the PDF: the door scans it like the PDF, online or offline. Only when the order's tickets could be downloaded (final, personalised) and the ticket is one of them. ${CAPABILITY}`,
    success: answers.file("application/vnd.apple.pkpass", "The pass."),
    errors: {
      "404":
        "`rest_ticket_invalid_id`: no such ticket in the order, or the order's tickets cannot be downloaded (not final, not personalised, the ticket revoked). `wallet_not_configured`: Apple Wallet passes are not configured.",
    },
  },
  invoice: {
    operationId: "downloadInvoice",
    summary: "Download an order's invoice",
    description: `A one-page PDF: lines per ticket type, the discount, totals and the VAT per rate. ${CAPABILITY}`,
    success: answers.pdf("The invoice's PDF."),
    errors: { "404": "`rest_invoice_not_available`: the event issues no invoices, or the order is not final." },
  },
} satisfies Record<string, RouteDoc>;
