import { asc, eq } from "drizzle-orm";
import { inIds } from "../../db/client";
import { API_BASE } from "../../config";
import type { OrderRow } from "../../db/rows";
import { events, tickets } from "../../db/schema";
import type { TicketSeed } from "../../domain/order-rules";
import { ticketTypeLabel } from "../../domain/seat-plan";
import type { Deps } from "../../platform/deps";

/**
 * Where a customer meets the passes (decisions.md 15 "Wallet passes"; docs/wallet.md "Where the passes are linked"):
 * the `{%WALLET%}` block of the order's emails and the order page, each ticket with a link per configured wallet.
 * Callers give tickets only while the download is allowed (the routes refuse a pass otherwise).
 */

/** A ticket as its pass links name it. */
export interface PassTicket {
  id: string;
  /** passLabel: the type with its seat; for a passe-partout's child ticket, its event's name too. */
  label: string;
}

/** One ticket's pass links: "" for a wallet that is not configured. */
export interface TicketPasses extends PassTicket {
  apple: string;
  google: string;
}

/** Some wallet is configured: passes may be offered at all. */
export const walletConfigured = (deps: Deps) => deps.config.appleWallet !== null || deps.config.googleWallet !== null;

/**
 * A ticket's name beside its passes: its type with its seat, and for a ticket at another event than its order's (a
 * passe-partout's child ticket, one per child event) that event's name, which its pass shows too.
 */
function passLabel(ticket: { ticketTypeName: string; seat: string; eventId: number; eventName: string }, orderEventId: number): string {
  const type = ticketTypeLabel(ticket);
  return ticket.eventId === orderEventId ? type : `${type} (${ticket.eventName})`;
}

/** The pass links of `passTickets` of the order `uid`; none at all when no wallet is configured. */
export function passLinks(deps: Deps, uid: string, passTickets: readonly PassTicket[]): TicketPasses[] {
  const { appleWallet, googleWallet } = deps.config;
  if (!walletConfigured(deps)) return [];
  const base = `${deps.origin}${API_BASE}/tickets/${uid}`;
  return passTickets.map((t) => ({
    ...t,
    apple: appleWallet ? `${base}/${t.id}/wallet.pkpass` : "",
    google: googleWallet ? `${base}/${t.id}/wallet/google` : "",
  }));
}

/**
 * The tickets the batch of an order at `orderEventId` is about to write, as their pass links name them, in the order
 * D1 will list them (ordersPassTickets, the admin API): by id, as one batch's tickets share `created_at`.
 */
export function seedPassTickets(seeds: readonly TicketSeed[], orderEventId: number): PassTicket[] {
  return [...seeds]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((s) => ({ id: s.id, label: passLabel({ ...s, ticketTypeName: s.typeName }, orderEventId) }));
}

/**
 * The tickets of `orderRows` as D1 holds them now (a revoked ticket's row is gone), each order's in the order they
 * were issued, for orders whose download is allowed. With no wallet configured nothing would link them: none are
 * looked up.
 */
export async function ordersPassTickets(deps: Deps, orderRows: readonly OrderRow[]): Promise<Map<number, PassTicket[]>> {
  const byOrder = new Map(orderRows.map((o) => [o.id, [] as PassTicket[]]));
  if (orderRows.length === 0 || !walletConfigured(deps)) return byOrder;
  const eventOf = new Map(orderRows.map((o) => [o.id, o.eventId]));
  const rows = await deps.db
    .select({
      id: tickets.id,
      orderId: tickets.orderId,
      eventId: tickets.eventId,
      ticketTypeName: tickets.ticketTypeName,
      seat: tickets.seat,
      eventName: events.eventName,
    })
    .from(tickets)
    .innerJoin(events, eq(events.id, tickets.eventId))
    .where(inIds(tickets.orderId, [...byOrder.keys()]))
    .orderBy(asc(tickets.createdAt), asc(tickets.id));
  for (const r of rows) byOrder.get(r.orderId)!.push({ id: r.id, label: passLabel(r, eventOf.get(r.orderId)!) });
  return byOrder;
}

/** The pass links of an order whose download is allowed (its page's). */
export async function orderPasses(deps: Deps, order: OrderRow): Promise<TicketPasses[]> {
  return passLinks(deps, order.uid, (await ordersPassTickets(deps, [order])).get(order.id) ?? []);
}
