import type { Route } from "../../router";
import type { SectionProps } from "../event-page";

// The events area: the list of events and a new event (the event's own page is screens/event-page.tsx), and the
// event page's sections for its settings, ticket types and input fields. (Being built.)
export const eventsRoutes: Route[] = [];

export function EventSettings(_: SectionProps) {
  return <p>…</p>;
}
export function TicketTypes(_: SectionProps) {
  return <p>…</p>;
}
export function InputFields(_: SectionProps) {
  return <p>…</p>;
}
