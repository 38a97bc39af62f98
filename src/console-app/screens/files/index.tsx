import type { Route } from "../../router";
import type { SectionProps } from "../event-page";

// PDF templates, email lists, coupons, and the event page's scan keys and email list. (Being built.)
export const filesRoutes: Route[] = [];

export function EmailList(_: SectionProps) {
  return <p>…</p>;
}
