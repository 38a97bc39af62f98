import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emails, orderClaims, orders, tickets } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import type { EventObject } from "../../../src/event-object/event.do";
import { depsFromEnv } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { BASE, call, expectError, expectJson, unique } from "../../helpers/api";
import { wallClockAt } from "../../helpers/wall-clock";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { emailedConfirmLink } from "../../helpers/orders";
import { programStub, receivedBy, stubUrl, waitForRequests } from "../../helpers/stubs";

/**
 * RSVP events (confirmation_emails_needed; ticketing-api.md states table; decisions.md 5.7, 12 and 13 "Flows"): a
 * free order is booked awaiting its customer, who confirms through the emailed link
 * `GET /orders/confirm/<token>` (no key); only then is it final (tickets, `sold`, the confirmation email,
 * `order.created`). Unconfirmed orders are deleted after `confirmation_timeout` minutes (0: never). The token is the
 * order's own, sent only in that email (decisions.md 14): the order `uid`, which API answers carry, confirms nothing.
 */

type Json = Record<string, any>;

interface Rsvp {
  event: Json;
  type: Json;
}

const CONFIRMED_SUBJECT = "You are on the list";

/** An RSVP event with one free ticket type (stock 10) and a 30-minute confirmation timeout, unless told otherwise. */
async function rsvp(event: Json = {}, type: Json = {}): Promise<Rsvp> {
  const created = await createEvent({
    event_name: unique("RSVP "),
    confirmation_emails_needed: true,
    confirmation_timeout: 30,
    email_confirmation: {
      subject: CONFIRMED_SUBJECT,
      body: '<p>Thanks {%NAME%}, see you there.</p><p><a href="%7B%25TICKETS%25%7D">Your tickets</a></p>',
      redirect: "https://shop.example/confirmed",
    },
    ...event,
  });
  const made = await createTicketType(created.id, { name: "Guest", price: 0, stock_control: true, stock: 10, ...type });
  return { event: created, type: made };
}

const post = (r: Rsvp, extra: Json = {}, count = 1) =>
  call("POST", `/events/${r.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email: "ann@example.com", tickets: [{ [r.type.id]: count }], ...extra } });

const book = async (r: Rsvp, extra: Json = {}, count = 1): Promise<Json> => expectJson(post(r, extra, count), 201);

/** A confirmation URL with any key in it (the real one comes from the email: `emailedConfirmLink`). */
const confirmUrl = (key: string) => `${BASE}/orders/confirm/${key}`;

/** What the customer's browser does with the link: a plain GET, no key, no credentials, redirects not followed. */
const click = (url: string, headers: Record<string, string> = {}) => exports.default.fetch(new Request(url, { redirect: "manual", headers }));

const orderRow = (id: number) => db.select().from(orders).where(eq(orders.id, id)).get();
const ticketsOf = (orderId: number) => db.select().from(tickets).where(eq(tickets.orderId, orderId));
const emailsOf = (orderId: number) => db.select().from(emails).where(eq(emails.orderId, orderId)).orderBy(asc(emails.id));
const reservations = async (eventId: number) => (await eventObject(env, eventId).snapshot()).reservations;
const remaining = async (r: Rsvp) => (await eventObject(env, r.event.id).remaining())?.types[r.type.id];
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

async function soldOf(r: Rsvp): Promise<{ event: number; type: number }> {
  const event = await expectJson(call("GET", `/admin/events/${r.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${r.event.id}/ticket-types`), 200);
  return { event: event.sold, type: types.find((t) => t.id === r.type.id)!.sold };
}

/** Polls until the order's reservation in the event object satisfies `done`. */
async function reservationWhen(eventId: number, uid: string, done: (r: Json | undefined) => boolean) {
  for (let i = 0; i < 100; i++) {
    const r = (await reservations(eventId)).find((x) => x.uid === uid);
    if (done(r)) return r;
    await sleep(30);
  }
  return (await reservations(eventId)).find((x) => x.uid === uid);
}

/** A webhook of `topic` posting to the stub `name`, switched on. */
async function hook(name: string, topic: string): Promise<void> {
  await programStub(name);
  const created = await expectJson(call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: "s3cret", topic } }), 201);
  await expectJson(call("PUT", `/admin/webhooks/${created.id}`, { body: { enabled: true } }), 200);
}

describe("booking on an RSVP event", () => {
  it("is booked awaiting confirmation: no tickets, nothing sold, units held, one email carrying the confirm link", async () => {
    const r = await rsvp({
      emails_needed: true,
      email: { subject: "Please confirm your booking", body: '<p>Dear {%NAME%}, please <a href="%7B%25CONFIRM%25%7D">confirm</a>: {%CONFIRM%}</p>' },
    });
    const before = Math.floor(Date.now() / 1000);
    const res = await post(r, {}, 2);
    const order = await expectJson(res, 201);
    const after = Math.floor(Date.now() / 1000);
    expect(res.headers.get("Location")).toBe(`${BASE}/orders/${order.id}/${order.uid}/status`);
    // The answer tells the shop front the booking waits for its customer, and until when (decisions.md 5.1).
    expect(order.confirmation.status).toBe("awaiting");
    expect(order).toMatchObject({ payment_status: "booked", payment: null, payment_id: "", total: 0, num_tickets: 2, group_orders: [order.id] });

    const row = (await orderRow(order.id))!;
    expect(row.createdAt).toBeGreaterThanOrEqual(before);
    expect(row.createdAt).toBeLessThanOrEqual(after);
    // The answer, the object and the sweep count from the same instant, the order's created_at (waitingDeadline):
    // under load a deadline counted from an earlier reading of the clock was a second off.
    expect(order.confirmation.expires_at).toBe(wallClockAt((row.createdAt + 30 * 60) * 1000, "Europe/Amsterdam"));
    expect(row.awaitsConfirmation).toBe(true);
    expect(row.paymentStatus).toBe("booked");
    expect(await ticketsOf(order.id)).toEqual([]);
    expect(await soldOf(r)).toEqual({ event: 0, type: 0 });
    expect(await remaining(r)).toBe(8);
    // Taken until the confirmation timeout, 30 minutes after the booking.
    const taken = await reservationWhen(r.event.id, order.uid, (x) => x?.state === "taken");
    expect(taken).toMatchObject({ state: "taken", deadline: (row.createdAt + 30 * 60) * 1000 });
    const status = await expectJson(call("GET", `/orders/${order.id}/${order.uid}/status`, { key: null, auth: null }), 200);
    expect(status).toStrictEqual({ payment_status: "booked", tickets_ready: false, download_url: "" });

    const mails = await emailsOf(order.id);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe("ann@example.com");
    expect(mails[0]!.subject).toBe("Please confirm your booking");
    const link = await emailedConfirmLink(order.id);
    expect(mails[0]!.body).toContain(`href="${link}"`);
    expect(mails[0]!.body).toContain(`: ${link}`);
    expect(mails[0]!.body).toContain("Dear Ann Smith");
  });

  it("sends the confirm request even without emails_needed, with the default body holding the link", async () => {
    const r = await rsvp();
    const order = await book(r);
    const mails = await emailsOf(order.id);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.body).toContain(await emailedConfirmLink(order.id));
  });

  it("a paid ticket type on an RSVP event is paid as usual (open, with a checkout), not held for confirmation", async () => {
    const r = await rsvp({}, { price: 5 });
    const order = await book(r);
    expect(order.payment_status).toBe("open");
    expect(order.payment.checkout_url).toBe(`${BASE}/pay/test/${order.uid}`);
  });
});

describe("GET /orders/confirm/<token>", () => {
  it("confirms: 302 to the confirmation redirect; booked - confirmed, tickets, sold, the confirmation email, order.created", async () => {
    const name = unique("rsvp-created");
    await hook(name, "order.created");
    const r = await rsvp({ webhooks_needed: true, emails_needed: true, email: { subject: "Confirm please", body: "<p>{%CONFIRM%}</p>" } });
    const order = await book(r, {}, 2);
    await reservationWhen(r.event.id, order.uid, (x) => x?.state === "taken");
    // Not final yet: order.created has not fired.
    await sleep(300);
    expect((await receivedBy(name)).filter((q) => JSON.parse(q.body).id === order.id)).toEqual([]);

    const link = await emailedConfirmLink(order.id);
    const res = await click(link);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("https://shop.example/confirmed");

    const row = (await orderRow(order.id))!;
    expect(row.paymentStatus).toBe("booked - confirmed");
    expect(row.awaitsConfirmation).toBe(false);
    const issued = await ticketsOf(order.id);
    expect(issued).toHaveLength(2);
    expect(await soldOf(r)).toEqual({ event: 2, type: 2 });
    expect(await remaining(r)).toBe(8);
    expect((await expectJson(call("GET", `/admin/orders/${order.id}`), 200)).payment_status).toBe("booked - confirmed");
    const status = await expectJson(call("GET", `/orders/${order.id}/${order.uid}/status`, { key: null, auth: null }), 200);
    expect(status).toStrictEqual({ payment_status: "booked - confirmed", tickets_ready: true, download_url: `${BASE}/tickets/${order.uid}` });
    // The object now holds the units for good.
    expect(await reservationWhen(r.event.id, order.uid, (x) => x?.deadline === null)).toMatchObject({ state: "taken", deadline: null });

    const mails = await emailsOf(order.id);
    expect(mails).toHaveLength(2);
    expect(mails[0]!.subject).toBe("Confirm please");
    expect(mails[1]!.subject).toBe(CONFIRMED_SUBJECT);
    expect(mails[1]!.to).toBe("ann@example.com");
    expect(mails[1]!.body).toContain("Thanks Ann Smith");
    expect(mails[1]!.body).toContain(`${BASE}/tickets/${order.uid}`);
    expect(mails[1]!.body).not.toContain(link);

    const got = await waitForRequests(name, 1);
    const created = got.filter((q) => JSON.parse(q.body).id === order.id);
    expect(created).toHaveLength(1);
    expect(created[0]!.headers["x-evt-webhook-topic"]).toBe("order.created");
    expect(JSON.parse(created[0]!.body)).toMatchObject({ id: order.id, uid: order.uid, payment_status: "booked - confirmed", num_tickets: 2 });
    expect(created[0]!.body, "the order.created payload carries no confirmation token").not.toContain(link.split("/").pop());

    // A second click changes nothing.
    const again = await click(link);
    expect(again.status).toBe(302);
    expect(again.headers.get("Location")).toBe("https://shop.example/confirmed");
    expect((await ticketsOf(order.id)).map((t) => t.id).sort()).toEqual(issued.map((t) => t.id).sort());
    expect(await soldOf(r)).toEqual({ event: 2, type: 2 });
    expect(await emailsOf(order.id)).toHaveLength(2);
    expect((await orderRow(order.id))!.paymentStatus).toBe("booked - confirmed");
    await sleep(500);
    expect((await receivedBy(name)).filter((q) => JSON.parse(q.body).id === order.id)).toHaveLength(1);
  });

  it("needs no key, and checks none sent", async () => {
    const r = await rsvp();
    const a = await book(r);
    expect((await click(await emailedConfirmLink(a.id), { "X-EVT-API-KEY": "wrong" })).status).toBe(302);
    expect((await orderRow(a.id))!.paymentStatus).toBe("booked - confirmed");
  });

  it("redirects to the order's status route when email_confirmation.redirect is empty", async () => {
    const r = await rsvp({ email_confirmation: { subject: CONFIRMED_SUBJECT, body: "", redirect: "" } });
    const order = await book(r);
    const res = await click(await emailedConfirmLink(order.id));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`${BASE}/orders/${order.id}/${order.uid}/status`);
    // The default confirmation body carries the order summary and the download link.
    const mails = await emailsOf(order.id);
    expect(mails.map((m) => m.subject)[1]).toBe(CONFIRMED_SUBJECT);
    expect(mails[1]!.body).toContain(`href="${BASE}/tickets/${order.uid}"`);
    expect(mails[1]!.body).toContain("<table><tr><td>Guest</td><td>1</td><td>0.00 EUR</td></tr></table>");
  });

  it("asks for personalisation in the confirmation email, not before: the booking has no tickets yet", async () => {
    const probe = '<p>T=[{%TICKETS%}]</p><div>P=[{%PERSONALISE%}]</div><div>O=[{%ORDER%}]</div><p><a href="%7B%25CONFIRM%25%7D">c</a></p>';
    const r = await rsvp({ emails_needed: true, email: { subject: "Confirm", body: probe } });
    const field = await createInputField(r.event.id, { name: "Attendee", is_personalised: true });
    await expectJson(call("PUT", `/admin/events/${r.event.id}/ticket-types/${r.type.id}`, { body: { personalise: field.name } }), 200);
    await expectJson(call("PUT", `/admin/events/${r.event.id}`, { body: { email_confirmation: { subject: CONFIRMED_SUBJECT, body: probe, redirect: "" } } }), 200);
    const order = await book(r);
    const summary = "<div>O=[<table><tr><td>Guest</td><td>1</td><td>0.00 EUR</td></tr></table>]</div>";

    const [request] = await emailsOf(order.id);
    expect(request!.body).toContain(`<p>T=[${BASE}/tickets/${order.uid}]</p><div>P=[]</div>${summary}`);

    expect((await click(await emailedConfirmLink(order.id))).status).toBe(302);
    const confirmed = (await emailsOf(order.id))[1]!.body;
    expect(confirmed).toContain(`<p>T=[${BASE}/tickets/${order.uid}]</p>`);
    const block = /<div>P=\[([\s\S]*?)\]<\/div>/.exec(confirmed)?.[1] ?? "";
    expect(block).toMatch(/^<p>[^<]*<a href="[^"]+">[^<]+<\/a>[^<]*<\/p>$/);
    expect(block).toContain(`href="${BASE}/tickets/${order.uid}/personalise"`);
    expect(confirmed).toContain(summary);
  });

  it("ten clicks at once confirm once: one set of tickets, one confirmation email, sold counted once", async () => {
    const r = await rsvp();
    const order = await book(r, {}, 3);
    const link = await emailedConfirmLink(order.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => click(link)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(302));
    expect(await ticketsOf(order.id)).toHaveLength(3);
    expect(await soldOf(r)).toEqual({ event: 3, type: 3 });
    expect((await emailsOf(order.id)).map((m) => m.subject)).toHaveLength(2);
  });

  it("an unknown or malformed token is 404 rest_order_invalid_id", async () => {
    const r = await rsvp();
    const order = await book(r);
    const token = (await emailedConfirmLink(order.id)).split("/").pop()!;
    await expectError(click(confirmUrl("A".repeat(40))), 404, "rest_order_invalid_id");
    // One character changed (to one it is not already, or the "changed" token would be the order's own).
    const changed = `${token.slice(0, 39)}${token.endsWith("x") ? "y" : "x"}`;
    await expectError(click(confirmUrl(changed)), 404, "rest_order_invalid_id");
    await expectError(click(confirmUrl("short")), 404, "rest_order_invalid_id");
    expect((await orderRow(order.id))!.awaitsConfirmation).toBe(true);
  });

  it("dashboard orders on an RSVP event wait too and become dashboard - confirmed", async () => {
    const r = await rsvp({ add_dashboard_orders_needed: true }, { price: 20 });
    const placed = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: r.event.id, name: "Staff Guest", email: "staff@example.com", tickets: [{ [r.type.id]: 2 }] } }),
      201,
    );
    expect(placed.payment_status).toBe("dashboard");
    expect((await orderRow(placed.id))!.awaitsConfirmation).toBe(true);
    expect(await ticketsOf(placed.id)).toEqual([]);
    expect(await soldOf(r)).toEqual({ event: 0, type: 0 });
    const mails = await emailsOf(placed.id);
    expect(mails).toHaveLength(1);
    const link = await emailedConfirmLink(placed.id);
    expect(link).not.toBe(confirmUrl(placed.uid));
    expect(mails[0]!.body).toContain(link);

    expect((await click(link)).status).toBe(302);
    expect((await orderRow(placed.id))!.paymentStatus).toBe("dashboard - confirmed");
    expect(await ticketsOf(placed.id)).toHaveLength(2);
    expect(await soldOf(r)).toEqual({ event: 2, type: 2 });
  });

  it("an unconfirmed booking counts for unique users; confirming keeps it counted", async () => {
    const r = await rsvp({ unique_users_needed: true });
    const order = await book(r);
    const err = await expectError(post(r, { email: "ANN@example.com" }), 400, "order_already_ordered");
    expect(err.message).toBe("You already have a booking/order");
    await click(await emailedConfirmLink(order.id));
    await expectError(post(r), 400, "order_already_ordered");
  });
});

describe("the confirmation token (decisions.md 14)", () => {
  const tokenOf = (link: string) => link.slice(confirmUrl("").length);

  it("is the order's own: the email's link carries 40 random characters that are not the uid, and confirms", async () => {
    const r = await rsvp();
    const order = await book(r);
    const link = await emailedConfirmLink(order.id);
    const token = tokenOf(link);
    expect(link).toBe(confirmUrl(token));
    expect(token).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(token).not.toBe(order.uid);
    expect((await emailsOf(order.id))[0]!.body).not.toContain(confirmUrl(order.uid));
    const other = await book(r, { email: "bob@example.com" });
    expect(tokenOf(await emailedConfirmLink(other.id))).not.toBe(token);

    expect((await click(link)).status).toBe(302);
    expect((await orderRow(order.id))!.paymentStatus).toBe("booked - confirmed");
    expect((await orderRow(other.id))!.awaitsConfirmation).toBe(true);
  });

  it("the uid confirms nothing: 404 like an unknown token, and the order stays unconfirmed", async () => {
    const r = await rsvp();
    const order = await book(r);
    const byUid = await expectError(click(confirmUrl(order.uid)), 404, "rest_order_invalid_id");
    const unknown = await expectError(click(confirmUrl("A".repeat(40))), 404, "rest_order_invalid_id");
    expect(byUid).toEqual(unknown);
    expect((await orderRow(order.id))!.awaitsConfirmation).toBe(true);
    expect(await ticketsOf(order.id)).toEqual([]);
    expect(await soldOf(r)).toEqual({ event: 0, type: 0 });
    // Once confirmed (by the emailed link), the uid still answers 404 rather than the confirmed order's redirect.
    expect((await click(await emailedConfirmLink(order.id))).status).toBe(302);
    await expectError(click(confirmUrl(order.uid)), 404, "rest_order_invalid_id");
  });

  it("appears in no API answer of the order, before or after confirming", async () => {
    const r = await rsvp({ add_dashboard_orders_needed: true });
    const res = await post(r);
    const createdText = await res.clone().text();
    const order = await expectJson(res, 201);
    const desk = await call("POST", "/admin/orders", { body: { event_id: r.event.id, name: "Desk", email: "desk@example.com", tickets: [{ [r.type.id]: 1 }] } });
    const deskText = await desk.clone().text();
    const placed = await expectJson(desk, 201);
    const answers = async (o: Json) => {
      const reads = await Promise.all([
        call("GET", `/orders/${o.id}/${o.uid}/status`, { key: null, auth: null }),
        call("GET", `/admin/orders/${o.id}`),
        call("GET", `/admin/orders?include=${o.id}`),
        call("GET", `/admin/tickets/${o.id}`),
      ]);
      for (const read of reads) expect(read.status).toBe(200);
      const texts = await Promise.all(reads.map((read) => read.text()));
      // The admin answers are about this order (the list is not empty).
      for (const text of texts.slice(1, 3)) expect(text).toContain(o.uid);
      return texts;
    };
    for (const [o, createText] of [
      [order, createdText],
      [placed, deskText],
    ] as const) {
      const token = tokenOf(await emailedConfirmLink(o.id));
      expect(createText).toContain(o.uid);
      expect(createText).not.toContain(token);
      for (const text of await answers(o)) expect(text).not.toContain(token);
      expect((await click(confirmUrl(token))).status).toBe(302);
      for (const text of await answers(o)) expect(text).not.toContain(token);
    }
  });
});

describe("the confirmation timeout", () => {
  /** The booking's 30 minutes are over: in D1 and in the object's copy of the deadline. */
  async function pastTimeout(r: Rsvp, order: Json) {
    await reservationWhen(r.event.id, order.uid, (x) => x?.state === "taken" && x.deadline !== null);
    await db
      .update(orders)
      .set({ createdAt: Math.floor(Date.now() / 1000) - 31 * 60 })
      .where(eq(orders.id, order.id));
    await runInDurableObject(eventObject(env, r.event.id), (_i: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET deadline = ? WHERE uid = ?`, Date.now() - 1_000, order.uid);
    });
  }

  it("the object's alarm deletes an unconfirmed order past its timeout: stock back, nothing sent, nothing fired", async () => {
    const created = unique("rsvp-tc");
    const deleted = unique("rsvp-td");
    await hook(created, "order.created");
    await hook(deleted, "order.deleted");
    const r = await rsvp({ webhooks_needed: true, unique_users_needed: true });
    const order = await book(r, {}, 2);
    const other = await book(r, { email: "bob@example.com" }, 1);
    expect(await remaining(r)).toBe(7);
    await reservationWhen(r.event.id, other.uid, (x) => x?.state === "taken");
    await pastTimeout(r, order);

    expect(await runDurableObjectAlarm(eventObject(env, r.event.id))).toBe(true);
    let row = await orderRow(order.id);
    for (let i = 0; i < 150 && row; i++) {
      await sleep(100);
      row = await orderRow(order.id);
    }
    expect(row, "the unconfirmed order is deleted").toBeUndefined();
    expect(await ticketsOf(order.id)).toEqual([]);
    expect(await db.select().from(orderClaims).where(eq(orderClaims.orderUid, order.uid))).toEqual([]);
    expect(await remaining(r)).toBe(9);
    expect((await reservations(r.event.id)).map((x) => x.uid)).toEqual([other.uid]);
    expect(await soldOf(r)).toEqual({ event: 0, type: 0 });
    expect(await emailsOf(order.id)).toHaveLength(1);
    await sleep(500);
    expect(await receivedBy(created)).toEqual([]);
    expect(await receivedBy(deleted)).toEqual([]);

    // The link is dead, the other booking untouched, and the email may book again.
    await expectError(click(await emailedConfirmLink(order.id)), 404, "rest_order_invalid_id");
    expect((await orderRow(other.id))!.awaitsConfirmation).toBe(true);
    expect((await book(r)).payment_status).toBe("booked");
  });

  it("expireOrder: not yet due keeps the order; past the timeout deletes it and releases its stock", async () => {
    const r = await rsvp();
    const order = await book(r, {}, 4);
    await reservationWhen(r.event.id, order.uid, (x) => x?.state === "taken");
    const createdAt = (await orderRow(order.id))!.createdAt;

    await expireOrder(depsFromEnv(env), order.uid, r.event.id);
    expect((await orderRow(order.id))!.awaitsConfirmation).toBe(true);
    expect(await remaining(r)).toBe(6);
    expect((await reservations(r.event.id)).find((x) => x.uid === order.uid)).toMatchObject({ state: "taken", deadline: (createdAt + 30 * 60) * 1000 });

    await db
      .update(orders)
      .set({ createdAt: createdAt - 31 * 60 })
      .where(eq(orders.id, order.id));
    await expireOrder(depsFromEnv(env), order.uid, r.event.id);
    expect(await orderRow(order.id)).toBeUndefined();
    expect(await remaining(r)).toBe(10);
    expect(await emailsOf(order.id)).toHaveLength(1);
  });

  it("when the object never heard that the booking reached D1, its alarm still deletes the booking at the timeout", async () => {
    // docs/stock.md "Crash points": after the D1 batch, before confirm, the alarm finds the order in D1 and takes the
    // units. An unconfirmed booking's units are taken only until its confirmation timeout (decisions.md 13).
    const r = await rsvp();
    const order = await book(r, {}, 2);
    await reservationWhen(r.event.id, order.uid, (x) => x?.state === "taken");
    await db
      .update(orders)
      .set({ createdAt: Math.floor(Date.now() / 1000) - 31 * 60 })
      .where(eq(orders.id, order.id));
    // As if the confirm after the batch was lost: the reservation is still a hold, and its hold deadline has passed.
    await runInDurableObject(eventObject(env, r.event.id), (_i: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET state = 'held', deadline = ? WHERE uid = ?`, Date.now() - 1_000, order.uid);
    });
    const stub = eventObject(env, r.event.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = (await reservations(r.event.id)).find((x) => x.uid === order.uid);
    expect(after?.state).toBe("taken");
    expect(after?.deadline, "the confirmation timeout is still watched").not.toBeNull();

    // Whatever deadline it kept has passed (the booking is 31 minutes old): the next alarm hands it to the Worker.
    await runInDurableObject(stub, (_i: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET deadline = ? WHERE uid = ? AND deadline IS NOT NULL`, Date.now() - 1_000, order.uid);
    });
    await runDurableObjectAlarm(stub);
    let row = await orderRow(order.id);
    for (let i = 0; i < 100 && row; i++) {
      await sleep(100);
      row = await orderRow(order.id);
    }
    expect(row, "the unconfirmed order is deleted").toBeUndefined();
    expect(await remaining(r)).toBe(10);
  });

  it("a confirmed order is never deleted at the timeout", async () => {
    const r = await rsvp();
    const order = await book(r);
    await pastTimeout(r, order);
    expect((await click(await emailedConfirmLink(order.id))).status).toBe(302);
    await expireOrder(depsFromEnv(env), order.uid, r.event.id);
    expect((await orderRow(order.id))!.paymentStatus).toBe("booked - confirmed");
    expect(await ticketsOf(order.id)).toHaveLength(1);
    expect(await remaining(r)).toBe(9);
  });

  it("with confirmation_timeout 0 an unconfirmed order is never deleted and can still be confirmed", async () => {
    const r = await rsvp({ confirmation_timeout: 0 });
    const order = await book(r);
    const taken = await reservationWhen(r.event.id, order.uid, (x) => x?.state === "taken");
    expect(taken).toMatchObject({ state: "taken", deadline: null });

    await db
      .update(orders)
      .set({ createdAt: Math.floor(Date.now() / 1000) - 365 * 24 * 3600 })
      .where(eq(orders.id, order.id));
    await runDurableObjectAlarm(eventObject(env, r.event.id));
    await expireOrder(depsFromEnv(env), order.uid, r.event.id);
    await sleep(300);
    expect((await orderRow(order.id))!.awaitsConfirmation).toBe(true);
    expect(await remaining(r)).toBe(9);
    expect((await reservations(r.event.id)).find((x) => x.uid === order.uid)).toMatchObject({ state: "taken", deadline: null });

    expect((await click(await emailedConfirmLink(order.id))).status).toBe(302);
    expect((await orderRow(order.id))!.paymentStatus).toBe("booked - confirmed");
    expect(await ticketsOf(order.id)).toHaveLength(1);
  });
});
