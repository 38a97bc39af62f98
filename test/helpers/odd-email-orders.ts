import { orders } from "../../src/db/schema";
import { unique } from "./api";
import { createEvent, createTicketType, db } from "./catalogue";

/** Emails of odd shapes (quotes, LIKE wildcards, accents, other scripts, letter case) for the order list's sorting and search. */
export const ODD_EMAILS = [
  "Ann.Smith@Example.com",
  "ann.o'hara@example.org",
  'say."hi"@example.net',
  "bob_x%y*z@mail.example",
  "aaa-aaa@aa.example",
  "zoë.müller@example.de",
  "ÇA.VA@EXEMPLE.FR",
  "日本語メール@例え.jp",
  "near.and.or@not.example",
];

/** An event with one order per email of ODD_EMAILS, in that order (ids alike). */
export async function eventWithOddEmailOrders(): Promise<{ eventId: number; ids: number[] }> {
  const event = await createEvent({ event_name: unique("Search "), add_dashboard_orders_needed: true });
  await createTicketType(event.id, { name: "Regular", price: 10 });
  const ids: number[] = [];
  for (const email of ODD_EMAILS) {
    // Written directly: some of these are no valid email for the order routes, which is beside the point here.
    const [row] = await db
      .insert(orders)
      .values({
        eventId: event.id,
        uid: crypto.randomUUID().replace(/-/g, "").padEnd(40, "0"),
        paymentStatus: "dashboard",
        name: "Searched",
        email,
        emailKey: email.toLowerCase(),
        createdAt: Math.floor(Date.now() / 1000),
      })
      .returning({ id: orders.id });
    ids.push(row!.id);
  }
  return { eventId: event.id, ids };
}
