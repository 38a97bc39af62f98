import type { Route } from "../../router";
import { EventList } from "./list";
import { NewEvent } from "./new-event";

// The events area: the list of events and a new event (the event's own page is screens/event-page.tsx), and the
// event page's sections for its settings, ticket types and input fields. `/events/new` comes before the event
// page's `/events/:id` in routes.tsx, so it is matched first.
export const eventsRoutes: Route[] = [
  { pattern: "/events", screen: () => <EventList /> },
  { pattern: "/events/new", screen: () => <NewEvent /> },
];

export { InputFields } from "./input-fields";
export { EventSettings } from "./settings";
export { TicketTypes } from "./ticket-types";
