import { env } from "cloudflare:workers";
import { openDb } from "../../src/db/client";
import { orders, pdfTemplates, tickets } from "../../src/db/schema";
import { call, expectJson, type Credentials } from "./api";

/** One-call set-up of catalogue resources through the public API (as the administrator unless `auth` is given). */

export const db = openDb(env.DB);

export async function createEvent(body: Record<string, unknown> = {}, auth?: Credentials) {
  return expectJson(call("POST", "/admin/events", { body: { event_name: "Test event", ...body }, auth }), 201);
}

export async function createTicketType(eventId: number, body: Record<string, unknown> = {}, auth?: Credentials) {
  return expectJson(call("POST", `/admin/events/${eventId}/ticket-types`, { body: { name: "Regular", price: 10, ...body }, auth }), 201);
}

export async function createInputField(eventId: number, body: Record<string, unknown> = {}, auth?: Credentials) {
  return expectJson(call("POST", `/admin/events/${eventId}/input-fields`, { body: { name: "Company", ...body }, auth }), 201);
}

export async function createScanKey(eventId: number, body: Record<string, unknown> = {}, auth?: Credentials) {
  return expectJson(call("POST", `/admin/events/${eventId}/scan-keys`, { body: { location: "Main entrance", ...body }, auth }), 201);
}

/**
 * A PDF template row owned by `authorId`. The template endpoints arrive with the files issue; until then tests
 * that need a template to refer to write its row directly.
 */
export async function insertTemplate(authorId: number, title = "Ticket"): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const [row] = await db
    .insert(pdfTemplates)
    .values({ title, type: "ticket", authorId, fileKey: `templates/test-${crypto.randomUUID()}.pdf`, createdAt: now, modifiedAt: now })
    .returning({ id: pdfTemplates.id });
  return row!.id;
}

/** An order row (and optionally ticket rows) for an event, written directly until the ordering issues exist. */
export async function insertOrder(eventId: number, ticketTypeIds: string[] = []): Promise<number> {
  const [row] = await db
    .insert(orders)
    .values({
      eventId,
      uid: crypto.randomUUID().replace(/-/g, "").padEnd(40, "0"),
      paymentStatus: "dashboard",
      name: "Test Buyer",
      email: "buyer@example.com",
      createdAt: Math.floor(Date.now() / 1000),
    })
    .returning({ id: orders.id });
  for (const ticketTypeId of ticketTypeIds) {
    await db.insert(tickets).values({ id: crypto.randomUUID().replace(/-/g, "").slice(0, 16), orderId: row!.id, eventId, ticketTypeId });
  }
  return row!.id;
}
