import type { IdResource, InvalidIdCodeOf, RegisteredCode } from "../error-codes";

/**
 * The path ids a shop visitor or a door person can name wrong (a shared link to an event, an order page, a ticket's
 * PDF, a ticket type in an order): their `rest_<resource>_invalid_id` codes get a text of their own in every
 * language; the others (admin resources) show the service's message.
 */
type VisitorIdResource = Extract<IdResource, "event" | "order" | "ticket" | "ticket_type">;

/** The codes every catalogue's `errors` section has a text for (decisions.md 15 "Languages"). */
export type ErrorTextCode = RegisteredCode | InvalidIdCodeOf<VisitorIdResource>;
