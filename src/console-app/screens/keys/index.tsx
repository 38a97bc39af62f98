import type { Route } from "../../router";
import { CouponList, CouponPage, NewCoupon } from "./coupons";
import { KeysSheet } from "./keys-sheet";

// Scan keys and coupons (docs/console.md): the event page's `keys` section, the printable sheet of the keys' QR
// codes, and the coupons.
export { ScanKeys } from "./scan-keys";

export const keysRoutes: Route[] = [
  { pattern: "/events/:id/keys-sheet", screen: ({ id = "" }) => <KeysSheet id={id} /> },
  { pattern: "/coupons", screen: () => <CouponList /> },
  { pattern: "/coupons/new", screen: () => <NewCoupon /> },
  { pattern: "/coupons/:id", screen: ({ id = "" }) => <CouponPage id={id} /> },
];
