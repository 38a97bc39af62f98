import { PageSizes, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { call, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createTicketType } from "../../helpers/catalogue";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * `GET /invoices/<uid>` (decisions.md 7 and 13): a one-page PDF proof of purchase for events with `invoice_needed`,
 * with lines per ticket type, the discount, totals and the VAT per rate in the configured currency.
 */

async function seller(body: Record<string, unknown> = {}) {
  const event = await createEvent({ event_name: unique("Invoice "), add_dashboard_orders_needed: true, invoice_needed: true, ...body });
  const regular = await createTicketType(event.id, { name: "Regular", price: "12.10", vat: 21 });
  const child = await createTicketType(event.id, { name: "Child", price: "10.90", vat: 9 });
  return { event, regular, child };
}

async function placeOrder(eventId: number, counts: [string, number][], extra: Record<string, unknown> = {}): Promise<any> {
  const body = { event_id: eventId, name: "Dmitri Ivanov", email: "dmitri@example.com", tickets: counts.map(([id, n]) => ({ [id]: n })), ...extra };
  return expectJson(call("POST", "/admin/orders", { body }), 201);
}

const invoice = (uid: string) => call("GET", `/invoices/${uid}`, { key: null, auth: null });

async function invoiceLines(uid: string, orderId: number): Promise<string[]> {
  const res = await invoice(uid);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/pdf");
  expect(res.headers.get("Content-Disposition")).toContain(`filename="invoice-${orderId}.pdf"`);
  const doc = await PDFDocument.load(bytes);
  expect(doc.getPageCount()).toBe(1);
  const [w, h] = PageSizes.A4;
  expect(doc.getPage(0).getWidth()).toBeCloseTo(w, 0);
  expect(doc.getPage(0).getHeight()).toBeCloseTo(h, 0);
  return readPage(doc.getPage(0)).lines.map((l) => l.text);
}

describe("GET /invoices/<uid>", () => {
  it("shows the order, a line per ticket type, the totals and the VAT per rate, without credentials", async () => {
    const { event, regular, child } = await seller({ event_date: "2031-05-01 20:00:00", event_date_format: "d/m/Y H:i" });
    const order = await placeOrder(event.id, [
      [regular.id, 2],
      [child.id, 1],
    ]);
    const text = (await invoiceLines(order.uid, order.id)).join("\n");
    expect(text).toContain("Invoice");
    expect(text).toContain(event.event_name);
    expect(text).toContain("01/05/2031 20:00");
    expect(text).toContain(String(order.id));
    expect(text).toContain("Dmitri Ivanov");
    expect(text).toContain("dmitri@example.com");
    // Regular: 2 x 12.10 = 24.20 at 21% (VAT 4.20); Child: 10.90 at 9% (VAT 0.90).
    expect(text).toContain("Regular");
    expect(text).toContain("12.10 EUR");
    expect(text).toContain("24.20 EUR");
    expect(text).toContain("Child");
    expect(text).toContain("10.90 EUR");
    expect(text).toContain("Subtotal");
    expect(text).toContain("35.10 EUR");
    expect(text).toContain("VAT 21%");
    expect(text).toContain("4.20 EUR");
    expect(text).toContain("Excluding VAT 21%");
    expect(text).toContain("20.00 EUR");
    expect(text).toContain("VAT 9%");
    expect(text).toContain("0.90 EUR");
    expect(text).not.toContain("Discount");
  });

  it("spreads a discount over the lines before computing the VAT per rate", async () => {
    const { event, regular, child } = await seller();
    // List 24.20 + 10.90 = 35.10, charged 30.00: discount 5.10 spread 3.52 / 1.58 (24.20 x 5.10 / 35.10 = 3.516..).
    const order = await placeOrder(
      event.id,
      [
        [regular.id, 2],
        [child.id, 1],
      ],
      { amount: "30" },
    );
    expect(order).toMatchObject({ total: 30, discount: 5.1 });
    const text = (await invoiceLines(order.uid, order.id)).join("\n");
    expect(text).toContain("Discount");
    expect(text).toContain("-5.10 EUR");
    expect(text).toContain("30.00 EUR");
    // Regular charged 24.20 - 3.52 = 20.68: VAT round(20.68 x 21 / 121) = 3.59. Child 10.90 - 1.58 = 9.32: 0.77.
    expect(text).toContain("3.59 EUR");
    expect(text).toContain("0.77 EUR");
    expect(text).toContain("17.09 EUR"); // 20.68 - 3.59
    expect(text).toContain("8.55 EUR"); // 9.32 - 0.77
  });

  it("is 404 rest_invoice_not_available for an event without invoices", async () => {
    const { event, regular, child } = await seller({ invoice_needed: false });
    const order = await placeOrder(event.id, [
      [regular.id, 1],
      [child.id, 0],
    ]);
    await expectError(invoice(order.uid), 404, "rest_invoice_not_available");
  });

  it("is 404 rest_invoice_not_available for an order without tickets", async () => {
    const { event, regular, child } = await seller();
    const order = await placeOrder(event.id, [
      [regular.id, 1],
      [child.id, 0],
    ]);
    await expectJson(call("DELETE", `/admin/tickets/${order.id}`), 200);
    await expectError(invoice(order.uid), 404, "rest_invoice_not_available");
  });

  it("an unknown or malformed uid is a 404 and needs no key to say so", async () => {
    const res = await invoice("A".repeat(40));
    expect(res.status).toBe(404);
    const bad = await invoice("not-a-uid");
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
  });
});
