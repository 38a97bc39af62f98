import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { eventObject } from "../../../src/platform/event-object.client";
import { describe, expect, it, vi } from "vitest";
import { emails, waitingList } from "../../../src/db/schema";
import { errorText, messagesFor } from "../../../src/domain/messages";
import { BASE, call, expectJson, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { enteredValue, errorAt, type FormFields, freshToken, type Json, openPage, ordersOf, pageHtml, postForm, summaryOf } from "./shop-helpers";

/**
 * The waiting list in the box office (decisions.md 15 "Selling like the peers", "The box office"; docs/shop.md
 * "The waiting list"): the shop page's join form and its post `POST /shop/<event_id>/waiting-list`, the offer's
 * personal link `GET /shop/<event_id>?offer=<token>` and ordering through it. Each test makes its own events.
 */

interface Sold {
  event: Json;
  type: Json;
  other: Json;
  orders: number[];
}

/** An event with a waiting list: "Standing" (`stock` units, all sold by dashboard orders) and "Seated" (on sale). */
async function soldOut(stock = 1, event: Json = {}, typeName = "Standing"): Promise<Sold> {
  const created = await createEvent({ event_name: unique("Shop waiting "), waiting_list_needed: true, add_dashboard_orders_needed: true, ...event });
  const type = await createTicketType(created.id, { name: typeName, price: 0, stock_control: true, stock, maximum_to_order: 0 });
  const other = await createTicketType(created.id, { name: "Seated", price: 0, stock_control: true, stock: 50, maximum_to_order: 0 });
  const orders: number[] = [];
  for (let i = 0; i < stock; i++) {
    const order = await expectJson(
      call("POST", "/admin/orders", {
        body: { event_id: created.id, name: "Early Bird", email: `early${i}@example.com`, tickets: [{ [type.id]: 1 }, { [other.id]: 0 }] },
      }),
      201,
    );
    orders.push(order.id);
  }
  return { event: created, type, other, orders };
}

const joinForm = (s: Sold, extra: FormFields = {}): FormFields => ({
  form_token: freshToken(),
  waiting_name: "Wendy Wait",
  waiting_email: "wendy@example.com",
  waiting_type: s.type.id,
  waiting_count: "1",
  ...extra,
});

function postJoin(eventId: number, fields: FormFields, lang = "en"): Promise<Response> {
  return postForm(`${eventId}/waiting-list`, fields, { lang });
}

const entriesOf = (eventId: number) => db.select().from(waitingList).where(eq(waitingList.eventId, eventId));

/** Joins through the page, then waits until the event's object has the entry in line (it is told after the answer). */
async function joinedThroughPage(s: Sold, name: string, email: string, count = 1): Promise<void> {
  const res = await postJoin(s.event.id, joinForm(s, { waiting_name: name, waiting_email: email, waiting_count: String(count) }));
  expect(res.status, await res.clone().text()).toBe(303);
  await vi.waitFor(async () => expect((await entriesOf(s.event.id)).find((e) => e.email === email)?.synced).toBe(true), { timeout: 15_000, interval: 100 });
}

/** The offer's token, read from the offer email once it is written (offers reach D1 through the object's outbox). */
async function offerToken(eventId: number, email: string): Promise<string> {
  return vi.waitFor(
    async () => {
      const sent = await db
        .select()
        .from(emails)
        .where(and(eq(emails.to, email), eq(emails.eventId, eventId)));
      const m = /\?offer=([A-Za-z0-9]{32})/.exec(sent[0]?.body ?? "");
      expect(m).not.toBeNull();
      return m![1]!;
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** A sold-out type whose one unit came back and is offered to Olga: the event and her token. */
async function offered(event: Json = {}, typeName = "Standing", name = "Olga Offer"): Promise<Sold & { token: string }> {
  const s = await soldOut(1, event, typeName);
  await joinedThroughPage(s, name, "olga@example.com");
  await expectJson(call("DELETE", `/admin/orders/${s.orders[0]}`), 200);
  return { ...s, token: await offerToken(s.event.id, "olga@example.com") };
}

const offerOrder = (s: Sold, token: string, extra: FormFields = {}): FormFields => ({
  form_token: freshToken(),
  offer: token,
  name: "Olga Offer",
  email: "olga@example.com",
  [`ticket_${s.type.id}`]: "1",
  [`ticket_${s.other.id}`]: "0",
  ...extra,
});

describe("the order form says whether the event keeps a waiting list", () => {
  it("waiting_list is the event's waiting_list_needed", async () => {
    const s = await soldOut(1);
    expect((await expectJson(call("GET", `/events/${s.event.id}/order-form`, { auth: null }), 200)).waiting_list).toBe(true);
    const plain = await createEvent({ event_name: unique("No list ") });
    expect((await expectJson(call("GET", `/events/${plain.id}/order-form`, { auth: null }), 200)).waiting_list).toBe(false);
  });
});

describe("the join form on the shop page", () => {
  it("shows a labelled form for the sold-out types only, while the rest stays orderable", async () => {
    const s = await soldOut(1);
    const html = await pageHtml(openPage(s.event.id, "?lang=nl"));
    const words = messagesFor("nl").waitingList;
    expect(html).toContain(`<h2 id="waiting-list-heading">${words.heading}</h2>`);
    expect(html).toContain(`action="/ticketing/v1/shop/${s.event.id}/waiting-list?lang=nl"`);
    for (const control of ["waiting_name", "waiting_email", "waiting_type", "waiting_count"]) expect(html).toContain(`<label for="${control}">`);
    const select = /<select[^>]*id="waiting_type"[\s\S]*?<\/select>/.exec(html)?.[0] ?? "";
    expect(select).toContain(`<option value="${s.type.id}">Standing</option>`);
    expect(select).not.toContain("Seated");
    expect(html).toContain(`id="ticket_${s.other.id}"`);
    expect(html).toContain(`>${words.join}</button>`);
  });

  it("is not shown without a waiting list, nor while nothing is sold out", async () => {
    const plain = await soldOut(1, { waiting_list_needed: false });
    expect(await pageHtml(openPage(plain.event.id))).not.toContain('id="waiting-list"');
    const open = await createEvent({ event_name: unique("Open list "), waiting_list_needed: true });
    await createTicketType(open.id, { name: "Seat", price: 0, stock_control: true, stock: 5 });
    expect(await pageHtml(openPage(open.id))).not.toContain('id="waiting-list"');
  });

  it("joins: a 303 to the page's confirmation, the entry in the page's language; the confirmation shows nothing of any entry", async () => {
    const s = await soldOut(1);
    const res = await postJoin(s.event.id, joinForm(s, { waiting_count: "2" }), "de");
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`/ticketing/v1/shop/${s.event.id}?lang=de&joined=1`);
    const [entry] = await entriesOf(s.event.id);
    expect(entry).toEqual(expect.objectContaining({ name: "Wendy Wait", email: "wendy@example.com", ticketTypeId: s.type.id, count: 2, lang: "de", state: "waiting" }));
    const html = await pageHtml(openPage(s.event.id, "?lang=de&joined=1"));
    expect(html).toContain(messagesFor("de").waitingList.joinedTitle);
    expect(html).not.toContain("wendy@example.com");
  });

  it("refuses each bad value beside its field, in Dutch, with the values kept, and writes nothing", async () => {
    const s = await soldOut(1);
    const nl = messagesFor("nl");
    const cases: [FormFields, string, string][] = [
      [{ waiting_name: "" }, "waiting_name", errorText("nl", "order_missing_input", "")],
      [{ waiting_email: "not-an-email" }, "waiting_email", errorText("nl", "order_invalid_email", "")],
      [{ waiting_count: "0" }, "waiting_count", nl.shop.invalidCount],
      [{ waiting_count: "veel" }, "waiting_count", nl.shop.invalidCount],
      [{ waiting_type: "nope" }, "waiting_type", errorText("nl", "rest_invalid_param", "")],
    ];
    for (const [change, control, text] of cases) {
      const html = await pageHtml(postJoin(s.event.id, joinForm(s, { waiting_name: "<b>Wendy</b>", ...change }), "nl"), 422);
      expect(html).toContain('<html lang="nl">');
      expect(errorAt(html, control), control).toBe(text);
      expect(summaryOf(html)).toContainEqual({ control, text });
      if (control !== "waiting_name") expect(enteredValue(html, "waiting_name")).toBe("<b>Wendy</b>");
      expect(html).not.toContain("<b>Wendy</b>");
    }
    expect(await entriesOf(s.event.id)).toEqual([]);
  });

  it("the duplicate beside the email; no waiting list, not sold out and a missing form token in the summary", async () => {
    const s = await soldOut(1);
    expect((await postJoin(s.event.id, joinForm(s))).status).toBe(303);
    const dup = await pageHtml(postJoin(s.event.id, joinForm(s, { waiting_email: "WENDY@example.com" }), "nl"), 422);
    expect(errorAt(dup, "waiting_email")).toBe(errorText("nl", "waiting_list_duplicate", ""));
    expect(enteredValue(dup, "waiting_email")).toBe("WENDY@example.com");

    const plain = await soldOut(1, { waiting_list_needed: false });
    const closed = await pageHtml(postJoin(plain.event.id, joinForm(plain), "nl"), 422);
    expect(summaryOf(closed)).toEqual([{ control: null, text: errorText("nl", "waiting_list_closed", "") }]);

    const open = await soldOut(1);
    const notSoldOut = await pageHtml(postJoin(open.event.id, joinForm(open, { waiting_type: open.other.id }), "nl"), 422);
    expect(summaryOf(notSoldOut)).toContainEqual({ control: null, text: errorText("nl", "waiting_list_not_sold_out", "") });

    const noToken = await pageHtml(postJoin(open.event.id, joinForm(open, { form_token: "" }), "nl"), 422);
    expect(summaryOf(noToken)).toEqual([{ control: null, text: messagesFor("nl").shop.formExpired }]);
    expect(await entriesOf(plain.event.id)).toEqual([]);
    expect((await entriesOf(open.event.id)).length).toBe(0);
  });

  it("an unknown event is the not-found page", async () => {
    await pageHtml(postJoin(999_999_999, { form_token: freshToken() }), 404);
  });
});

describe("the offer's personal link", () => {
  it("shows the banner, makes the offered type orderable, fixes the email and prefills the name; escaped", async () => {
    const s = await offered({ timezone: "Europe/Amsterdam" }, "<i>Standing</i>", "<b>Olga</b>");
    const html = await pageHtml(openPage(s.event.id, `?offer=${s.token}&lang=nl`));
    const words = messagesFor("nl").waitingList;
    expect(html).toContain(words.offerTitle);
    expect(html).toMatch(/1 × &lt;i&gt;Standing&lt;\/i&gt; worden voor je vastgehouden tot [^<]*\d{2}:\d{2}/);
    expect(html).not.toContain("<i>Standing</i>");
    expect(html).not.toContain("<b>Olga</b>");
    const ticket = /<input[^>]*id="ticket_[^"]*"[^>]*>/.exec(html.slice(html.indexOf("&lt;i&gt;Standing")))?.[0] ?? "";
    expect(ticket).toContain(`name="ticket_${s.type.id}"`);
    expect(ticket).toContain('max="1"');
    const email = /<input[^>]*id="email"[^>]*>/.exec(html)?.[0] ?? "";
    expect(email).toContain("readonly");
    expect(email).toContain('value="olga@example.com"');
    expect(html).toContain('<label for="email">');
    expect(enteredValue(html, "name")).toBe("<b>Olga</b>");
    expect(html).toContain(`name="offer" value="${s.token}"`);
  });

  it("a wrong or malformed token is a notice on the ordinary page, never a 500", async () => {
    const s = await soldOut(1);
    for (const token of ["x".repeat(32), "short", "<script>"]) {
      const html = await pageHtml(openPage(s.event.id, `?offer=${encodeURIComponent(token)}&lang=nl`));
      expect(html).toContain(errorText("nl", "waiting_list_offer_invalid", ""));
      expect(html).not.toContain('name="offer"');
    }
  });
});

describe("ordering through an offer", () => {
  it("orders the held type while it is sold out to everyone else; the token then orders nothing more", async () => {
    const s = await offered();
    // To anyone else the type is sold out.
    const stranger = await pageHtml(postForm(s.event.id, { ...offerOrder(s, s.token), offer: "", name: "Sam", email: "sam@example.com" }), 422);
    expect(summaryOf(stranger).length).toBeGreaterThan(0);
    const fields = offerOrder(s, s.token);
    const res = await postForm(s.event.id, fields);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get("Location")).toMatch(/^\/ticketing\/v1\/shop\/orders\/[^/?]+\?lang=en$/);
    const placed = (await ordersOf(s.event.id)).filter((o) => o.email === "olga@example.com");
    expect(placed).toHaveLength(1);
    // A second order with the same personal link: refused, nothing ordered.
    const again = await pageHtml(postForm(s.event.id, offerOrder(s, s.token)), 422);
    expect(summaryOf(again).length).toBeGreaterThan(0);
    expect((await ordersOf(s.event.id)).filter((o) => o.email === "olga@example.com")).toHaveLength(1);
    await vi.waitFor(async () => expect((await entriesOf(s.event.id))[0]?.state).toBe("ordered"), { timeout: 15_000, interval: 100 });
    // The same form posted again (a double click), once the offer is used: the first answer again, no second order.
    const replay = await postForm(s.event.id, fields);
    expect(replay.status).toBe(303);
    expect(replay.headers.get("Location")).toBe(res.headers.get("Location"));
    expect((await ordersOf(s.event.id)).filter((o) => o.email === "olga@example.com")).toHaveLength(1);
    // The used link: a notice on the ordinary page, nothing of the entry.
    const used = await pageHtml(openPage(s.event.id, `?offer=${s.token}&lang=nl`));
    expect(used).toContain(errorText("nl", "waiting_list_offer_invalid", ""));
    expect(used).not.toContain("olga@example.com");
    expect(used).not.toContain('name="offer"');
  });

  it("another email with the token is refused beside the email", async () => {
    const s = await offered();
    const html = await pageHtml(postForm(s.event.id, offerOrder(s, s.token, { email: "thief@example.com" }), { lang: "nl" }), 422);
    expect(errorAt(html, "email")).toBe(errorText("nl", "waiting_list_offer_invalid", ""));
    expect((await ordersOf(s.event.id)).filter((o) => o.email === "thief@example.com")).toEqual([]);
  });

  it("an expired offer is refused", async () => {
    const s = await offered();
    await db
      .update(waitingList)
      .set({ offerExpiresAt: Math.floor(Date.now() / 1000) - 1 })
      .where(eq(waitingList.eventId, s.event.id));
    const page = await pageHtml(openPage(s.event.id, `?offer=${s.token}&lang=nl`));
    expect(page).toContain(errorText("nl", "waiting_list_offer_invalid", ""));
    expect(page).not.toContain("olga@example.com");
    const html = await pageHtml(postForm(s.event.id, offerOrder(s, s.token), { lang: "nl" }), 422);
    expect(summaryOf(html)).toContainEqual({ control: null, text: errorText("nl", "waiting_list_offer_invalid", "") });
    expect((await ordersOf(s.event.id)).filter((o) => o.email === "olga@example.com")).toEqual([]);
  });

  it("an email-list event judges the email that joined when it orders: not on the list, refused, and the offer stays", async () => {
    // Joining does not check the list (decisions.md 15: the rules apply at ordering); the list is switched on once
    // the offer is made (the set-up's dashboard orders would need it too).
    const s = await offered();
    await expectJson(
      call("PUT", `/admin/events/${s.event.id}`, { body: { user_groups_needed: true, user_groups: { group_type: 1, rest_url: "", rest_header: "" } } }),
      200,
    );
    const html = await pageHtml(postForm(s.event.id, offerOrder(s, s.token)), 422);
    expect(summaryOf(html)).toContainEqual({ control: null, text: errorText("en", "order_not_allowed", "") });
    expect((await ordersOf(s.event.id)).filter((o) => o.email === "olga@example.com")).toEqual([]);
    // Refused before any hold: the unit is still held for Olga, not on sale.
    expect((await entriesOf(s.event.id))[0]?.state).toBe("offered");
    const entry = (await entriesOf(s.event.id))[0]!;
    const held = (await eventObject(env, s.event.id).snapshot()).reservations.filter((r) => r.state === "offer");
    expect(held).toEqual([expect.objectContaining({ uid: `offer:${entry.id}`, typeUnits: { [s.type.id]: 1 } })]);
  });

  it("while the unit is offered, 20 concurrent ordinary orders for the type are all refused, and the offer still orders", async () => {
    const s = await offered();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("POST", `/events/${s.event.id}/orders`, {
          auth: null,
          body: { name: "Rush", email: `rush${i}@example.com`, tickets: [{ [s.type.id]: 1 }, { [s.other.id]: 0 }] },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(409));
    const res = await postForm(s.event.id, offerOrder(s, s.token));
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get("Location")).toContain(`${BASE.replace(/^https?:\/\/[^/]+/, "")}/shop/orders/`);
  });
});
