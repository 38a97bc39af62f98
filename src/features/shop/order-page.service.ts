import { inArray } from "drizzle-orm";
import { API_BASE } from "../../config";
import { isFinal, isFinalOrder } from "../../db/order-status";
import type { EventRow, OrderRow } from "../../db/rows";
import { events } from "../../db/schema";
import { ApiError } from "../../domain/errors";
import { invalidIdCode } from "../../domain/error-codes";
import type { Deps } from "../../platform/deps";
import { orderStatus } from "../checkout/order-status.service";
import { ordersOfPaymentGroup } from "../ordering/order-placement";
import { orderByUid, personalisationNeeds } from "../tickets/personalisation.service";
import { downloadPreparing } from "../tickets/ticket-pdfs.service";
import { orderPasses, type TicketPasses } from "../tickets/wallet-links";

/** What the order page says of an order (decisions.md 15 "The box office"), one text each in `orderPage.state`. */
type OrderPageState = "awaitingPayment" | "paid" | "booked" | "awaitingConfirmation" | "confirmed" | "expired" | "cancelled" | "failed" | "refunded";

/** How often the page looks again while something is pending, in seconds. */
export const ORDER_PAGE_REFRESH_S = 5;

/** An order's state as its customer reads it, from its `payment_status` (decisions.md 5.3) and confirmation. */
function stateOf(order: OrderRow): OrderPageState {
  const status = order.paymentStatus;
  if (status === "open") return "awaitingPayment";
  if (isFinal(status)) {
    if (order.awaitsConfirmation) return "awaitingConfirmation";
    if (status.endsWith(" - confirmed")) return "confirmed";
    return status === "paid" ? "paid" : "booked";
  }
  if (status === "expired" || status === "failed" || status === "refunded") return status;
  return "cancelled";
}

export interface OrderPageDate {
  order: OrderRow;
  event: EventRow;
  state: OrderPageState;
  /** The tickets' download, once the status route would offer it (tickets issued and personalised). */
  downloadUrl: string;
  /** The personalisation page, while the order is final and its types ask for personalised fields. */
  personaliseUrl: string;
  /** Some ticket still waits for its personalisation: the download is not offered yet. */
  toPersonalise: boolean;
  /** The invoice, as invoices.service answers it: events with `invoice_needed`, final orders with tickets. */
  invoiceUrl: string;
  /** Each ticket's wallet passes while the download is allowed (decisions.md 15 "Wallet passes"); else none. */
  passes: TicketPasses[];
  /** A large order's tickets still rendering in parts (the download would answer `202`): its progress; else null. */
  preparing: { ready: number; parts: number } | null;
}

export interface OrderPage {
  /** The order named by the uid; a payment group's first order also stands for its other dates. */
  order: OrderRow;
  dates: OrderPageDate[];
  /** The provider's checkout while the payment is open and its deadline has not passed; else "". */
  checkoutUrl: string;
  /** Something may still change by itself: payment open, confirmation awaited, or tickets rendering. */
  pending: boolean;
}

/**
 * The order page's view of the order of `uid` (the uid is the capability, as for `/tickets/<uid>`): the payment
 * group's first order shows every date paid together, another order only itself. An unknown uid is the 404 of
 * orderByUid; links follow the rules of the status route, the personalisation page and the invoice.
 */
export async function orderPage(deps: Deps, uid: string): Promise<OrderPage> {
  const order = await orderByUid(deps, uid);
  const grouped = order.paymentGroup === order.uid ? await ordersOfPaymentGroup(deps, order.uid) : [order];
  const ordersShown = grouped.length > 0 ? grouped : [order];
  const eventRows = await deps.db
    .select()
    .from(events)
    .where(
      inArray(
        events.id,
        ordersShown.map((o) => o.eventId),
      ),
    );
  const base = `${deps.origin}${API_BASE}`;
  const dates: OrderPageDate[] = [];
  for (const o of ordersShown) {
    const event = eventRows.find((e) => e.id === o.eventId);
    if (!event) continue;
    const state = stateOf(o);
    const final = isFinalOrder(o);
    const status = await orderStatus(deps, o);
    const needs = final ? await personalisationNeeds(deps, o) : [];
    const rendering = status.tickets_ready ? await downloadPreparing(deps, o) : null;
    const asked = needs.some((n) => n.fields.length > 0);
    dates.push({
      order: o,
      event,
      state,
      downloadUrl: rendering ? "" : status.download_url,
      personaliseUrl: asked ? `${base}/tickets/${o.uid}/personalise` : "",
      toPersonalise: asked && !status.tickets_ready,
      invoiceUrl: event.invoiceNeeded && final && needs.length > 0 ? `${base}/invoices/${o.uid}` : "",
      preparing: rendering ? { ready: rendering.ready, parts: rendering.parts } : null,
      // A pass needs no rendered PDF: only what allows the download (passSubject).
      passes: status.tickets_ready ? await orderPasses(deps, o) : [],
    });
  }
  const open = order.paymentStatus === "open";
  const payable = open && order.checkoutUrl !== "" && order.expiresAt !== null && order.expiresAt > deps.now();
  return {
    order,
    dates,
    checkoutUrl: payable ? order.checkoutUrl : "",
    pending: dates.some((d) => d.state === "awaitingPayment" || d.state === "awaitingConfirmation" || d.preparing !== null),
  };
}

/** An unknown order's error, told apart from any other failure (which stays the service's own 5xx). */
export function isUnknownOrder(err: unknown): boolean {
  return err instanceof ApiError && err.code === invalidIdCode("order");
}
