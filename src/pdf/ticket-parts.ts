/**
 * decisions.md 15 "No request renders without bound": one request, or one queue message, renders at most this many
 * tickets ("about 100"); a download of more is rendered part by part (docs/tickets-pdf.md has the measurements).
 */
export const PART_SIZE = 100;

/** How many parts an order of `tickets` tickets is rendered in. */
export function partCount(tickets: number): number {
  return Math.ceil(tickets / PART_SIZE);
}

/** The pages of part `index` (0-based): a run of at most PART_SIZE of `pages`, in their order. */
export function partPages<T>(pages: readonly T[], index: number): T[] {
  return pages.slice(index * PART_SIZE, (index + 1) * PART_SIZE);
}
