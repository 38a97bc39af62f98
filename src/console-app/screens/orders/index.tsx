import type { Route } from "../../router";
import type { SectionProps } from "../event-page";

// Orders (search, detail, dashboard orders, refunds, resend, delete, tickets), and the event page's orders and
// exports. (Being built.)
export const ordersRoutes: Route[] = [];

export function EventOrders(_: SectionProps) {
  return <p>…</p>;
}
export function Exports(_: SectionProps) {
  return <p>…</p>;
}
