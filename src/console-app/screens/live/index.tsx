import type { SectionProps } from "../event-page";

// The event's live sales and check-ins. (Being built.)
export function LivePanel(_: SectionProps) {
  return <p>…</p>;
}
