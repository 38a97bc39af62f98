import { exports } from "cloudflare:workers";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders } from "../../../src/db/schema";
import { BASE, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { criteria, decide, lines, listCriteriaValidation, statusOf, waitFor, type Json, type Shop } from "../../helpers/bulk";
import { emailedConfirmLink } from "../../helpers/orders";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * Bulk order emails (spec "Bulk order emails"; decisions.md 9, 10): the list call selects final orders (paid,
 * dashboard, booked and the confirmed ones) by the refund list's criteria; the send call writes each found order's
 * new-order email to the outbox again. Storage is shared with every other test file: each test makes its own events
 * and orders and reads the outbox per order.
 */

const NOT_FOUND = "Order not found";
const SUBJECT = "Tickets for {%NAME%}";
const BODY = '<p>Hello {%NAME%}, we write to {%EMAIL%}.</p>{%ORDER%}<p><a href="%7B%25TICKETS%25%7D">Download</a></p><div>P=[{%PERSONALISE%}]</div>';

/** An event with emails, dashboard orders, a "Regular" type at 10 and a free "Guest" type. */
async function shop(event: Json = {}, auth?: Credentials): Promise<Shop> {
  const created = await createEvent(
    { event_name: unique("Resend "), add_dashboard_orders_needed: true, emails_needed: true, email: { subject: SUBJECT, body: BODY }, ...event },
    auth,
  );
  const types = [
    await createTicketType(created.id, { name: "Regular", price: 10, maximum_to_order: 0 }, auth),
    await createTicketType(created.id, { name: "Guest", price: 0, maximum_to_order: 0 }, auth),
  ];
  return { event: created, types };
}

async function customerOrder(s: Shop, counts: number[] = [1, 0], email = `${unique("cust")}@example.com`): Promise<Json> {
  return expectJson(call("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email, tickets: lines(s, counts) } }), 201);
}

async function paidOrder(s: Shop, counts: number[] = [1, 0], email?: string): Promise<Json> {
  const o = await customerOrder(s, counts, email);
  expect((await decide(o.payment.checkout_url, "pay")).status).toBe(303);
  return o;
}

async function dashboardOrder(s: Shop, counts: number[] = [1, 0], email = `${unique("desk")}@example.com`): Promise<Json> {
  return expectJson(call("POST", "/admin/orders", { body: { event_id: s.event.id, name: "Desk Sale", email, tickets: lines(s, counts) } }), 201);
}

async function outboxOf(orderId: number): Promise<Json[]> {
  const rows = await expectJson<Json[]>(call("GET", `/admin/emails?order_id=${orderId}&per_page=100`), 200);
  return rows.sort((a, b) => a.id - b.id);
}

const list = (body: unknown, auth?: Credentials) => call("POST", "/admin/bulk/order-emails/list", { body, auth });
const listIds = async (body: unknown, auth?: Credentials): Promise<number[]> => (await expectJson(list(body, auth), 200)).order_ids;
const send = (body: unknown, auth?: Credentials, headers?: Record<string, string>) => call("POST", "/admin/bulk/order-emails/send", { body, auth, headers });
const sendOk = async (body: unknown, auth?: Credentials): Promise<Json[]> => (await expectJson(send(body, auth), 200)).errors;

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/bulk/order-emails/list", () => {
  it("selects final orders (paid, dashboard, booked) and leaves out open, cancelled and refunded ones; criteria echoed with batch_size", async () => {
    const s = await shop();
    const paid = await paidOrder(s, [2, 0]);
    const open = await customerOrder(s);
    const cancelled = await customerOrder(s);
    expect((await decide(cancelled.payment.checkout_url, "cancel")).status).toBe(303);
    const desk = await dashboardOrder(s, [1, 1]);
    const booked = await customerOrder(s, [0, 2]);
    expect(booked.payment_status).toBe("booked");
    const refunded = await paidOrder(s);
    await expectJson(call("POST", `/admin/orders/${refunded.id}/refund`, { body: {} }), 200);
    await waitFor(
      `order ${refunded.id} refunded`,
      () => statusOf(refunded.id),
      (st) => st === "refunded",
    );

    const body = criteria([s.event.id]);
    const answer = await expectJson(list(body), 200);
    expect(answer).toStrictEqual({
      date_from: body.date_from,
      date_to: body.date_to,
      event_ids: String(s.event.id),
      tickets_minimum: 0,
      tickets_maximum: 1000,
      amount_minimum: 0,
      amount_maximum: 100_000,
      batch_size: 25,
      order_ids: [paid.id, desk.id, booked.id],
    });
    for (const o of [open, cancelled, refunded]) expect(answer.order_ids).not.toContain(o.id);

    // The refund list of the same criteria has only the paid one.
    expect((await expectJson(call("POST", "/admin/bulk/refunds/list", { body }), 200)).order_ids).toEqual([paid.id]);
  });

  it("orders awaiting confirmation are left out until confirmed (booked - confirmed, dashboard - confirmed)", async () => {
    const r = await createEvent({
      event_name: unique("RSVP "),
      add_dashboard_orders_needed: true,
      emails_needed: true,
      email: { subject: "Please confirm, {%NAME%}" },
      confirmation_emails_needed: true,
      confirmation_timeout: 30,
      email_confirmation: { subject: "Confirmed", body: "<p>See you, {%NAME%}</p>", redirect: "https://shop.example/confirmed" },
    });
    const guest = await createTicketType(r.id, { name: "Guest", price: 0, maximum_to_order: 0 });
    const booked = await expectJson(
      call("POST", `/events/${r.id}/orders`, { auth: null, body: { name: "Ann", email: "ann@example.com", tickets: [{ [guest.id]: 1 }] } }),
      201,
    );
    const desk = await expectJson(call("POST", "/admin/orders", { body: { event_id: r.id, name: "Bob", email: "bob@example.com", tickets: [{ [guest.id]: 2 }] } }), 201);
    expect(await listIds(criteria([r.id]))).toEqual([]);

    for (const o of [booked, desk]) {
      const res = await exports.default.fetch(new Request(await emailedConfirmLink(o.id), { redirect: "manual" }));
      expect(res.status).toBe(302);
    }
    expect(await statusOf(booked.id)).toBe("booked - confirmed");
    expect(await statusOf(desk.id)).toBe("dashboard - confirmed");
    expect(await listIds(criteria([r.id]))).toEqual([booked.id, desk.id]);
  });

  it("applies the ticket, amount and date bounds (inclusive), dates in Europe/Amsterdam", async () => {
    const s = await shop();
    const one = await dashboardOrder(s, [1, 0]); // 10.00
    const three = await dashboardOrder(s, [3, 0]); // 30.00
    const free = await dashboardOrder(s, [0, 2]); // 0.00
    const ids = (extra: Json) => listIds(criteria([s.event.id], extra));
    expect(await ids({})).toEqual([one.id, three.id, free.id]);
    expect(await ids({ tickets_minimum: 2, tickets_maximum: 2 })).toEqual([free.id]);
    expect(await ids({ tickets_minimum: 1, tickets_maximum: 1 })).toEqual([one.id]);
    expect(await ids({ amount_minimum: 10, amount_maximum: 30 })).toEqual([one.id, three.id]);
    expect(await ids({ amount_minimum: 0, amount_maximum: 0 })).toEqual([free.id]);
    expect(await ids({ amount_minimum: 10.01, amount_maximum: 29.99 })).toEqual([]);

    // 2023-03-26 00:30:00 UTC is 01:30 in Amsterdam (CET, before the switch to summer time that night).
    await db
      .update(orders)
      .set({ createdAt: Date.UTC(2023, 2, 26, 0, 30, 0) / 1000 })
      .where(inArray(orders.id, [one.id]));
    // 2023-03-26 01:30:00 UTC is 03:30 in Amsterdam (CEST).
    await db
      .update(orders)
      .set({ createdAt: Date.UTC(2023, 2, 26, 1, 30, 0) / 1000 })
      .where(inArray(orders.id, [three.id]));
    const between = (date_from: string, date_to: string) => ids({ date_from, date_to });
    expect(await between("2023-03-26 01:30:00", "2023-03-26 01:30:00")).toEqual([one.id]);
    expect(await between("2023-03-26 03:30:00", "2023-03-26 03:30:00")).toEqual([three.id]);
    expect(await between("2023-03-26 00:00:00", "2023-03-26 23:59:59")).toEqual([one.id, three.id]);
    expect(await between("2023-03-26 00:30:00", "2023-03-26 01:29:59")).toEqual([]);
  });

  it("an organizer: empty event_ids means its own events; a foreign event is a 403", async () => {
    const mine = await shop();
    const theirs = await shop();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const a = await dashboardOrder(mine);
    const b = await dashboardOrder(theirs);
    // A moment of 2004 no other test uses narrows the list to these two orders.
    const moment = Date.UTC(2004, 0, 2) / 1000 + Math.floor(Math.random() * 360 * 86_400);
    await db
      .update(orders)
      .set({ createdAt: moment })
      .where(inArray(orders.id, [a.id, b.id]));
    const at = wallClockAt(moment * 1000);
    const body = criteria("", { date_from: at, date_to: at });
    expect(await listIds(body)).toEqual([a.id, b.id]);
    expect(await listIds(body, organizer.credentials)).toEqual([a.id]);
    await expectError(list(criteria([theirs.event.id]), organizer.credentials), 403, "rest_forbidden");
    await expectError(list(criteria(`${mine.event.id},${theirs.event.id}`), organizer.credentials), 403, "rest_forbidden");
  });

  listCriteriaValidation((body) => list(body));
});

// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/bulk/order-emails/send", () => {
  it("writes each found order's new-order email to the outbox again, filled in as the first; unknown ids are reported", async () => {
    const s = await shop();
    const paid = await paidOrder(s, [2, 0], "Paid.Person@example.com");
    const desk = await dashboardOrder(s, [1, 1], "desk.person@example.com");
    const firstPaid = await outboxOf(paid.id);
    const firstDesk = await outboxOf(desk.id);
    expect(firstPaid).toHaveLength(1);
    expect(firstDesk).toHaveLength(1);

    const unknown = 2_000_000_000;
    const errors = await sendOk({ order_ids: [unknown, paid.id, desk.id] });
    expect(errors).toStrictEqual([{ order_id: unknown, error: NOT_FOUND }]);

    for (const [o, first] of [
      [paid, firstPaid[0]!],
      [desk, firstDesk[0]!],
    ] as const) {
      const rows = await outboxOf(o.id);
      expect(rows, `outbox of order ${o.id}`).toHaveLength(2);
      const again = rows[1]!;
      expect(again.id).toBeGreaterThan(first.id);
      expect(again).toMatchObject({
        to: first.to,
        bcc: first.bcc,
        from_name: first.from_name,
        from_email: first.from_email,
        subject: first.subject,
        event_id: s.event.id,
        order_id: o.id,
      });
      expect(again.body).toBe(first.body);
      expect(["queued", "sent"]).toContain(again.status);
    }
    const again = (await outboxOf(paid.id))[1]!;
    expect(again.to).toBe("Paid.Person@example.com");
    expect(again.subject).toBe("Tickets for Ann Smith");
    expect(again.body).toContain("<p>Hello Ann Smith, we write to Paid.Person@example.com.</p>");
    expect(again.body).toContain(`href="${BASE}/tickets/${paid.uid}"`);
    expect(again.body).toContain("<table><tr><td>Regular</td><td>2</td><td>20.00 EUR</td></tr></table>");
    expect(again.body).not.toMatch(/\{%[A-Z-]+%\}/);
    // The outbox provider marks it sent once the queue consumer ran.
    await waitFor(
      "the resent email to be sent",
      async () => (await outboxOf(paid.id))[1]!.status,
      (st) => st === "sent",
    );
  });

  it("offers the personalisation link again only while a ticket of the order is still to be personalised", async () => {
    const s = await shop();
    await createInputField(s.event.id, { name: "Attendee", is_personalised: true });
    await expectJson(call("PUT", `/admin/events/${s.event.id}/ticket-types/${s.types[0]!.id}`, { body: { personalise: "Attendee" } }), 200);
    const o = await dashboardOrder(s, [1, 1]);
    const link = `href="${BASE}/tickets/${o.uid}/personalise"`;
    expect((await outboxOf(o.id))[0]!.body).toContain(link);

    expect(await sendOk({ order_ids: [o.id] })).toEqual([]);
    expect((await outboxOf(o.id))[1]!.body).toContain(link);

    const pub = { key: null, auth: null } as const;
    const needs = await expectJson(call("GET", `/tickets/${o.uid}/personalisation`, pub), 200);
    const named = needs.tickets.find((t: Json) => t.fields.length > 0);
    const answer = { ticket_id: named.ticket_id, fields: { [named.fields[0].id]: "Ann Smith" } };
    await expectJson(call("PUT", `/tickets/${o.uid}/personalisation`, { ...pub, body: { tickets: [answer] } }), 200);
    expect(await sendOk({ order_ids: [o.id] })).toEqual([]);
    const third = (await outboxOf(o.id))[2]!.body as string;
    expect(third).toContain("<div>P=[]</div>");
    expect(third).toContain(`href="${BASE}/tickets/${o.uid}"`);
  });

  it("takes at most batch_size (25) ids: 26 is a 400 and nothing is written; 25 are checked", async () => {
    const s = await shop();
    const o = await dashboardOrder(s);
    const unknown = Array.from({ length: 25 }, (_, i) => 2_000_000_200 + i);
    const err = await expectError(send({ order_ids: [o.id, ...unknown] }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain("order_ids");
    expect(await outboxOf(o.id)).toHaveLength(1);
    const errors = await sendOk({ order_ids: [o.id, ...unknown.slice(0, 24)] });
    expect(errors).toStrictEqual(unknown.slice(0, 24).map((id) => ({ order_id: id, error: NOT_FOUND })));
    expect(await outboxOf(o.id)).toHaveLength(2);
  });

  it.each([
    ["order_ids", {}, "rest_missing_callback_param"],
    ["order_ids", { order_ids: [] }, "rest_invalid_param"],
    ["order_ids", { order_ids: "1" }, "rest_invalid_param"],
    ["order_ids", { order_ids: [-1] }, "rest_invalid_param"],
    ["subject", { order_ids: [1], subject: "x" }, "rest_invalid_param"],
  ])("%s (%j): 400 %s", async (field, body, code) => {
    const err = await expectError(send(body), 400, code);
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });

  it("an organizer: another event's order is 'Order not found' and gets no email; its own does", async () => {
    const mine = await shop();
    const theirs = await shop();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const own = await dashboardOrder(mine);
    const foreign = await dashboardOrder(theirs);
    const errors = await sendOk({ order_ids: [own.id, foreign.id] }, organizer.credentials);
    expect(errors).toStrictEqual([{ order_id: foreign.id, error: NOT_FOUND }]);
    expect(await outboxOf(own.id)).toHaveLength(2);
    expect(await outboxOf(foreign.id)).toHaveLength(1);
  });

  it("Idempotency-Key: the same key and body replays the answer and writes nothing more; another body is a 409", async () => {
    const s = await shop();
    const o = await dashboardOrder(s);
    const key = unique("resend-key-");
    const body = { order_ids: [o.id, 2_000_000_000] };
    const first = await expectJson(send(body, undefined, { "Idempotency-Key": key }), 200);
    expect(first).toStrictEqual({ errors: [{ order_id: 2_000_000_000, error: NOT_FOUND }] });
    expect(await outboxOf(o.id)).toHaveLength(2);

    const replay = await send(body, undefined, { "Idempotency-Key": key });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await expectJson(replay, 200)).toStrictEqual(first);
    expect(await outboxOf(o.id)).toHaveLength(2);

    await expectError(send({ order_ids: [o.id] }, undefined, { "Idempotency-Key": key }), 409, "idempotency_key_reused");
    expect(await outboxOf(o.id)).toHaveLength(2);
    // Without a key it runs again.
    expect(await sendOk(body)).toHaveLength(1);
    expect(await outboxOf(o.id)).toHaveLength(3);
  });
});
