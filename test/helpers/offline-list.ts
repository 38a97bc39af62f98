import { call, expectJson } from "./api";

type Json = Record<string, any>;

/**
 * The event object learns a final order's tickets just after the answer: polls the scan key's offline list
 * (`GET /scans/tickets`, bounded to 5 s) until it holds every id, and answers that list.
 */
export async function waitKnown(key: string, ids: string[]): Promise<Json> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const body = await expectJson(call("GET", "/scans/tickets", { key, auth: null }), 200);
    const known = new Set(body.tickets.map((t: Json) => t.ticket_id));
    if (ids.every((id) => known.has(id))) return body;
    if (Date.now() > deadline) throw new Error(`tickets ${ids.join(", ")} not known to the event object`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
