import { env } from "cloudflare:workers";
import { PageSizes, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { call, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType } from "../../helpers/catalogue";
import { makePdf, upload } from "../../helpers/uploads";
import { programStub, stubUrl, waitForRequests } from "../../helpers/stubs";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * `GET /tickets/<uid>` (decisions.md 7 and 13; docs/tickets-pdf.md): the public e-ticket download, its R2 cache
 * under `tickets/<uid>.pdf` and the purges (queued jobs). Storage is shared: every test makes its own events and orders.
 */

const LETTER: [number, number] = [612, 792];

async function newEvent(body: Record<string, unknown> = {}): Promise<any> {
  return createEvent({ event_name: unique("Dl "), add_dashboard_orders_needed: true, ...body });
}

async function placeOrder(eventId: number, typeIds: string[], counts: Record<string, number>, extra: Record<string, unknown> = {}): Promise<any> {
  const body = { event_id: eventId, name: "Ada Lovelace", email: "ada@example.com", tickets: typeIds.map((id) => ({ [id]: counts[id] ?? 0 })), ...extra };
  return expectJson(call("POST", "/admin/orders", { body }), 201);
}

const download = (uid: string) => call("GET", `/tickets/${uid}`, { key: null, auth: null });
const cacheKey = (uid: string) => `tickets/${uid}.pdf`;

async function expectPdf(res: Response | Promise<Response>, orderId: number): Promise<{ bytes: Uint8Array; doc: PDFDocument }> {
  const response = await res;
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(response.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/pdf");
  expect(response.headers.get("Content-Disposition")).toContain(`filename="tickets-${orderId}.pdf"`);
  return { bytes, doc: await PDFDocument.load(bytes) };
}

const pageLines = (doc: PDFDocument, index: number) => readPage(doc.getPage(index)).lines.map((l) => l.text);

/** Purges are queued jobs: wait for the cached object to go. */
async function waitGone(key: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await env.FILES.head(key)) !== null) {
    if (Date.now() > deadline) throw new Error(`${key} still cached`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function r2Bytes(key: string): Promise<Uint8Array | null> {
  const obj = await env.FILES.get(key);
  return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
}

describe("GET /tickets/<uid>", () => {
  it("answers a PDF with one A4 page per ticket and the default info lines, without credentials", async () => {
    const event = await newEvent({ event_date: "2031-07-04 21:15:00", timezone: "Europe/Amsterdam", event_date_format: "d/m/Y H:i" });
    const regular = await createTicketType(event.id, { name: "Regular" });
    const vip = await createTicketType(event.id, { name: "VIP" });
    const order = await placeOrder(event.id, [regular.id, vip.id], { [regular.id]: 2, [vip.id]: 1 });

    const { doc } = await expectPdf(download(order.uid), order.id);
    expect(doc.getPageCount()).toBe(3);
    const [w, h] = PageSizes.A4;
    for (const page of doc.getPages()) {
      expect(page.getWidth()).toBeCloseTo(w, 0);
      expect(page.getHeight()).toBeCloseTo(h, 0);
    }
    const types: string[] = [];
    for (let i = 0; i < 3; i++) {
      const lines = pageLines(doc, i);
      expect(lines).toContain(event.event_name);
      expect(lines).toContain("04/07/2031 21:15");
      expect(lines).toContain(String(order.id));
      expect(lines).toContain("Ada Lovelace");
      expect(lines).toContain("ada@example.com");
      types.push(lines.find((l) => l === "Regular" || l === "VIP") ?? "?");
      // Lines appear in the documented order.
      const at = (s: string) => lines.indexOf(s);
      expect(at(event.event_name)).toBeLessThan(at("04/07/2031 21:15"));
      expect(at("04/07/2031 21:15")).toBeLessThan(at(String(order.id)));
      expect(at(String(order.id))).toBeLessThan(at("Ada Lovelace"));
      expect(at("Ada Lovelace")).toBeLessThan(at("ada@example.com"));
    }
    expect(types.sort()).toEqual(["Regular", "Regular", "VIP"]);
  });

  it("each page shows its ticket's id in text under the QR code, for a door person to type (decisions.md 15 'The box office')", async () => {
    const event = await newEvent();
    const regular = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, [regular.id], { [regular.id]: 2 });
    const listed = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
    const ids: string[] = listed.tickets.map((t: { ticket_id: string }) => t.ticket_id);
    expect(ids).toHaveLength(2);

    const { doc } = await expectPdf(download(order.uid), order.id);
    const shown = doc.getPages().map((page) => {
      const drawing = readPage(page);
      // The code: the fill with the most rectangles; the id line lies under its lowest module.
      const code = drawing.fills.reduce((best, f) => (f.rects.length > best.rects.length ? f : best));
      const codeBottom = Math.min(...code.rects.map((r) => r[1]));
      const line = drawing.lines.find((l) => ids.includes(l.text));
      expect(line, JSON.stringify(drawing.lines.map((l) => l.text))).toBeDefined();
      expect(line!.y).toBeLessThan(codeBottom);
      return line!.text;
    });
    expect(shown.sort()).toEqual([...ids].sort());
  });

  it("a passe-partout order has a page for every ticket: one per unit at each child event", async () => {
    const group = unique("G");
    const c1 = await newEvent({ event_name: unique("Child one "), group_type: 1, event_group: group });
    const c2 = await newEvent({ event_name: unique("Child two "), group_type: 1, event_group: group });
    const p = await newEvent({ event_name: unique("Pass "), group_type: 3, event_group: group });
    const pass = await createTicketType(p.id, { name: "Weekend pass", price: 99 });
    const order = await placeOrder(p.id, [pass.id], { [pass.id]: 2 });
    // decisions.md 15 "Confirmed as built": one ticket per unit at each child event, none at the passe-partout itself.
    const tickets = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
    expect(tickets.tickets).toHaveLength(4);

    const { doc } = await expectPdf(download(order.uid), order.id);
    expect(doc.getPageCount()).toBe(4);
    const names = doc.getPages().map((_, i) => pageLines(doc, i).find((l) => [p.event_name, c1.event_name, c2.event_name].includes(l)));
    expect(names.filter((n) => n === p.event_name)).toHaveLength(0);
    expect(names.filter((n) => n === c1.event_name)).toHaveLength(2);
    expect(names.filter((n) => n === c2.event_name)).toHaveLength(2);
  });

  it("uses the ticket type's template and its page size", async () => {
    const event = await newEvent();
    const template = await expectJson(
      upload("POST", "/admin/pdf-templates", { file: await makePdf(1, { size: LETTER, text: "Letter template" }), fields: { title: unique("Letter ") } }),
      201,
    );
    const type = await createTicketType(event.id, { name: "Templated", attachment_id: template.id });
    expect(type.attachment_id).toBe(template.id);
    const order = await placeOrder(event.id, [type.id], { [type.id]: 2 });

    const { doc } = await expectPdf(download(order.uid), order.id);
    expect(doc.getPageCount()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const page = doc.getPage(i);
      expect(page.getWidth()).toBeCloseTo(LETTER[0], 0);
      expect(page.getHeight()).toBeCloseTo(LETTER[1], 0);
      const drawing = readPage(page);
      expect(drawing.xObjects.length).toBeGreaterThan(0);
      expect(drawing.lines.map((l) => l.text)).toContain("Templated");
    }
  });

  it("a type layout shows its fields instead of order id, name and email", async () => {
    const event = await newEvent();
    const company = await createInputField(event.id, { name: "Company", type: "text" });
    const type = await createTicketType(event.id, { name: "Laid out", layout: "Company,Email" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 }, { fields: [{ [company.id]: "Analytical Engines Ltd" }] });

    const { doc } = await expectPdf(download(order.uid), order.id);
    const lines = pageLines(doc, 0);
    expect(lines).toContain("Analytical Engines Ltd");
    expect(lines).toContain("ada@example.com");
    expect(lines.indexOf("Analytical Engines Ltd")).toBeLessThan(lines.indexOf("ada@example.com"));
    expect(lines).not.toContain("Ada Lovelace");
    expect(lines).not.toContain(String(order.id));
  });

  it("caches the PDF in R2 and serves later downloads from there", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Cached" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 });
    const key = cacheKey(order.uid);
    expect(await env.FILES.head(key)).toBeNull();

    const first = await expectPdf(download(order.uid), order.id);
    const stored = await r2Bytes(key);
    expect(stored).not.toBeNull();
    expect(stored).toEqual(first.bytes);

    // Not rendered again: whatever R2 holds is what the download answers.
    const fake = new TextEncoder().encode("%PDF-1.7\nnot rendered, straight from R2\n%%EOF\n");
    await env.FILES.put(key, fake);
    const res = await download(order.uid);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(fake);
  });

  it("a changed order purges the cache and the next download shows the new name", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Renamed" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 });
    const key = cacheKey(order.uid);
    await expectPdf(download(order.uid), order.id);
    await env.FILES.put(key, new TextEncoder().encode("%PDF-stale"));

    await expectJson(call("PUT", `/admin/orders/${order.id}`, { body: { name: "Grace Hopper" } }), 200);
    await waitGone(key);

    const { doc } = await expectPdf(download(order.uid), order.id);
    const lines = pageLines(doc, 0);
    expect(lines).toContain("Grace Hopper");
    expect(lines).not.toContain("Ada Lovelace");
    expect(await env.FILES.head(key)).not.toBeNull();
  });

  it("deleting tickets purges and answers 404; re-issuing purges and renders the new tickets", async () => {
    const event = await newEvent();
    const type = await createTicketType(event.id, { name: "Reissued" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 2 });
    const key = cacheKey(order.uid);
    await expectPdf(download(order.uid), order.id);
    expect(await env.FILES.head(key)).not.toBeNull();

    await expectJson(call("DELETE", `/admin/tickets/${order.id}`), 200);
    await waitGone(key);
    await expectError(download(order.uid), 404, "tickets_not_found");
    expect(await env.FILES.head(key)).toBeNull();

    // A stale copy put back by hand is purged by the re-issue.
    await env.FILES.put(key, new TextEncoder().encode("%PDF-stale"));
    await expectJson(call("POST", `/admin/tickets/${order.id}`), 201);
    await waitGone(key);
    const { doc } = await expectPdf(download(order.uid), order.id);
    expect(doc.getPageCount()).toBe(2);
    expect(pageLines(doc, 0)).toContain("Reissued");
  });

  it("an unknown uid is a 404", async () => {
    await expectError(download("0".repeat(40)), 404, "rest_order_invalid_id");
    await expectError(download("no-such-order"), 404, "rest_order_invalid_id");
  });

  it("tickets still needing personalisation are a 409 and nothing is cached", async () => {
    const event = await newEvent();
    await createInputField(event.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
    const type = await createTicketType(event.id, { name: "Named", personalise: "Attendee" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 });
    await expectError(download(order.uid), 409, "tickets_not_personalised");
    expect(await env.FILES.head(cacheKey(order.uid))).toBeNull();
    expect((await env.FILES.list({ prefix: `tickets/${event.id}/` })).objects).toEqual([]);
  });
});

describe("tickets.downloaded", () => {
  it("fires for each download, cached or not, from the queue: the order, downloaded_at and the ticket ids", { timeout: 30_000 }, async () => {
    const name = unique("dl-hook");
    await programStub(name, {});
    const hook = await expectJson(
      call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: `secret-${name}`, topic: "tickets.downloaded" } }),
      201,
    );
    await expectJson(call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: true } }), 200);
    try {
      const event = await newEvent({ webhooks_needed: true });
      const type = await createTicketType(event.id, { name: "Regular" });
      const order = await placeOrder(event.id, [type.id], { [type.id]: 2 });
      await expectPdf(download(order.uid), order.id); // rendered
      await expectPdf(download(order.uid), order.id); // from R2
      const got = await waitForRequests(name, 2, 15_000);
      const tickets = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
      for (const r of got) {
        const body = JSON.parse(r.body);
        expect(body).toMatchObject({ id: order.id, uid: order.uid, event_id: event.id });
        expect(body.downloaded_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        expect([...body.qrcodes].sort()).toEqual(tickets.tickets.map((t: any) => t.ticket_id).sort());
      }
    } finally {
      await call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: false } });
    }
  });
});
