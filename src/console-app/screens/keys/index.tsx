import type { Route } from "../../router";
import type { SectionProps } from "../event-page";

// Scan keys and coupons: built by the keys area (this stub keeps the frame compiling until it lands).
export const keysRoutes: Route[] = [];

export function ScanKeys(_: SectionProps) {
  return <p>…</p>;
}
