import { API_BASE } from "../../config";
import type { OrderChannel } from "../../db/schema";

/**
 * Where a customer returns to from the payment provider, paid or not, whatever the provider (decisions.md 15 "The box
 * office"): the event's `redirect` when set; else an order placed through the shop returns to its order page, and one
 * placed through the API to section 12's status route. `order` is the payment group's first order.
 */
export function returnAddress(origin: string, event: { redirect: string }, order: { id: number; uid: string; placedVia: OrderChannel }): string {
  if (event.redirect) return event.redirect;
  if (order.placedVia === "shop") return `${origin}${API_BASE}/shop/orders/${order.uid}`;
  return `${origin}${API_BASE}/orders/${order.id}/${order.uid}/status`;
}
