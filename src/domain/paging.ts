/** A page of a collection as a request names it (decisions.md 3: `per_page`, `page`, or `offset`). */
export interface PageRequest {
  per_page: number;
  page: number;
  offset?: number | undefined;
}

/** The rows to read: `offset` overrides `page`. */
export function pageWindow(p: PageRequest): { limit: number; offset: number } {
  return { limit: p.per_page, offset: p.offset ?? (p.page - 1) * p.per_page };
}
