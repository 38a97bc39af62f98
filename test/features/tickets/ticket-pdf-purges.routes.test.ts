import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { PageSizes, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { orders } from "../../../src/db/schema";
import { call, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { makePdf, upload } from "../../helpers/uploads";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * The e-ticket PDF cache (decisions.md 7 and 13 "Tickets, scans, messages"; docs/tickets-pdf.md): a download is kept
 * in R2 under `tickets/<order uid>.pdf` and later downloads are answered from there; anything that changes what the
 * PDF shows enqueues a `pdf.purge` job that deletes the cached copies it affects. For each trigger: download (cached),
 * change, wait for the object to go, download again and see the change. The order update and ticket delete / re-issue
 * triggers are covered in ticket-downloads.routes.test.ts. Storage is shared: every test makes its own events.
 */

type Json = Record<string, any>;

const A5: [number, number] = [420.94, 595.28];
const LETTER: [number, number] = [612, 792];

async function newEvent(body: Json = {}): Promise<Json> {
  return createEvent({ event_name: unique("Purge "), add_dashboard_orders_needed: true, ...body });
}

async function placeOrder(eventId: number, typeIds: string[], counts: Record<string, number>, extra: Json = {}): Promise<Json> {
  const body = { event_id: eventId, name: "Ada Lovelace", email: "ada@example.com", tickets: typeIds.map((id) => ({ [id]: counts[id] ?? 0 })), ...extra };
  return expectJson(call("POST", "/admin/orders", { body }), 201);
}

/** An event with one type "Regular" and an order of `count` tickets. */
async function orderedEvent(eventBody: Json = {}, typeBody: Json = {}, count = 1) {
  const event = await newEvent(eventBody);
  const type = await createTicketType(event.id, { name: "Regular", ...typeBody });
  const order = await placeOrder(event.id, [type.id], { [type.id]: count });
  return { event, type, order };
}

const download = (uid: string) => call("GET", `/tickets/${uid}`, { key: null, auth: null });
const cacheKey = (uid: string) => `tickets/${uid}.pdf`;

async function expectPdf(res: Response | Promise<Response>): Promise<{ bytes: Uint8Array; doc: PDFDocument; response: Response }> {
  const response = await res;
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(response.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/pdf");
  return { bytes, doc: await PDFDocument.load(bytes), response };
}

const pageLines = (doc: PDFDocument, index = 0) => readPage(doc.getPage(index)).lines.map((l) => l.text);

/** Downloads once and checks the copy is now cached; answers the rendered document. */
async function downloadCached(uid: string): Promise<PDFDocument> {
  const { doc, bytes } = await expectPdf(download(uid));
  const stored = await env.FILES.get(cacheKey(uid));
  expect(stored, `${cacheKey(uid)} cached after the download`).not.toBeNull();
  expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);
  return doc;
}

/** Purges are queued jobs: wait (up to 10 s) for the cached object to go. */
async function waitGone(uid: string): Promise<void> {
  const key = cacheKey(uid);
  const deadline = Date.now() + 10_000;
  while ((await env.FILES.head(key)) !== null) {
    if (Date.now() > deadline) throw new Error(`${key} still cached 10 s after the change`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A cached copy that must survive: still there once the purge of another order has been seen to run. */
async function expectStillCached(uid: string): Promise<void> {
  expect(await env.FILES.head(cacheKey(uid)), `${cacheKey(uid)} should not have been purged`).not.toBeNull();
}

describe("a cached download is answered from R2", () => {
  it("whatever valid PDF R2 holds is served, with the disposition stored beside it, even when D1 no longer knows the uid", async () => {
    const { order } = await orderedEvent();
    const key = cacheKey(order.uid);
    const rendered = await downloadCached(order.uid);
    expect(rendered.getPageCount()).toBe(1);
    const head = await env.FILES.head(key);
    expect(head!.httpMetadata?.contentDisposition).toContain(`filename="tickets-${order.id}.pdf"`);

    // A different, valid PDF of 7 pages in its place (same metadata): the download is that document.
    const seven = await makePdf(7, { text: "seven pages straight from R2" });
    await env.FILES.put(key, seven, { httpMetadata: head!.httpMetadata });
    const served = await expectPdf(download(order.uid));
    expect(served.bytes).toEqual(seven);
    expect(served.doc.getPageCount()).toBe(7);
    expect(served.response.headers.get("Content-Disposition")).toContain(`filename="tickets-${order.id}.pdf"`);

    // Move the order to another uid in D1 behind the service's back: the old uid is unknown to D1 now, yet the
    // cached copy is still answered (the answer needs no D1 lookup), while the new uid renders from D1.
    const moved = `${order.uid.slice(0, 30)}Zmovedaway`.slice(0, 40);
    expect(moved).toHaveLength(40);
    await db.update(orders).set({ uid: moved }).where(eq(orders.id, order.id));
    try {
      const fromR2 = await expectPdf(download(order.uid));
      expect(fromR2.bytes).toEqual(seven);
      const fresh = await expectPdf(download(moved));
      expect(fresh.doc.getPageCount()).toBe(1);
    } finally {
      await db.update(orders).set({ uid: order.uid }).where(eq(orders.id, order.id));
    }
    // Without the cached copy, the uid D1 no longer knows would have been a 404.
    await env.FILES.delete(key);
    await db.update(orders).set({ uid: moved }).where(eq(orders.id, order.id));
    try {
      await expectError(download(order.uid), 404, "rest_order_invalid_id");
    } finally {
      await db.update(orders).set({ uid: order.uid }).where(eq(orders.id, order.id));
      await env.FILES.delete(cacheKey(moved));
    }
  });
});

describe("purges", () => {
  it("an event update (renamed) purges its orders' PDFs, and only theirs", async () => {
    const { event, order } = await orderedEvent();
    const other = await orderedEvent();
    expect(pageLines(await downloadCached(order.uid))).toContain(event.event_name);
    await downloadCached(other.order.uid);

    const renamed = unique("Renamed ");
    await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { event_name: renamed } }), 200);
    await waitGone(order.uid);
    await expectStillCached(other.order.uid);

    const lines = pageLines(await downloadCached(order.uid));
    expect(lines).toContain(renamed);
    expect(lines).not.toContain(event.event_name);
  });

  it("an event update of the date (format) shows the new date", async () => {
    const { order } = await orderedEvent({ event_date: "2031-07-04 21:15:00", timezone: "Europe/Amsterdam", event_date_format: "d/m/Y H:i" });
    expect(pageLines(await downloadCached(order.uid))).toContain("04/07/2031 21:15");
    await expectJson(call("PUT", `/admin/events/${order.event_id}`, { body: { event_date_format: "Y-m-d" } }), 200);
    await waitGone(order.uid);
    const lines = pageLines(await downloadCached(order.uid));
    expect(lines).toContain("2031-07-04");
    expect(lines).not.toContain("04/07/2031 21:15");
  });

  it("deleting an event with force purges the PDFs of its orders, which are gone", async () => {
    const { event, order } = await orderedEvent();
    const other = await orderedEvent();
    await downloadCached(order.uid);
    await downloadCached(other.order.uid);

    await expectError(call("DELETE", `/admin/events/${event.id}`), 409, "rest_conflict");
    await expectStillCached(order.uid);
    await expectJson(call("DELETE", `/admin/events/${event.id}?force=true`), 200);
    await waitGone(order.uid);
    await expectStillCached(other.order.uid);
    await expectError(download(order.uid), 404, "rest_order_invalid_id");
  });

  it("deleting an order purges its PDF", async () => {
    const { event, type, order } = await orderedEvent();
    const sibling = await placeOrder(event.id, [type.id], { [type.id]: 1 });
    await downloadCached(order.uid);
    await downloadCached(sibling.uid);

    await expectJson(call("DELETE", `/admin/orders/${order.id}`), 200);
    await waitGone(order.uid);
    await expectError(download(order.uid), 404, "rest_order_invalid_id");
    // Only that order's copy: its sibling at the same event stays cached.
    await expectStillCached(sibling.uid);
  });

  it("a ticket type update (its layout) purges the event's PDFs and the page shows the new layout", async () => {
    const { event, type, order } = await orderedEvent();
    const lines = pageLines(await downloadCached(order.uid));
    expect(lines).toContain("Ada Lovelace");
    expect(lines).toContain(String(order.id));

    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${type.id}`, { body: { layout: "Email" } }), 200);
    await waitGone(order.uid);
    const after = pageLines(await downloadCached(order.uid));
    expect(after).toContain("ada@example.com");
    expect(after).not.toContain("Ada Lovelace");
    expect(after).not.toContain(String(order.id));
  });

  it("a ticket type update (its template) shows the template's page size", async () => {
    const template = await expectJson(
      upload("POST", "/admin/pdf-templates", { file: await makePdf(1, { size: LETTER, text: "Letter" }), fields: { title: unique("Letter ") } }),
      201,
    );
    const { event, type, order } = await orderedEvent();
    const before = await downloadCached(order.uid);
    expect(before.getPage(0).getWidth()).toBeCloseTo(PageSizes.A4[0], 0);

    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${type.id}`, { body: { attachment_id: template.id } }), 200);
    await waitGone(order.uid);
    const after = await downloadCached(order.uid);
    expect(after.getPage(0).getWidth()).toBeCloseTo(LETTER[0], 0);
    expect(after.getPage(0).getHeight()).toBeCloseTo(LETTER[1], 0);
  });

  it("an input field update purges the event's PDFs", async () => {
    const event = await newEvent();
    const company = await createInputField(event.id, { name: "Company", type: "text" });
    const type = await createTicketType(event.id, { name: "Regular", layout: "Company,Name" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 }, { fields: [{ [company.id]: "Analytical Engines Ltd" }] });
    expect(pageLines(await downloadCached(order.uid))).toContain("Analytical Engines Ltd");

    await expectJson(call("PUT", `/admin/events/${event.id}/input-fields/${company.id}`, { body: { name: "Firm" } }), 200);
    await waitGone(order.uid);
    const lines = pageLines(await downloadCached(order.uid));
    expect(lines).toContain(event.event_name);
    expect(lines).toContain("Ada Lovelace");
  });

  it("after renaming a field its layout names, the re-rendered PDF still shows the order's value for it", async () => {
    // The rename is carried into the type's layout ("Company,Name" becomes "Firm,Name"); the order keeps the value
    // it was given for that field (same field id), so the ticket should keep showing it.
    const event = await newEvent();
    const company = await createInputField(event.id, { name: "Company", type: "text" });
    const type = await createTicketType(event.id, { name: "Regular", layout: "Company,Name" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 }, { fields: [{ [company.id]: "Analytical Engines Ltd" }] });
    expect(pageLines(await downloadCached(order.uid))).toContain("Analytical Engines Ltd");

    await expectJson(call("PUT", `/admin/events/${event.id}/input-fields/${company.id}`, { body: { name: "Firm" } }), 200);
    const types = await expectJson(call("GET", `/admin/events/${event.id}/ticket-types`), 200);
    expect(types[0].layout).toBe("Firm,Name");
    await waitGone(order.uid);
    expect(pageLines(await downloadCached(order.uid))).toContain("Analytical Engines Ltd");
  });

  it("an input field delete purges the event's PDFs", async () => {
    const event = await newEvent();
    const note = await createInputField(event.id, { name: "Note", type: "text" });
    const type = await createTicketType(event.id, { name: "Regular" });
    const order = await placeOrder(event.id, [type.id], { [type.id]: 1 });
    await downloadCached(order.uid);

    await expectJson(call("DELETE", `/admin/events/${event.id}/input-fields/${note.id}`), 200);
    await waitGone(order.uid);
    expect(pageLines(await downloadCached(order.uid))).toContain(event.event_name);
  });

  it("replacing a template's file purges the PDFs of every event using it, through a type or the event's ticket settings", async () => {
    const template = await expectJson(
      upload("POST", "/admin/pdf-templates", { file: await makePdf(1, { size: LETTER, text: "v1" }), fields: { title: unique("Shared ") } }),
      201,
    );
    const byType = await orderedEvent({}, { attachment_id: template.id });
    const byEvent = await orderedEvent({ tickets_needed: true, pdf_fields: { ticket: { attachment_id: template.id } } });
    const unrelated = await orderedEvent();
    for (const o of [byType.order, byEvent.order]) {
      const doc = await downloadCached(o.uid);
      expect(doc.getPage(0).getWidth()).toBeCloseTo(LETTER[0], 0);
    }
    await downloadCached(unrelated.order.uid);

    await expectJson(upload("PUT", `/admin/pdf-templates/${template.id}`, { file: await makePdf(1, { size: A5, text: "v2" }) }), 200);
    await waitGone(byType.order.uid);
    await waitGone(byEvent.order.uid);
    await expectStillCached(unrelated.order.uid);
    for (const o of [byType.order, byEvent.order]) {
      const doc = await downloadCached(o.uid);
      expect(doc.getPage(0).getWidth()).toBeCloseTo(A5[0], 0);
      expect(doc.getPage(0).getHeight()).toBeCloseTo(A5[1], 0);
    }
  });

  it("a change to a passe-partout's child event purges the passe-partout order, whose PDF shows the child's tickets", async () => {
    const group = unique("G");
    const child = await newEvent({ event_name: unique("Child "), group_type: 1, event_group: group });
    const pass = await newEvent({ event_name: unique("Pass "), group_type: 3, event_group: group });
    const type = await createTicketType(pass.id, { name: "Weekend pass", price: 99 });
    const order = await placeOrder(pass.id, [type.id], { [type.id]: 1 });
    // decisions.md 15 "Confirmed as built": the passe-partout itself gets no ticket, its child one per unit.
    const before = await downloadCached(order.uid);
    expect(before.getPageCount()).toBe(1);
    const names = (doc: PDFDocument) => doc.getPages().map((_, i) => pageLines(doc, i)[0]);
    expect(names(before)).toEqual([child.event_name]);

    const renamed = unique("Child renamed ");
    await expectJson(call("PUT", `/admin/events/${child.id}`, { body: { event_name: renamed } }), 200);
    await waitGone(order.uid);
    const after = await downloadCached(order.uid);
    expect(names(after)).toEqual([renamed]);
  });
});
