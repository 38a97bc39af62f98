import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { emails, logs, orders, tickets, webhooks } from "../../../src/db/schema";
import { eventObject } from "../../../src/platform/event-object.client";
import type { EventObject } from "../../../src/event-object/event.do";
import { ApiError } from "../../../src/domain/errors";
import { depsFromEnv, type Deps } from "../../../src/platform/deps";
import { expireOrder } from "../../../src/features/payments/payments.service";
import { completeGenuine } from "../../helpers/payments";
import { call, expectJson, ORIGIN, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { programStub, stubUrl, waitForRequests } from "../../helpers/stubs";
import { ledgerConfig } from "../../helpers/event-ledgers";

/**
 * Payments (decisions.md 5.3, 12 and 13 "Orders"): the one completion path `completePayment` (paid, cancelled,
 * failed; idempotent), expiry at the payment deadline (the event object's alarm hands `order.expire` to the queue,
 * whose consumer calls `expireOrder`), and late payments with and without stock left. Orders are placed through
 * the customer route; storage is shared by the tests of this file, so each makes its own events. Notices here are
 * genuine (`completeGenuine`: the stored checkout, total and currency); stripe.test.ts holds the matching itself.
 */

type Json = Record<string, any>;
type OrderRow = typeof orders.$inferSelect;

/** Deps as a request to the service would have them (links and webhook sources need an origin). */
const deps = (): Deps => depsFromEnv(env, undefined, ORIGIN);
const obj = (eventId: number) => eventObject(env, eventId);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowSeconds = () => Math.floor(Date.now() / 1000);

afterEach(async () => {
  await db.update(webhooks).set({ enabled: false });
});

interface Shop {
  event: Json;
  type: Json;
}

/** An event with one ticket type ("Limited" at 10.00 with the given stock, stock control on unless stock is null). */
async function shop(stock: number | null = 10, event: Json = {}, type: Json = {}): Promise<Shop> {
  const e = await createEvent({ event_name: unique("Pay "), ...event });
  const t = await createTicketType(e.id, {
    name: "Limited",
    price: 10,
    maximum_to_order: 0,
    ...(stock === null ? {} : { stock_control: true, stock }),
    ...type,
  });
  return { event: e, type: t };
}

async function order(s: Shop, count = 1, email = "ann@example.com"): Promise<Json> {
  return expectJson(call("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Ann Smith", email, tickets: [{ [s.type.id]: count }] } }), 201);
}

async function row(id: number): Promise<OrderRow> {
  const r = await db.select().from(orders).where(eq(orders.id, id)).get();
  expect(r, `order ${id} in D1`).toBeDefined();
  return r!;
}

const ticketIds = async (orderId: number) => (await db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orderId, orderId))).map((t) => t.id).sort();

async function sold(s: Shop): Promise<{ event: number; type: number }> {
  const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${s.event.id}/ticket-types`), 200);
  return { event: event.sold, type: types.find((t) => t.id === s.type.id)!.sold };
}

const left = async (s: Shop) => (await obj(s.event.id).remaining())!.types[s.type.id];

/** The object's reservations once every confirm sent after an answer has arrived (none still held). */
async function settled(eventId: number) {
  for (let i = 0; i < 100; i++) {
    const rs = (await obj(eventId).snapshot()).reservations;
    if (rs.every((r) => r.state === "taken")) return rs;
    await sleep(30);
  }
  return (await obj(eventId).snapshot()).reservations;
}

/** Polls until `check` holds for the object's reservation of `uid` (confirms and releases go out after an answer). */
async function reservationWhen(eventId: number, uid: string, check: (r: any) => boolean) {
  let found: any;
  for (let i = 0; i < 100; i++) {
    found = (await obj(eventId).snapshot()).reservations.find((r) => r.uid === uid);
    if (check(found)) return found;
    await sleep(30);
  }
  return found;
}

async function statusWhen(id: number, wanted: string, timeoutMs = 15_000): Promise<OrderRow> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await row(id);
    if (r.paymentStatus === wanted || Date.now() > until) return r;
    await sleep(100);
  }
}

/** The payment deadline has passed in D1 (the object's copy is moved separately where a test needs it). */
async function pastDeadline(o: Json): Promise<void> {
  await db
    .update(orders)
    .set({ expiresAt: nowSeconds() - 60 })
    .where(eq(orders.id, o.id));
}

async function expired(s: Shop, o: Json): Promise<void> {
  await settled(s.event.id);
  await pastDeadline(o);
  await expireOrder(deps(), o.uid, s.event.id);
  expect((await row(o.id)).paymentStatus).toBe("expired");
}

const paid = (o: Json) => ({ status: "paid" as const, paymentId: o.payment_id as string });

describe("completePayment: paid", () => {
  it("makes an open order paid once: tickets, sold, the object takes the units for good; a second notification changes nothing", async () => {
    const s = await shop(10);
    const o = await order(s, 3);
    expect(await left(s)).toBe(7);
    await settled(s.event.id);

    const after = await completeGenuine(deps(), o.uid, paid(o));
    expect(after.map((r) => [r.id, r.paymentStatus, r.expiresAt])).toEqual([[o.id, "paid", null]]);
    const first = await ticketIds(o.id);
    expect(first).toHaveLength(3);
    expect(await sold(s)).toEqual({ event: 3, type: 3 });
    expect(await left(s)).toBe(7);
    const take = await reservationWhen(s.event.id, o.uid, (r) => r?.deadline === null);
    expect(take).toMatchObject({ state: "taken", deadline: null, typeUnits: { [s.type.id]: 3 } });
    const objectTickets = (await obj(s.event.id).snapshot()).tickets
      .filter((t) => t.uid === o.uid)
      .map((t) => t.id)
      .sort();
    expect(objectTickets).toEqual(first);

    const again = await completeGenuine(deps(), o.uid, paid(o));
    expect(again.map((r) => r.paymentStatus)).toEqual(["paid"]);
    expect(await ticketIds(o.id)).toEqual(first);
    expect(await sold(s)).toEqual({ event: 3, type: 3 });
    expect(await left(s)).toBe(7);
  });

  it("two notifications at once finalise once", async () => {
    const s = await shop(10);
    const o = await order(s, 2);
    await settled(s.event.id);
    await Promise.all([completeGenuine(deps(), o.uid, paid(o)), completeGenuine(deps(), o.uid, paid(o)), completeGenuine(deps(), o.uid, paid(o))]);
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toHaveLength(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(8);
  });

  it("writes the new-order email with the payment (emails_needed), once", async () => {
    const s = await shop(10, { emails_needed: true, email: { subject: "Your tickets for {%EVENT-NAME%}", body: "Thanks" } });
    const o = await order(s);
    expect(await db.select().from(emails).where(eq(emails.orderId, o.id))).toEqual([]);
    await completeGenuine(deps(), o.uid, paid(o));
    await completeGenuine(deps(), o.uid, paid(o));
    const mails = await db.select().from(emails).where(eq(emails.orderId, o.id));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: "ann@example.com", eventId: s.event.id });
  });

  it("does not write the email for an event without emails_needed", async () => {
    const s = await shop(10);
    const o = await order(s);
    await completeGenuine(deps(), o.uid, paid(o));
    expect(await db.select().from(emails).where(eq(emails.orderId, o.id))).toEqual([]);
  });

  it("fires order.created at payment, not when the open order is placed", async () => {
    const name = unique("pay-created-");
    await programStub(name);
    const hook = await expectJson(call("POST", "/admin/webhooks", { body: { name, url: stubUrl(`/${name}/hook`), secret: "s3cret", topic: "order.created" } }), 201);
    await expectJson(call("PUT", `/admin/webhooks/${hook.id}`, { body: { enabled: true } }), 200);
    const s = await shop(10, { webhooks_needed: true });
    const o = await order(s, 2);
    // Give a wrongly fired creation-time delivery the time to arrive.
    await sleep(1500);
    await completeGenuine(deps(), o.uid, paid(o));
    const got = await waitForRequests(name, 1);
    await sleep(1500);
    const all = await waitForRequests(name, 1);
    expect(all).toHaveLength(1);
    expect(got).toHaveLength(1);
    const payload = JSON.parse(all[0]!.body);
    expect(payload).toMatchObject({ id: o.id, uid: o.uid, payment_status: "paid", num_tickets: 2, event_id: s.event.id });
    // A second notification fires nothing more.
    await completeGenuine(deps(), o.uid, paid(o));
    await sleep(1500);
    expect(await waitForRequests(name, 2, 200)).toHaveLength(1);
  }, 30_000);

  it("pays every order of a group paid together", async () => {
    const g = unique("G");
    const a = await shop(5, { group_type: 2, event_group: g }, { name: "Day" });
    const b = await shop(5, { group_type: 2, event_group: g }, { name: "Day" });
    const placed = await expectJson(
      call("POST", `/events/${a.event.id}/orders`, {
        auth: null,
        body: { name: "Ann", email: "ann@example.com", tickets: [{ [a.type.id]: 2 }], event_ids: [a.event.id, b.event.id] },
      }),
      201,
    );
    const uid = placed.uid as string;
    const result = await completeGenuine(deps(), uid, paid(placed));
    expect(result.map((r) => [r.id, r.paymentStatus])).toEqual(placed.group_orders.map((id: number) => [id, "paid"]));
    for (const id of placed.group_orders) expect(await ticketIds(id)).toHaveLength(2);
    expect(await sold(a)).toEqual({ event: 2, type: 2 });
    expect(await sold(b)).toEqual({ event: 2, type: 2 });
  });

  it("an unknown uid is a 404", async () => {
    await expect(completeGenuine(deps(), "Z".repeat(40), { status: "canceled" })).rejects.toSatisfy(
      (err: unknown) => err instanceof ApiError && err.status === 404 && err.code === "rest_order_invalid_id",
    );
  });
});

describe("completePayment: cancelled and failed", () => {
  it("cancel: canceled, units back, nothing sold, no tickets; cancelling again changes nothing", async () => {
    const s = await shop(4);
    const o = await order(s, 3);
    await settled(s.event.id);
    expect(await left(s)).toBe(1);
    const after = await completeGenuine(deps(), o.uid, { status: "canceled" });
    expect(after.map((r) => r.paymentStatus)).toEqual(["canceled"]);
    expect((await row(o.id)).expiresAt).toBeNull();
    expect(await left(s)).toBe(4);
    expect((await obj(s.event.id).snapshot()).reservations.filter((r) => r.uid === o.uid)).toEqual([]);
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await sold(s)).toEqual({ event: 0, type: 0 });
    await completeGenuine(deps(), o.uid, { status: "canceled" });
    expect(await left(s)).toBe(4);
    // The units can be bought again.
    expect((await order(s, 4)).num_tickets).toBe(4);
  });

  it("failed: failed, units back, and the provider's message in the log", async () => {
    const s = await shop(4);
    const o = await order(s, 2);
    await settled(s.event.id);
    await completeGenuine(deps(), o.uid, { status: "failed", message: "Card declined (insufficient funds)" });
    const r = await row(o.id);
    expect(r.paymentStatus).toBe("failed");
    expect(await left(s)).toBe(4);
    expect(await ticketIds(o.id)).toEqual([]);
    const entries = await db.select().from(logs).where(eq(logs.orderId, o.id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toContain("Card declined (insufficient funds)");
  });

  it("a repeated failure notice (a provider retrying its webhook) changes nothing: no second log entry, no units back twice", async () => {
    const s = await shop(4);
    const o = await order(s, 2);
    await settled(s.event.id);
    const notice = { status: "failed" as const, message: "Card declined (insufficient funds)" };
    await completeGenuine(deps(), o.uid, notice);
    const other = await order(s, 3, "bob@example.com");
    await completeGenuine(deps(), o.uid, notice);
    expect((await row(o.id)).paymentStatus).toBe("failed");
    expect(await left(s)).toBe(1);
    expect((await row(other.id)).paymentStatus).toBe("open");
    expect(await db.select().from(logs).where(eq(logs.orderId, o.id))).toHaveLength(1);
  });

  it("cancelling or failing a paid order changes nothing", async () => {
    const s = await shop(4);
    const o = await order(s, 2);
    await completeGenuine(deps(), o.uid, paid(o));
    const issued = await ticketIds(o.id);
    await completeGenuine(deps(), o.uid, { status: "canceled" });
    await completeGenuine(deps(), o.uid, { status: "failed", message: "late failure" });
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toEqual(issued);
    expect(await left(s)).toBe(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await db.select().from(logs).where(eq(logs.orderId, o.id))).toEqual([]);
  });
});

describe("expiry at the payment deadline", () => {
  /** Moves the object's copy of the order's deadline into the past, as if the payment time had gone by. */
  async function objectDeadlinePassed(eventId: number, uid: string): Promise<void> {
    await runInDurableObject(obj(eventId), (_i: EventObject, state) => {
      state.storage.sql.exec(`UPDATE reservations SET deadline = ? WHERE uid = ?`, Date.now() - 1_000, uid);
    });
  }

  it("the object's alarm hands order.expire to the queue; the consumer expires the order and the units come back", async () => {
    const s = await shop(3, { event_name: unique("Expiry ") });
    const o = await order(s, 2);
    const [take] = await settled(s.event.id);
    expect(take).toMatchObject({ uid: o.uid, state: "taken", deadline: (await row(o.id)).expiresAt! * 1000 });
    expect(await left(s)).toBe(1);

    await pastDeadline(o);
    await objectDeadlinePassed(s.event.id, o.uid);
    expect(await runDurableObjectAlarm(obj(s.event.id))).toBe(true);

    const r = await statusWhen(o.id, "expired");
    expect(r.paymentStatus).toBe("expired");
    expect(r.expiresAt).toBeNull();
    expect(await reservationWhen(s.event.id, o.uid, (x) => x === undefined)).toBeUndefined();
    expect(await left(s)).toBe(3);
    expect(await ticketIds(o.id)).toEqual([]);
    expect(await sold(s)).toEqual({ event: 0, type: 0 });
    const st = await expectJson(call("GET", `/orders/${o.id}/${o.uid}/status`, { key: null, auth: null }), 200);
    expect(st).toStrictEqual({ payment_status: "expired", tickets_ready: false, download_url: "" });
  });

  it("an object deadline that passed while D1 says the order is not yet due keeps the order open and its units taken", async () => {
    const s = await shop(3);
    const o = await order(s, 1);
    await settled(s.event.id);
    const dueAt = (await row(o.id)).expiresAt!;
    await objectDeadlinePassed(s.event.id, o.uid);
    expect(await runDurableObjectAlarm(obj(s.event.id))).toBe(true);
    // The consumer finds the order not due and puts the object's deadline back to the order's.
    const back = await reservationWhen(s.event.id, o.uid, (r) => r?.deadline === dueAt * 1000);
    expect(back).toMatchObject({ state: "taken", deadline: dueAt * 1000 });
    expect((await row(o.id)).paymentStatus).toBe("open");
    expect(await left(s)).toBe(2);
  });

  it("more open orders past their deadline at once than a Queue takes in one sendBatch (100): the alarm hands every one over", async () => {
    const eventId = 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
    const stub = obj(eventId);
    // Holds of orders D1 never had: the consumer finds no order for each and gives its units back to this object.
    const uids = Array.from({ length: 101 }, (_, i) => `${unique("expiry").replace(/[^A-Za-z0-9]/g, "")}${i}`.padEnd(40, "x").slice(0, 40));
    await runInDurableObject(stub, async (instance: EventObject, state) => {
      instance.applyConfig(ledgerConfig({ eventId, eventName: "Expiry at scale" }));
      for (const uid of uids) {
        state.storage.sql.exec(`INSERT INTO reservations (uid, type_units, event_units, state, deadline) VALUES (?, '{}', 0, 'taken', ?)`, uid, Date.now() - 1_000);
      }
      await state.storage.setAlarm(Date.now());
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    let left = uids.length;
    for (let i = 0; i < 100 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = (await stub.snapshot()).reservations.length;
    }
    expect(left).toBe(0);
  });

  it("expireOrder: not yet due changes nothing; due expires once; a final order is left alone", async () => {
    const s = await shop(5);
    const o = await order(s, 2);
    await settled(s.event.id);
    await expireOrder(deps(), o.uid, s.event.id);
    expect((await row(o.id)).paymentStatus).toBe("open");
    expect(await left(s)).toBe(3);

    await pastDeadline(o);
    await expireOrder(deps(), o.uid, s.event.id);
    expect((await row(o.id)).paymentStatus).toBe("expired");
    expect(await left(s)).toBe(5);
    await expireOrder(deps(), o.uid, s.event.id);
    expect((await row(o.id)).paymentStatus).toBe("expired");
    expect(await left(s)).toBe(5);

    const p = await order(s, 1);
    await completeGenuine(deps(), p.uid, paid(p));
    await pastDeadline(p);
    await expireOrder(deps(), p.uid, s.event.id);
    expect((await row(p.id)).paymentStatus).toBe("paid");
    expect(await left(s)).toBe(4);
  });

  it("after expiry the checkout page shows no buttons, and cancelling does nothing", async () => {
    const s = await shop(5);
    const o = await order(s, 1);
    await expired(s, o);
    await completeGenuine(deps(), o.uid, { status: "canceled" });
    expect((await row(o.id)).paymentStatus).toBe("expired");
    const html = await (await call("GET", `/pay/test/${o.uid}`, { key: null, auth: null })).text();
    expect(html).toContain("expired");
    expect(html).not.toContain("<form");
  });
});

describe("late payment (paid after the order expired)", () => {
  it("with stock left: the units are taken again and the order is paid with tickets", async () => {
    const s = await shop(2);
    const o = await order(s, 2);
    await expired(s, o);
    expect(await left(s)).toBe(2);

    const after = await completeGenuine(deps(), o.uid, paid(o));
    expect(after.map((r) => r.paymentStatus)).toEqual(["paid"]);
    expect(await ticketIds(o.id)).toHaveLength(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(0);
    const take = await reservationWhen(s.event.id, o.uid, (r) => r?.state === "taken" && r.deadline === null);
    expect(take).toMatchObject({ state: "taken", deadline: null, typeUnits: { [s.type.id]: 2 } });
    expect(
      await db
        .select()
        .from(logs)
        .where(and(eq(logs.orderId, o.id), eq(logs.logType, "Payment"))),
    ).toEqual([]);
    // Nobody can buy the units now.
    const refused = await call("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Bob", email: "bob@example.com", tickets: [{ [s.type.id]: 1 }] } });
    expect(refused.status).toBe(409);
  });

  it("without stock left: refunded in full, logged, no tickets, and the other customer's units stay theirs", async () => {
    const s = await shop(2);
    const late = await order(s, 2);
    await expired(s, late);
    const other = await order(s, 2, "bob@example.com");
    await completeGenuine(deps(), other.uid, paid(other));

    const after = await completeGenuine(deps(), late.uid, paid(late));
    expect(after.map((r) => r.paymentStatus)).toEqual(["refunded"]);
    expect(await ticketIds(late.id)).toEqual([]);
    const entries = await db.select().from(logs).where(eq(logs.orderId, late.id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, logType: "Payment" });
    expect(entries[0]!.description).toContain("refunded");
    expect(entries[0]!.description).toContain("20.00 EUR");
    // Never oversold: only the other customer's 2 units are sold and taken.
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    expect(await left(s)).toBe(0);
    const rs = (await obj(s.event.id).snapshot()).reservations;
    expect(rs.map((r) => r.uid)).toEqual([other.uid]);
    // Paying again changes nothing more.
    await completeGenuine(deps(), late.uid, paid(late));
    expect((await row(late.id)).paymentStatus).toBe("refunded");
    expect(await db.select().from(logs).where(eq(logs.orderId, late.id))).toHaveLength(1);
  });

  it("without stock left because part of it was sold: still refunded (a late payment takes all its units or none)", async () => {
    const s = await shop(3);
    const late = await order(s, 2);
    await expired(s, late);
    const other = await order(s, 2, "bob@example.com");
    await completeGenuine(deps(), other.uid, paid(other));
    await completeGenuine(deps(), late.uid, paid(late));
    expect((await row(late.id)).paymentStatus).toBe("refunded");
    expect(await left(s)).toBe(1);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
  });

  it("two late-payment notifications at once: paid once, and the units stay taken", async () => {
    const s = await shop(2);
    const o = await order(s, 2);
    await expired(s, o);
    await Promise.all([completeGenuine(deps(), o.uid, paid(o)), completeGenuine(deps(), o.uid, paid(o))]);
    expect((await row(o.id)).paymentStatus).toBe("paid");
    expect(await ticketIds(o.id)).toHaveLength(2);
    expect(await sold(s)).toEqual({ event: 2, type: 2 });
    // Let the deferred confirms and releases land: the object must still count the paid units, so nobody else can
    // buy them (a 201 here would be an oversell: 4 units sold of a stock of 2).
    await sleep(300);
    await settled(s.event.id);
    const other = await call("POST", `/events/${s.event.id}/orders`, { auth: null, body: { name: "Bob", email: "bob@example.com", tickets: [{ [s.type.id]: 2 }] } });
    expect(other.status, "an order for the 2 units the late payment took").toBe(409);
    expect(await left(s)).toBe(0);
    expect((await obj(s.event.id).snapshot()).reservations.map((r) => [r.uid, r.state])).toEqual([[o.uid, "taken"]]);
  });
});
