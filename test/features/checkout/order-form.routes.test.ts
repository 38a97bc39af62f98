import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { call, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType } from "../../helpers/catalogue";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * `GET /events/<event_id>/order-form` (decisions.md 5.1, 12, 13 "Orders"): what a shop front needs to render the
 * order form. Storage is shared by the tests of this file, so each makes its own events.
 */

type Json = Record<string, any>;

const FORM_KEYS = [
  "coupon",
  "currency",
  "end_date",
  "event_date",
  "event_id",
  "event_name",
  "group",
  "input_fields",
  "open",
  "order_submit_text",
  "reason",
  "recaptcha",
  "start_date",
  "terms",
  "ticket_types",
  "timezone",
  "waiting_list",
];

const form = (eventId: number, key?: string | null) => call("GET", `/events/${eventId}/order-form`, { auth: null, key });
const readForm = (eventId: number) => expectJson(form(eventId), 200);

/** A wire date-time `minutes` from now in the service zone of the tests (Europe/Amsterdam). */
function wireIn(minutes: number, timeZone = "Europe/Amsterdam"): string {
  return wallClockAt(Date.now() + minutes * 60_000, timeZone);
}

/** Calls the worker with some settings changed, as another deployment would be configured. */
async function callWith(overrides: Record<string, unknown>, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A customer order of `count` units of the event's only ticket type (left open: its units stay held). */
async function holdUnits(eventId: number, typeId: string, count: number): Promise<Json> {
  return expectJson(
    call("POST", `/events/${eventId}/orders`, {
      auth: null,
      body: { name: "Hold Er", email: "holder@example.com", tickets: [{ [typeId]: count }] },
    }),
    201,
  );
}

describe("GET /events/<event_id>/order-form: the full shape", () => {
  it("shows the event, sale window, currency, terms, flags, ticket types and order-level input fields", async () => {
    const name = unique("Form ");
    const event = await createEvent({
      event_name: name,
      event_date: "2099-06-01 20:00:00",
      start_date: "2020-01-01 10:00:00",
      end_date: "2099-05-31 23:00:00",
      terms: 'I agree to the <b>terms</b> and <a href="https://example.com/terms">conditions</a>',
      order_submit_text: "Buy now",
      coupons_needed: true,
      recaptcha_needed: true,
    });
    const regular = await createTicketType(event.id, { name: "Regular", price: "12.50", vat: 21, minimum_to_order: 2, maximum_to_order: 8 });
    const group = await createTicketType(event.id, {
      name: "Group",
      price: 10,
      vat: 9,
      volume_price: [{ "10": 8 }, { "5": "9.50" }],
      maximum_to_order: 0,
    });
    const company = await createInputField(event.id, { name: "Company", is_required: true, max: "30" });
    await createInputField(event.id, { name: "Attendee", is_personalised: true });
    const size = await createInputField(event.id, { name: "Size", type: "select", value: "S,M,L" });
    const shown = await expectJson(call("GET", `/admin/events/${event.id}`), 200);

    const body = await readForm(event.id);
    expect(Object.keys(body).sort()).toEqual(FORM_KEYS);
    expect(body).toStrictEqual({
      event_id: event.id,
      event_name: name,
      event_date: "2099-06-01 20:00:00",
      start_date: "2020-01-01 10:00:00",
      end_date: "2099-05-31 23:00:00",
      timezone: "Europe/Amsterdam",
      open: true,
      reason: null,
      currency: "EUR",
      order_submit_text: "Buy now",
      terms: shown.terms,
      coupon: true,
      recaptcha: true,
      waiting_list: false,
      ticket_types: [
        { id: regular.id, name: "Regular", price: 12.5, vat: 21, volume_price: [], minimum_to_order: 2, maximum_to_order: 8 },
        { id: group.id, name: "Group", price: 10, vat: 9, volume_price: [{ "5": 9.5 }, { "10": 8 }], minimum_to_order: 0, maximum_to_order: 0 },
      ],
      input_fields: [
        { id: company.id, name: "Company", type: "text", value: "", min: "", max: "30", is_required: true },
        { id: size.id, name: "Size", type: "select", value: "S,M,L", min: "", max: "", is_required: false },
      ],
      group: null,
    });
    expect(body.terms).toContain("<b>terms</b>");
    // Personalised fields are asked after ordering, never on the form.
    expect(JSON.stringify(body)).not.toContain("Attendee");
  });

  it("an event with nothing set: empty dates, no terms, flags off, no types or fields, open", async () => {
    const event = await createEvent({ event_name: unique("Bare ") });
    const body = await readForm(event.id);
    expect(body).toMatchObject({
      event_id: event.id,
      event_date: "",
      start_date: "",
      end_date: "",
      terms: "",
      coupon: false,
      recaptcha: false,
      waiting_list: false,
      ticket_types: [],
      input_fields: [],
      group: null,
      open: true,
      reason: null,
      currency: "EUR",
    });
  });

  it("shows the event's dates in its own time zone", async () => {
    const event = await createEvent({ event_name: unique("Zone "), timezone: "America/New_York", event_date: "2099-07-04 21:00:00" });
    const body = await readForm(event.id);
    expect(body.timezone).toBe("America/New_York");
    expect(body.event_date).toBe("2099-07-04 21:00:00");
  });

  it("shows the configured CURRENCY", async () => {
    const event = await createEvent({ event_name: unique("Dollars ") });
    const body = await expectJson(callWith({ CURRENCY: "USD" }, request("GET", `/events/${event.id}/order-form`, { auth: null })), 200);
    expect(body.currency).toBe("USD");
    expect((await readForm(event.id)).currency).toBe("EUR");
  });

  it("answers 404 rest_event_invalid_id for an unknown event", async () => {
    await expectError(form(987_654_321), 404, "rest_event_invalid_id");
    await expectError(call("GET", "/events/not-a-number/order-form", { auth: null }), 404, "rest_event_invalid_id");
  });
});

describe("GET /events/<event_id>/order-form: open, and why not", () => {
  it("not_started before the start of sale", async () => {
    const event = await createEvent({ event_name: unique("Soon "), start_date: wireIn(60 * 24), event_date: "2099-01-01 20:00:00" });
    await createTicketType(event.id);
    expect(await readForm(event.id)).toMatchObject({ open: false, reason: "not_started" });
  });

  it("ended after the end of sale, and after the event date when no end of sale is set", async () => {
    const ended = await createEvent({ event_name: unique("Over "), start_date: "2020-01-01 00:00:00", end_date: wireIn(-60), event_date: "2099-01-01 20:00:00" });
    await createTicketType(ended.id);
    expect(await readForm(ended.id)).toMatchObject({ open: false, reason: "ended" });

    const past = await createEvent({ event_name: unique("Past "), event_date: wireIn(-60) });
    await createTicketType(past.id);
    expect(await readForm(past.id)).toMatchObject({ open: false, reason: "ended" });
  });

  it("sold_out when every ticket type is out of stock", async () => {
    const event = await createEvent({ event_name: unique("None left ") });
    await createTicketType(event.id, { name: "A", stock_control: true, stock: 0 });
    await createTicketType(event.id, { name: "B", stock_control: true, stock: 0 });
    expect(await readForm(event.id)).toMatchObject({ open: false, reason: "sold_out" });
  });

  it("stays open while one ticket type has stock or no stock control", async () => {
    const event = await createEvent({ event_name: unique("Some left ") });
    await createTicketType(event.id, { name: "A", stock_control: true, stock: 0 });
    await createTicketType(event.id, { name: "B" });
    expect(await readForm(event.id)).toMatchObject({ open: true, reason: null });
  });

  it("sold_out once the event stock is held by orders", async () => {
    const event = await createEvent({ event_name: unique("Event stock "), stock: 2 });
    const type = await createTicketType(event.id, { name: "Regular", price: 10 });
    expect(await readForm(event.id)).toMatchObject({ open: true, reason: null });
    await holdUnits(event.id, type.id, 2);
    expect(await readForm(event.id)).toMatchObject({ open: false, reason: "sold_out" });
  });
});

describe("GET /events/<event_id>/order-form: remaining", () => {
  it("is shown only for types with show_remaining, and drops when an order holds units", async () => {
    const event = await createEvent({ event_name: unique("Remaining ") });
    const shown = await createTicketType(event.id, { name: "Shown", stock_control: true, stock: 5, show_remaining: true });
    const hidden = await createTicketType(event.id, { name: "Hidden", stock_control: true, stock: 5 });
    const before = await readForm(event.id);
    expect(before.ticket_types.find((t: Json) => t.id === shown.id).remaining).toBe(5);
    expect(before.ticket_types.find((t: Json) => t.id === hidden.id)).not.toHaveProperty("remaining");

    await expectJson(
      call("POST", `/events/${event.id}/orders`, {
        auth: null,
        body: { name: "Ann", email: "ann@example.com", tickets: [{ [shown.id]: 2 }, { [hidden.id]: 1 }] },
      }),
      201,
    );
    const after = await readForm(event.id);
    expect(after.ticket_types.find((t: Json) => t.id === shown.id).remaining).toBe(3);
    expect(after.ticket_types.find((t: Json) => t.id === hidden.id)).not.toHaveProperty("remaining");
  });

  it("for a type without stock control, is the event's remaining stock", async () => {
    const event = await createEvent({ event_name: unique("Event left "), stock: 4 });
    const type = await createTicketType(event.id, { name: "Open", show_remaining: true });
    expect((await readForm(event.id)).ticket_types[0].remaining).toBe(4);
    await holdUnits(event.id, type.id, 1);
    expect((await readForm(event.id)).ticket_types[0].remaining).toBe(3);
  });

  it("is what a customer can still buy: the lower of the type's and the event's remaining stock", async () => {
    const event = await createEvent({ event_name: unique("Both limits "), stock: 3 });
    await createTicketType(event.id, { name: "Limited", stock_control: true, stock: 10, show_remaining: true });
    // Only 3 can be bought (the event stock), not 10.
    expect((await readForm(event.id)).ticket_types[0].remaining).toBe(3);
  });

  it("is null, not 0, when neither the type nor the event limits it", async () => {
    const event = await createEvent({ event_name: unique("Unlimited ") });
    await createTicketType(event.id, { name: "Open", show_remaining: true });
    const body = await readForm(event.id);
    expect(body).toMatchObject({ open: true, reason: null });
    // 0 would tell the shop front that nothing is left while the form is open and any number can be bought.
    expect(body.ticket_types[0].remaining).toBeNull();
  });
});

describe("GET /events/<event_id>/order-form: groups", () => {
  it("lists the dates of the group for group types 1 and 2 (by event date), never events of another group", async () => {
    const g = unique("G");
    const later = await createEvent({ event_name: unique("Day 2 "), group_type: 2, event_group: g, event_date: "2099-08-02 20:00:00" });
    const earlier = await createEvent({ event_name: unique("Day 1 "), group_type: 2, event_group: g, event_date: "2099-08-01 20:00:00" });
    const closed = await createEvent({ event_name: unique("Day 0 "), group_type: 2, event_group: g, event_date: wireIn(-60) });
    await createEvent({ event_name: unique("Other "), group_type: 2, event_group: unique("H"), event_date: "2099-08-03 20:00:00" });
    const pass = await createEvent({ event_name: unique("Pass "), group_type: 3, event_group: g });

    const body = await readForm(later.id);
    expect(body.group).toStrictEqual({
      group_type: 2,
      event_group: g,
      dates: [
        { event_id: closed.id, event_name: closed.event_name, event_date: closed.event_date, open: false },
        { event_id: earlier.id, event_name: earlier.event_name, event_date: "2099-08-01 20:00:00", open: true },
        { event_id: later.id, event_name: later.event_name, event_date: "2099-08-02 20:00:00", open: true },
      ],
    });
    expect(body.group.dates.map((d: Json) => d.event_id)).not.toContain(pass.id);

    const one = unique("S");
    const a = await createEvent({ event_name: unique("One A "), group_type: 1, event_group: one, event_date: "2099-09-01 20:00:00" });
    const b = await createEvent({ event_name: unique("One B "), group_type: 1, event_group: one, event_date: "2099-09-02 20:00:00" });
    const single = await readForm(a.id);
    expect(single.group).toMatchObject({ group_type: 1, event_group: one });
    expect(single.group.dates.map((d: Json) => d.event_id)).toEqual([a.id, b.id]);
  });

  it("is null for a passe-partout and for an event outside any group", async () => {
    const g = unique("P");
    await createEvent({ event_name: unique("Child "), group_type: 1, event_group: g });
    const pass = await createEvent({ event_name: unique("Pass "), group_type: 3, event_group: g });
    expect((await readForm(pass.id)).group).toBeNull();
    const plain = await createEvent({ event_name: unique("Plain ") });
    expect((await readForm(plain.id)).group).toBeNull();
  });
});

describe("GET /events/<event_id>/order-form: keys and CORS", () => {
  const SHOP = { ORDERING_KEY: "pk_test", CORS_ORIGINS: "https://shop.example" };

  it("takes the API key, and the ordering key when one is set; refuses no key, an unknown key, and no Basic is needed", async () => {
    const event = await createEvent({ event_name: unique("Keys ") });
    await expectJson(form(event.id), 200);
    await expectError(form(event.id, null), 401, "rest_forbidden_api_key");
    await expectError(form(event.id, "wrong-key"), 401, "rest_forbidden_api_key");
    // Without ORDERING_KEY configured, a publishable key is just an unknown key.
    await expectError(form(event.id, "pk_test"), 401, "rest_forbidden_api_key");

    const path = `/events/${event.id}/order-form`;
    const viaPk = await expectJson(callWith(SHOP, request("GET", path, { auth: null, key: "pk_test" })), 200);
    expect(viaPk.event_id).toBe(event.id);
    await expectJson(callWith(SHOP, request("GET", path, { auth: null })), 200);
    await expectError(callWith(SHOP, request("GET", path, { auth: null, key: "pk_wrong" })), 401, "rest_forbidden_api_key");
    await expectError(callWith(SHOP, request("GET", path, { auth: null, key: null })), 401, "rest_forbidden_api_key");
  });

  it("answers a preflight from an allowed origin with 204 and no key; a disallowed origin gets no allow-origin", async () => {
    const event = await createEvent({ event_name: unique("Cors ") });
    const path = `/events/${event.id}/order-form`;
    const preflight = (origin: string) =>
      request("OPTIONS", path, {
        auth: null,
        key: null,
        headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-evt-api-key" },
      });

    const ok = await callWith(SHOP, preflight("https://shop.example"));
    expect(ok.status).toBe(204);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    expect(ok.headers.get("Access-Control-Allow-Methods") ?? "").toContain("GET");
    expect((ok.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase()).toContain("x-evt-api-key");

    const other = await callWith(SHOP, preflight("https://evil.example"));
    expect(other.headers.get("Access-Control-Allow-Origin")).toBeNull();

    // The real request from the shop carries the allow-origin header too.
    const get = await callWith(SHOP, request("GET", path, { auth: null, key: "pk_test", headers: { Origin: "https://shop.example" } }));
    expect(get.status).toBe(200);
    expect(get.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    const denied = await callWith(SHOP, request("GET", path, { auth: null, key: "pk_test", headers: { Origin: "https://evil.example" } }));
    expect(denied.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
