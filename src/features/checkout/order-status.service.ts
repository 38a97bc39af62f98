import { count as countRows, eq } from "drizzle-orm";
import { isFinalOrder } from "../../db/order-status";
import { orders, tickets } from "../../db/schema";
import type { OrderStatusView } from "./customer-orders.schema";
import { API_BASE } from "../../config";
import { invalidId } from "../../domain/errors";
import { secretsEqual } from "../../lib/crypto";
import type { Deps } from "../../platform/deps";
import { allPersonalised } from "../tickets/personalisation.service";
import type { OrderRow } from "../../db/rows";

/**
 * The order named by id and uid together (a public capability): anything else, including a wrong uid, is the same
 * 404, compared in constant time.
 */
export async function orderByCapability({ db }: Deps, id: number, uid: string): Promise<OrderRow> {
  const order = await db.select().from(orders).where(eq(orders.id, id)).get();
  if (!order || !(await secretsEqual(uid, order.uid))) throw invalidId("order");
  return order;
}

/** `GET /orders/<order_id>/<uid>/status`, for the thank-you page. */
export async function orderStatus(deps: Deps, order: OrderRow) {
  const issued = await deps.db.select({ n: countRows() }).from(tickets).where(eq(tickets.orderId, order.id)).get();
  const ready = isFinalOrder(order) && (issued?.n ?? 0) > 0 && (await allPersonalised(deps, order));
  return {
    payment_status: order.paymentStatus,
    tickets_ready: ready,
    download_url: ready ? `${deps.origin}${API_BASE}/tickets/${order.uid}` : "",
  } satisfies OrderStatusView;
}
