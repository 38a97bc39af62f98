/**
 * A count of one ticket type an order may ask for (decisions.md 5.4): none, or at least the type's minimum and at most
 * its maximum (0 = no maximum). The order checks its lines with it, and the shop page's script (src/shop-app) each
 * count as it is typed.
 */
export function isLegalCount(count: number, minimumToOrder: number, maximumToOrder: number): boolean {
  if (count === 0) return true;
  return count >= minimumToOrder && (maximumToOrder === 0 || count <= maximumToOrder);
}
