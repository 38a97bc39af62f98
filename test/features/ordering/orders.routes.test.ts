import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { logs, orders, tickets } from "../../../src/db/schema";
import { BASE, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createInputField, createTicketType, db } from "../../helpers/catalogue";
import { wallClockAt } from "../../helpers/wall-clock";

/**
 * `/admin/orders` (spec: Orders; decisions.md 5.2-5.5, 12 and 13 "Orders"). Storage is shared by the tests of this
 * file, so every test makes its own event and looks only at that event's orders.
 */

const ORDER_FIELDS = [
  "_links",
  "created_at",
  "currency",
  "custom_status",
  "discount",
  "email",
  "event_date",
  "event_id",
  "id",
  "input_fields",
  "ip_address",
  "name",
  "num_tickets",
  "payment_id",
  "payment_status",
  "total",
  "uid",
];

type Json = Record<string, any>;

/** What a `tickets` of another shape answers (docs/ordering.md "Dashboard and customer orders"): the shape the spec asks for, with an example. */
const TICKETS_SHAPE = 'must be a list of {"<ticket type id>": count} maps, such as [{"v05ef7": 2}]';

interface Setup {
  event: Json;
  types: Json[];
  fields: Json[];
}

/** An event taking dashboard orders, with the given ticket types (default one "Regular" at 10.00) and input fields. */
async function setup(options: { event?: Json; types?: Json[]; fields?: Json[]; auth?: Credentials } = {}): Promise<Setup> {
  const event = await createEvent({ event_name: unique("Orders "), add_dashboard_orders_needed: true, ...options.event }, options.auth);
  const types: Json[] = [];
  for (const t of options.types ?? [{ name: "Regular", price: 10 }]) types.push(await createTicketType(event.id, t, options.auth));
  const fields: Json[] = [];
  for (const f of options.fields ?? []) fields.push(await createInputField(event.id, f, options.auth));
  return { event, types, fields };
}

/** `tickets` naming every type of the set-up, with the given counts by position (missing counts are 0). */
const ticketLines = (types: Json[], counts: number[]) => types.map((t, i) => ({ [t.id]: counts[i] ?? 0 }));

function orderBody(s: Setup, counts: number[] = [1], extra: Json = {}): Json {
  return { event_id: s.event.id, name: "Ann Smith", email: "ann@example.com", tickets: ticketLines(s.types, counts), ...extra };
}

const post = (body: unknown, options: { auth?: Credentials; headers?: Record<string, string> } = {}) => call("POST", "/admin/orders", { body, ...options });

async function placeOrder(s: Setup, counts: number[] = [1], extra: Json = {}): Promise<Json> {
  return expectJson(post(orderBody(s, counts, extra)), 201);
}

async function ordersInD1(eventId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(orders).where(eq(orders.eventId, eventId));
  return row!.n;
}

async function ticketsInD1(orderId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(tickets).where(eq(tickets.orderId, orderId));
  return row!.n;
}

async function soldOf(s: Setup): Promise<{ event: number; types: number[] }> {
  const event = await expectJson(call("GET", `/admin/events/${s.event.id}`), 200);
  const types = await expectJson<Json[]>(call("GET", `/admin/events/${s.event.id}/ticket-types`), 200);
  return { event: event.sold, types: s.types.map((t) => types.find((x) => x.id === t.id)!.sold) };
}

/** Wall clock of an instant in a zone, computed independently of src/lib/time.ts. */
function wallClock(epochMs: number, timeZone: string): string {
  return wallClockAt(epochMs, timeZone);
}

const ids = (list: Json[]) => list.map((o) => o.id);

describe("POST /admin/orders", () => {
  it("creates a dashboard order: 201, Location and the exact order shape", async () => {
    const s = await setup({
      event: { timezone: "Pacific/Auckland", event_date: "2099-06-01 20:00:00" },
      types: [
        { name: "Regular", price: "12.10", vat: 21 },
        { name: "Child", price: 5, vat: 9, is_counted: false },
        { name: "Backstage", price: "49.99", vat: 5.5 },
      ],
      fields: [
        { name: "Company" },
        { name: "Secret", type: "password" },
        { name: "Size", type: "select", value: "S,M,L" },
        { name: "Attendee", is_personalised: true },
        { name: "Diet" },
      ],
    });
    const [company, secret, size] = s.fields;
    const before = Date.now();
    const res = await post(
      orderBody(s, [2, 1, 0], {
        name: " Ann Smith ",
        email: "Ann@Example.com",
        fields: [{ [size!.id]: "M" }, { [company!.id]: "ACME" }, { [secret!.id]: "hunter2-very-secret" }],
      }),
      { headers: { "CF-Connecting-IP": "203.0.113.7" } },
    );
    const body = await expectJson(res, 201);
    const after = Date.now();

    expect(res.headers.get("Location")).toBe(`${BASE}/admin/orders/${body.id}`);
    expect(Object.keys(body).sort()).toEqual(ORDER_FIELDS);
    expect(body).toStrictEqual({
      id: body.id,
      event_id: s.event.id,
      event_date: "2099-06-01 20:00:00",
      payment_id: "",
      payment_status: "dashboard",
      custom_status: "",
      created_at: body.created_at,
      uid: body.uid,
      name: "Ann Smith",
      email: "Ann@Example.com",
      input_fields: {
        fields: body.input_fields.fields,
        tickets: [
          { name: "Regular", price: 12.1, vat: 21, is_counted: true, number: 2 },
          { name: "Child", price: 5, vat: 9, is_counted: false, number: 1 },
          { name: "Backstage", price: 49.99, vat: 5.5, is_counted: true, number: 0 },
        ],
      },
      num_tickets: 3,
      total: 29.2,
      discount: 0,
      currency: "EUR",
      ip_address: "203.0.113.7",
      _links: {
        self: [{ href: `${BASE}/admin/orders/${body.id}` }],
        collection: [{ href: `${BASE}/admin/orders` }],
        tickets: [{ embeddable: true, href: `${BASE}/admin/tickets/${body.id}` }],
      },
    });
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body.uid).toMatch(/^[A-Za-z0-9]{40}$/);

    // created_at in the service zone like every date-time of the interface (decisions.md 3), so it compares with the
    // bulk criteria; only event_date, the event's own date, is in the event's zone (Auckland).
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(body.created_at >= wallClock(before - 1000, "Europe/Amsterdam")).toBe(true);
    expect(body.created_at <= wallClock(after + 1000, "Europe/Amsterdam")).toBe(true);

    // Fields as [{name, value}] in the event's field order (not the order sent); never personalised ones; the
    // password value neither returned nor stored.
    const fields = body.input_fields.fields as { name: string; value: string }[];
    for (const f of fields) expect(Object.keys(f).sort()).toEqual(["name", "value"]);
    expect(fields.filter((f) => f.name !== "Secret")).toEqual([
      { name: "Company", value: "ACME" },
      { name: "Size", value: "M" },
      { name: "Diet", value: "" },
    ]);
    expect(fields.filter((f) => f.name === "Secret").every((f) => f.value === "")).toBe(true);
    expect(JSON.stringify(body)).not.toContain("hunter2");
    const row = await db.select().from(orders).where(eq(orders.id, body.id)).get();
    expect(JSON.stringify(row)).not.toContain("hunter2");

    // GET answers the same order; its tickets exist at once.
    expect(await expectJson(call("GET", `/admin/orders/${body.id}`), 200)).toStrictEqual(body);
    const orderTickets = await expectJson(call("GET", `/admin/tickets/${body.id}`), 200);
    expect(orderTickets.tickets.map((t: Json) => t.ticket_type).sort()).toEqual(["Child", "Regular", "Regular"]);
    expect(await ticketsInD1(body.id)).toBe(3);
  });

  it("counts the sale: event and type sold go up (uncounted types do not count for the event)", async () => {
    const s = await setup({
      types: [
        { name: "Adult", price: 10 },
        { name: "Baby", price: 0, is_counted: false },
      ],
    });
    await placeOrder(s, [2, 3]);
    expect(await soldOf(s)).toEqual({ event: 2, types: [2, 3] });
  });

  it("accepts fields as a plain object, as [] and as {}", async () => {
    const s = await setup({ fields: [{ name: "Company" }, { name: "City" }] });
    const [company, city] = s.fields;
    const plain = await placeOrder(s, [1], { fields: { [city!.id]: "Utrecht", [company!.id]: "ACME" } });
    expect(plain.input_fields.fields).toEqual([
      { name: "Company", value: "ACME" },
      { name: "City", value: "Utrecht" },
    ]);
    for (const fieldsSent of [[], {}]) {
      const none = await placeOrder(s, [1], { fields: fieldsSent });
      expect(none.input_fields.fields).toEqual([
        { name: "Company", value: "" },
        { name: "City", value: "" },
      ]);
    }
  });

  it("refuses fields that name one input field twice", async () => {
    const s = await setup({ fields: [{ name: "Company" }] });
    const id = s.fields[0]!.id;
    const err = await expectError(post(orderBody(s, [1], { fields: [{ [id]: "A" }, { [id]: "B" }] })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["fields"]);
    expect(await ordersInD1(s.event.id)).toBe(0);
  });

  it("never oversells when orders for the last units arrive at once", async () => {
    const s = await setup({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 3 }] });
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(orderBody(s, [1]))));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409]);
    expect(await ordersInD1(s.event.id)).toBe(3);
    expect(await soldOf(s)).toEqual({ event: 3, types: [3] });
  });

  it("applies volume prices as list prices, not as a discount", async () => {
    const s = await setup({
      types: [
        { name: "Regular", price: 10, volume_price: [{ "5": 9 }, { "10": "8.50" }] },
        { name: "VIP", price: 30, volume_price: [{ "3": 25 }] },
      ],
    });
    const six = await placeOrder(s, [6, 2]);
    expect(six.input_fields.tickets).toEqual([
      { name: "Regular", price: 9, vat: 0, is_counted: true, number: 6 },
      { name: "VIP", price: 30, vat: 0, is_counted: true, number: 2 },
    ]);
    expect(six).toMatchObject({ num_tickets: 8, total: 114, discount: 0 });

    const ten = await placeOrder(s, [10, 3]);
    expect(ten.input_fields.tickets.map((t: Json) => t.price)).toEqual([8.5, 25]);
    expect(ten).toMatchObject({ num_tickets: 13, total: 160, discount: 0 });

    const four = await placeOrder(s, [4, 0]);
    expect(four.input_fields.tickets.map((t: Json) => t.price)).toEqual([10, 30]);
    expect(four).toMatchObject({ total: 40, discount: 0 });
  });

  it("takes amount as the total and shows the difference to the list price as discount", async () => {
    const s = await setup({
      types: [
        { name: "Regular", price: "12.10", vat: 21 },
        { name: "Child", price: 5 },
      ],
    });
    const a = await placeOrder(s, [2, 1], { amount: "20.50" });
    expect(a).toMatchObject({ total: 20.5, discount: 8.7 }); // list 29.20
    const b = await placeOrder(s, [1, 0], { amount: "12.1" });
    expect(b).toMatchObject({ total: 12.1, discount: 0 });
    const c = await placeOrder(s, [1, 1], { amount: "0" });
    expect(c).toMatchObject({ total: 0, discount: 17.1 });
    const d = await placeOrder(s, [1, 1], { amount: "7" });
    expect(d).toMatchObject({ total: 7, discount: 10.1 });
  });

  it("refuses an amount above the list price, naming amount, and writes nothing", async () => {
    const s = await setup();
    const err = await expectError(post(orderBody(s, [2], { amount: "20.01" })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["amount"]);
    expect(await ordersInD1(s.event.id)).toBe(0);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0] });
  });

  it.each([["1.234"], ["-1"], ["abc"], [""], ["1e3"], [10]])("refuses the amount %j", async (amount) => {
    const s = await setup();
    const err = await expectError(post(orderBody(s, [1], { amount })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["amount"]);
    expect(await ordersInD1(s.event.id)).toBe(0);
  });

  it.each(["id", "total", "payment_status", "uid", "bogus"])("refuses the field %s in the body", async (field) => {
    const s = await setup();
    const err = await expectError(post(orderBody(s, [1], { [field]: field === "id" ? 1 : "x" })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toContain(field);
    expect(await ordersInD1(s.event.id)).toBe(0);
  });

  it("ignores _links sent back by a client", async () => {
    const s = await setup();
    await placeOrder(s, [1], { _links: { self: [{ href: "x" }] } });
    expect(await ordersInD1(s.event.id)).toBe(1);
  });

  it("refuses a body without event_id or tickets", async () => {
    const s = await setup();
    const { event_id: _e, ...noEvent } = orderBody(s);
    const e1 = await expectError(post(noEvent), 400, "rest_missing_callback_param");
    expect(Object.keys(e1.data.params!)).toEqual(["event_id"]);
    const { tickets: _t, ...noTickets } = orderBody(s);
    const e2 = await expectError(post(noTickets), 400, "rest_missing_callback_param");
    expect(Object.keys(e2.data.params!)).toEqual(["tickets"]);
    expect(await ordersInD1(s.event.id)).toBe(0);
  });

  it("names the expected tickets shape when a client sends another one (docs/ordering.md 'Dashboard and customer orders')", async () => {
    const s = await setup();
    const id = s.types[0]!.id as string;
    const shapes: unknown[] = [
      [{ id: 3, quantity: 2 }],
      [{ id, quantity: 2 }],
      [{ ticket_type_id: id, count: 2 }],
      { [id]: 2 },
      [[id, 2]],
      [id],
      [{ [id]: "2" }],
      [null],
      `${id}:2`,
    ];
    for (const tickets of shapes) {
      const err = await expectError(post({ ...orderBody(s), tickets }), 400, "rest_invalid_param");
      expect(err.data.params, JSON.stringify(tickets)).toStrictEqual({ tickets: TICKETS_SHAPE });
    }
    // The right shape with a wrong count keeps its own message; an id of no type of the event keeps its own.
    const negative = await expectError(post({ ...orderBody(s), tickets: [{ [id]: -1 }] }), 400, "rest_invalid_param");
    expect(negative.data.params).toStrictEqual({ tickets: `0.${id}: counts must not be negative` });
    const foreign = await expectError(post({ ...orderBody(s), tickets: [{ [id]: 1 }, { v0000f: 1 }] }), 400, "rest_invalid_param");
    expect(foreign.data.params).toStrictEqual({ tickets: "v0000f is not a ticket type of this event" });
    expect(await ordersInD1(s.event.id)).toBe(0);
    await placeOrder(s, [2]);
  });
});

describe("POST /admin/orders: validation in the decided order", () => {
  /** Posts, expects the refusal, and checks nothing was written. */
  async function refused(s: Setup, body: Json, status: number, code: string, message?: string, auth?: Credentials) {
    const soldBefore = await soldOf(s);
    const err = await expectError(post(body, { auth }), status, code);
    if (message !== undefined) expect(err.message).toBe(message);
    expect(await ordersInD1(s.event.id)).toBe(0);
    expect(await soldOf(s)).toEqual(soldBefore);
    return err;
  }

  it("refuses an unknown event_id with 400 order_event_not_found", async () => {
    const s = await setup();
    const err = await expectError(post({ ...orderBody(s), event_id: 987_654_321 }), 400, "order_event_not_found");
    expect(err.message).toBe("Event does not exist");
  });

  it("refuses an organizer's order on an event outside its authorised events with 403", async () => {
    const mine = await setup();
    const other = await setup();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    await refused(other, orderBody(other), 403, "rest_forbidden", undefined, organizer.credentials);
    // Its own event is fine.
    await expectJson(post(orderBody(mine), { auth: organizer.credentials }), 201);
  });

  it("refuses an event without dashboard orders", async () => {
    const s = await setup({ event: { add_dashboard_orders_needed: false } });
    await refused(s, orderBody(s), 400, "order_dashboard_disabled");
  });

  it.each([
    ["no name", { name: undefined }],
    ["no email", { email: undefined }],
    ["an empty name", { name: "" }],
    ["a blank email", { email: "  " }],
  ])("refuses %s with order_missing_input", async (_label, override: Json) => {
    const s = await setup();
    const body = orderBody(s, [1], override);
    for (const [k, v] of Object.entries(override)) if (v === undefined) delete body[k];
    await refused(s, body, 400, "order_missing_input", "Mandatory input not available");
  });

  it("refuses an invalid email with order_invalid_email", async () => {
    const s = await setup();
    await refused(s, orderBody(s, [1], { email: "ann.example.com" }), 400, "order_invalid_email", "Invalid emailaddress");
  });

  it.each(["\r\n", "\u0000", "\u007f"])("refuses a name or email holding the control character %j with rest_invalid_param (decisions.md 14)", async (bad) => {
    const s = await setup();
    const name = await refused(s, orderBody(s, [1], { name: `Ann${bad}Bcc: evil@x.com` }), 400, "rest_invalid_param", "Name contains invalid characters");
    expect(name.data.params).toEqual({ name: "Name contains invalid characters" });
    const email = await refused(s, orderBody(s, [1], { email: `ann${bad}@example.com` }), 400, "rest_invalid_param", "Invalid emailaddress");
    expect(email.data.params).toEqual({ email: "Invalid emailaddress" });
  });

  it("refuses a name of 51 characters with order_name_too_long, and takes 50", async () => {
    const s = await setup();
    await refused(s, orderBody(s, [1], { name: "n".repeat(51) }), 400, "order_name_too_long", "Name is too long (Max 50 chars)");
    // However long: the documented message wins over any field cap (decisions.md 14).
    await refused(s, orderBody(s, [1], { name: "n".repeat(1200) }), 400, "order_name_too_long", "Name is too long (Max 50 chars)");
    const huge = `${"a".repeat(60)}@${`${"b".repeat(60)}.`.repeat(18)}com`;
    await refused(s, orderBody(s, [1], { email: huge }), 400, "order_email_too_long", "Emailaddress is too long (Max 100 chars)");
    const ok = await placeOrder(s, [1], { name: "n".repeat(50) });
    expect(ok.name).toHaveLength(50);
  });

  it("refuses an email over 100 characters with order_email_too_long", async () => {
    const s = await setup();
    const email = `${"a".repeat(89)}@example.com`; // 101
    await refused(s, orderBody(s, [1], { email }), 400, "order_email_too_long", "Emailaddress is too long (Max 100 chars)");
  });

  it("refuses an event whose sale has not started", async () => {
    const s = await setup({ event: { timezone: "UTC", start_date: "2099-01-01 00:00:00" } });
    await refused(s, orderBody(s), 400, "order_event_inactive", `Event ${s.event.id} is not active`);
  });

  it("refuses an event whose sale has ended", async () => {
    const s = await setup({ event: { timezone: "UTC", end_date: "2001-01-01 00:00:00" } });
    await refused(s, orderBody(s), 400, "order_event_inactive", `Event ${s.event.id} is not active`);
  });

  it("refuses an event whose event_date has passed when there is no end_date", async () => {
    const s = await setup({ event: { timezone: "UTC", event_date: "2001-01-01 20:00:00" } });
    await refused(s, orderBody(s), 400, "order_event_inactive", `Event ${s.event.id} is not active`);
  });

  it("refuses tickets that leave out a type, naming the first missing one in event order", async () => {
    const s = await setup({
      types: [
        { name: "Early bird", price: 5 },
        { name: "Regular", price: 10 },
        { name: "VIP", price: 50 },
      ],
    });
    await refused(s, { ...orderBody(s), tickets: [{ [s.types[0]!.id]: 1 }] }, 400, "order_missing_ticket_type", "Missing ticket type: Regular");
    await refused(s, { ...orderBody(s), tickets: [{ [s.types[2]!.id]: 1 }] }, 400, "order_missing_ticket_type", "Missing ticket type: Early bird");
  });

  it("refuses an order of nothing with order_no_tickets", async () => {
    const s = await setup({
      types: [
        { name: "A", price: 1 },
        { name: "B", price: 2 },
      ],
    });
    await refused(s, orderBody(s, [0, 0]), 400, "order_no_tickets", "No tickets ordered");
  });

  it("refuses a count outside the type's minimum or maximum with order_wrong_amount", async () => {
    const s = await setup({
      types: [
        { name: "Group", price: 5, minimum_to_order: 3, maximum_to_order: 5 },
        { name: "Single", price: 10 },
      ],
    });
    await refused(s, orderBody(s, [2, 0]), 400, "order_wrong_amount", "Wrong amount for this ticket type: Group");
    await refused(s, orderBody(s, [6, 0]), 400, "order_wrong_amount", "Wrong amount for this ticket type: Group");
    // The minimum applies only above 0.
    await placeOrder(s, [0, 1]);
    await placeOrder(s, [3, 0]);
  });

  it("refuses a type id of another event", async () => {
    const s = await setup();
    const other = await setup();
    const body = { ...orderBody(s), tickets: [...ticketLines(s.types, [1]), { [other.types[0]!.id]: 1 }] };
    const err = await refused(s, body, 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["tickets"]);
  });

  it("refuses a missing required field with order_required_fields", async () => {
    const s = await setup({ fields: [{ name: "Company", is_required: true }, { name: "City" }] });
    await refused(s, orderBody(s, [1], { fields: { [s.fields[1]!.id]: "Utrecht" } }), 400, "order_required_fields", "Required extra input fields not available");
    await refused(s, orderBody(s, [1]), 400, "order_required_fields");
  });

  it("refuses illegal field values with order_illegal_field_value", async () => {
    const s = await setup({
      fields: [
        { name: "Size", type: "select", value: "S,M,L" },
        { name: "Code", min: "3", max: "4" },
        { name: "Day", type: "date", min: "2030-01-01", max: "2030-12-31" },
        { name: "Arrival", type: "time" },
        { name: "Note" },
        { name: "Attendee", is_personalised: true },
      ],
    });
    const [size, code, day, arrival, note, attendee] = s.fields;
    for (const fields of [
      { [size!.id]: "XL" },
      { [code!.id]: "ab" },
      { [code!.id]: "abcde" },
      { [day!.id]: "2031-01-01" },
      { [day!.id]: "01-01-2030" },
      { [arrival!.id]: "25:00" },
      { [note!.id]: "x".repeat(51) },
      { [attendee!.id]: "Ann" },
      { v00000: "unknown field" },
    ]) {
      await refused(s, orderBody(s, [1], { fields }), 400, "order_illegal_field_value", "Illegal value extra input field");
    }
    const ok = await placeOrder(s, [1], {
      fields: { [size!.id]: "L", [code!.id]: "abc", [day!.id]: "2030-06-01", [arrival!.id]: "19:30", [note!.id]: "x".repeat(50) },
    });
    expect(ok.input_fields.fields.map((f: Json) => f.name)).toEqual(["Size", "Code", "Day", "Arrival", "Note"]);
  });

  it("refuses a passe-partout whose group has no other events with order_no_child_events", async () => {
    const s = await setup({ event: { group_type: 3, event_group: unique("pp-group-") } });
    await refused(s, orderBody(s), 400, "order_no_child_events", "No child events found for passe-partout");
  });

  it("a passe-partout issues tickets for its group's other events that are not passe-partouts, none for itself (decisions.md 15); other passe-partouts get nothing", async () => {
    const group = unique("pp-pair-");
    const day = await setup({ event: { group_type: 1, event_group: group, stock: 10 } });
    const other = await setup({ event: { group_type: 3, event_group: group, stock: 10 } });
    const pass = await setup({ event: { group_type: 3, event_group: group } });
    const placed = await placeOrder(pass, [2]);
    const issued = await db.select({ eventId: tickets.eventId }).from(tickets).where(eq(tickets.orderId, placed.id));
    const perEvent = (id: number) => issued.filter((t) => t.eventId === id).length;
    expect([perEvent(pass.event.id), perEvent(day.event.id), perEvent(other.event.id)]).toEqual([0, 2, 0]);
    // P's own stock rules apply as usual (decisions.md 13): its sold counts the units ordered on it.
    const sold = async (id: number) => (await expectJson(call("GET", `/admin/events/${id}`), 200)).sold;
    expect([await sold(pass.event.id), await sold(day.event.id), await sold(other.event.id)]).toEqual([2, 2, 0]);
    // Re-issued tickets follow the same rule.
    await expectJson(call("DELETE", `/admin/tickets/${placed.id}`), 200);
    const again = await expectJson(call("POST", `/admin/tickets/${placed.id}`), 201);
    const reissued = await db.select({ eventId: tickets.eventId }).from(tickets).where(eq(tickets.orderId, placed.id));
    expect(again.tickets).toHaveLength(2);
    expect(reissued.filter((t) => t.eventId === other.event.id)).toEqual([]);
    expect(reissued.filter((t) => t.eventId === pass.event.id)).toEqual([]);
    expect([await sold(pass.event.id), await sold(day.event.id), await sold(other.event.id)]).toEqual([2, 2, 0]);
  });

  it("refuses when stock runs out with 409, writing nothing", async () => {
    const s = await setup({ types: [{ name: "Limited", price: 10, stock_control: true, stock: 2 }] });
    await refused(s, orderBody(s, [3]), 409, "order_stock_unavailable", "Not enough stock available for ticket-type: Limited (2)");
    // Nothing stays held by the refused order: the two units are still there.
    await placeOrder(s, [2]);
    const err = await expectError(post(orderBody(s, [1])), 409, "order_stock_unavailable");
    expect(err.message).toBe("Not enough stock available for ticket-type: Limited (0)");
    expect(await ordersInD1(s.event.id)).toBe(1);
    expect(await soldOf(s)).toEqual({ event: 2, types: [2] });
  });

  it("answers the earlier rule when several fail", async () => {
    const s = await setup({
      event: { timezone: "UTC", start_date: "2099-01-01 00:00:00" },
      types: [
        { name: "A", price: 1, maximum_to_order: 1 },
        { name: "B", price: 2 },
      ],
      fields: [{ name: "Company", is_required: true }],
    });
    const missingType = { tickets: [{ [s.types[0]!.id]: 5 }] };
    // bad email + missing type -> email
    await refused(s, orderBody(s, [1], { email: "nope", ...missingType }), 400, "order_invalid_email");
    // missing name + bad email -> missing input
    await refused(s, orderBody(s, [1], { name: "", email: "nope" }), 400, "order_missing_input");
    // long name + sale not started -> name
    await refused(s, orderBody(s, [1], { name: "n".repeat(51) }), 400, "order_name_too_long");
    // sale not started + missing type -> inactive
    await refused(s, orderBody(s, [1], missingType), 400, "order_event_inactive");

    const open = await setup({
      types: [
        { name: "A", price: 1, maximum_to_order: 1 },
        { name: "B", price: 2 },
      ],
      fields: [{ name: "Company", is_required: true }],
    });
    // missing type + wrong amount + missing required field -> missing type
    await refused(open, orderBody(open, [5], { tickets: [{ [open.types[0]!.id]: 5 }] }), 400, "order_missing_ticket_type", "Missing ticket type: B");
    // wrong amount + missing required field -> wrong amount
    await refused(open, orderBody(open, [5, 0]), 400, "order_wrong_amount", "Wrong amount for this ticket type: A");
    // no tickets + missing required field -> no tickets
    await refused(open, orderBody(open, [0, 0]), 400, "order_no_tickets");
    // missing required field + amount above list price -> required fields
    await refused(open, orderBody(open, [1, 0], { amount: "99" }), 400, "order_required_fields");
    // dashboard orders off + bad email -> dashboard
    const off = await setup({ event: { add_dashboard_orders_needed: false } });
    await refused(off, orderBody(off, [1], { email: "nope" }), 400, "order_dashboard_disabled");
  });
});

describe("POST /admin/orders: Idempotency-Key", () => {
  it("replays the first answer for the same key and body, creating one order", async () => {
    const s = await setup();
    const key = unique("idem-");
    const first = await post(orderBody(s), { headers: { "Idempotency-Key": key } });
    const created = await expectJson(first, 201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    // The same body with its keys in another order is the same body.
    const { tickets: t, email, name, event_id } = orderBody(s);
    const again = await post({ tickets: t, email, event_id, name }, { headers: { "Idempotency-Key": key } });
    const replayed = await expectJson(again, 201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(`${BASE}/admin/orders/${created.id}`);
    expect(replayed).toStrictEqual(created);
    expect(await ordersInD1(s.event.id)).toBe(1);
    expect(await soldOf(s)).toEqual({ event: 1, types: [1] });

    // Without a key, or with another key, the same body is a new order.
    await expectJson(post(orderBody(s)), 201);
    await expectJson(post(orderBody(s), { headers: { "Idempotency-Key": unique("idem-") } }), 201);
    expect(await ordersInD1(s.event.id)).toBe(3);
  });

  it("refuses the same key with a different body: 409 idempotency_key_reused", async () => {
    const s = await setup();
    const key = unique("idem-");
    await expectJson(post(orderBody(s, [1]), { headers: { "Idempotency-Key": key } }), 201);
    await expectError(post(orderBody(s, [2]), { headers: { "Idempotency-Key": key } }), 409, "idempotency_key_reused");
    expect(await ordersInD1(s.event.id)).toBe(1);
  });

  it("replays a 4xx answer too, even when the request would now succeed", async () => {
    const s = await setup({ event: { add_dashboard_orders_needed: false } });
    const key = unique("idem-");
    const first = await expectError(post(orderBody(s), { headers: { "Idempotency-Key": key } }), 400, "order_dashboard_disabled");
    await expectJson(call("PUT", `/admin/events/${s.event.id}`, { body: { add_dashboard_orders_needed: true } }), 200);

    const again = await post(orderBody(s), { headers: { "Idempotency-Key": key } });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await expectError(again, 400, "order_dashboard_disabled")).toStrictEqual(first);
    expect(await ordersInD1(s.event.id)).toBe(0);
    // A validation failure is an answer like any other.
    const badKey = unique("idem-");
    await expectError(post({ ...orderBody(s), bogus: 1 }, { headers: { "Idempotency-Key": badKey } }), 400, "rest_invalid_param");
    const badAgain = await post({ ...orderBody(s), bogus: 1 }, { headers: { "Idempotency-Key": badKey } });
    expect(badAgain.headers.get("Idempotent-Replayed")).toBe("true");
    await expectError(badAgain, 400, "rest_invalid_param");
    // A fresh key runs the request again.
    await expectJson(post(orderBody(s), { headers: { "Idempotency-Key": unique("idem-") } }), 201);
  });

  it("scopes keys to the route", async () => {
    const s = await setup();
    const key = unique("idem-");
    // Used first on another POST route, the key means nothing to the orders route, and the reverse.
    const event = await expectJson(call("POST", "/admin/events", { body: { event_name: unique("Other ") }, headers: { "Idempotency-Key": key } }), 201);
    const res = await post(orderBody(s), { headers: { "Idempotency-Key": key } });
    const created = await expectJson(res, 201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(created.event_id).toBe(s.event.id);
    const res2 = await call("POST", "/admin/events", { body: { event_name: unique("Another ") }, headers: { "Idempotency-Key": key } });
    const event2 = await expectJson(res2, 201);
    expect(res2.headers.get("Idempotent-Replayed")).toBeNull();
    expect(event2.id).not.toBe(event.id);
  });

  it("creates one order when duplicates with the same key arrive at once", async () => {
    const s = await setup();
    const key = unique("idem-");
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(orderBody(s), { headers: { "Idempotency-Key": key } })));
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as Json })));
    const created = bodies.filter((b) => b.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((b) => b.body.id)).size).toBe(1);
    for (const other of bodies.filter((b) => b.status !== 201)) {
      expect(other).toMatchObject({ status: 409, body: { code: "idempotency_in_progress" } });
    }
    expect(await ordersInD1(s.event.id)).toBe(1);
    expect(await soldOf(s)).toEqual({ event: 1, types: [1] });
  });

  it("never replays an order to a user who may not see its event", async () => {
    const mine = await setup();
    const other = await setup();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const key = unique("idem-");
    const created = await expectJson(post(orderBody(other), { headers: { "Idempotency-Key": key } }), 201);
    const res = await post(orderBody(other), { auth: organizer.credentials, headers: { "Idempotency-Key": key } });
    const text = await res.clone().text();
    expect(text).not.toContain(created.uid);
    await expectError(res, 403, "rest_forbidden");
  });

  it("refuses a malformed key", async () => {
    const s = await setup();
    const err = await expectError(post(orderBody(s), { headers: { "Idempotency-Key": "x".repeat(256) } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["Idempotency-Key"]);
    expect(await ordersInD1(s.event.id)).toBe(0);
  });
});

describe("GET /admin/orders", () => {
  it("filters by event_id (comma-separated ids) and answers full orders", async () => {
    const [a, b, c] = [await setup(), await setup(), await setup()];
    const oa = await placeOrder(a);
    const ob = await placeOrder(b);
    await placeOrder(c);
    const res = await call("GET", `/admin/orders?event_id=${a.event.id},${b.event.id}`);
    const list = await expectJson<Json[]>(res, 200);
    expect(ids(list)).toEqual([oa.id, ob.id]);
    expect(list[0]).toStrictEqual(oa);
    expect(res.headers.get("X-WP-Total")).toBe("2");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
    expect(res.headers.get("Link")).toBeNull();
  });

  it("pages with per_page, page and offset, with X-WP-Total, X-WP-TotalPages and Link", async () => {
    const s = await setup();
    const placed = [];
    for (let i = 0; i < 5; i++) placed.push(await placeOrder(s));
    const all = ids(placed);
    const q = `event_id=${s.event.id}&per_page=2`;

    const p1 = await call("GET", `/admin/orders?${q}`);
    expect(ids(await expectJson<Json[]>(p1, 200))).toEqual(all.slice(0, 2));
    expect(p1.headers.get("X-WP-Total")).toBe("5");
    expect(p1.headers.get("X-WP-TotalPages")).toBe("3");
    expect(p1.headers.get("Link")).toBe(`<${BASE}/admin/orders?${q}&page=2>; rel="next"`);

    const p2 = await call("GET", `/admin/orders?${q}&page=2`);
    expect(ids(await expectJson<Json[]>(p2, 200))).toEqual(all.slice(2, 4));
    expect(p2.headers.get("Link")).toBe(`<${BASE}/admin/orders?${q}&page=1>; rel="prev", <${BASE}/admin/orders?${q}&page=3>; rel="next"`);

    const p3 = await call("GET", `/admin/orders?${q}&page=3`);
    expect(ids(await expectJson<Json[]>(p3, 200))).toEqual(all.slice(4));
    expect(p3.headers.get("Link")).toBe(`<${BASE}/admin/orders?${q}&page=2>; rel="prev"`);

    const past = await call("GET", `/admin/orders?${q}&page=9`);
    expect(await expectJson(past, 200)).toEqual([]);
    expect(past.headers.get("X-WP-Total")).toBe("5");
    expect(past.headers.get("Link")).toBe(`<${BASE}/admin/orders?${q}&page=3>; rel="prev"`);

    const off = await call("GET", `/admin/orders?${q}&offset=1`);
    expect(ids(await expectJson<Json[]>(off, 200))).toEqual(all.slice(1, 3));
    expect(off.headers.get("Link")).toContain('rel="next"');
    expect(off.headers.get("Link")).toContain("offset=3");

    const none = await call("GET", `/admin/orders?event_id=${(await setup()).event.id}`);
    expect(await expectJson(none, 200)).toEqual([]);
    expect(none.headers.get("X-WP-Total")).toBe("0");
    expect(none.headers.get("X-WP-TotalPages")).toBe("0");
  });

  it("defaults per_page to 10", async () => {
    const s = await setup();
    for (let i = 0; i < 11; i++) await placeOrder(s);
    const res = await call("GET", `/admin/orders?event_id=${s.event.id}`);
    expect(await expectJson<Json[]>(res, 200)).toHaveLength(10);
    expect(res.headers.get("X-WP-Total")).toBe("11");
    expect(res.headers.get("X-WP-TotalPages")).toBe("2");
  });

  it.each(["per_page=0", "per_page=101", "per_page=x", "page=0", "orderby=name", "order=up", "event_id=a", "include=1;2", "offset=-1"])(
    "refuses %s with 400",
    async (param) => {
      const err = await expectError(call("GET", `/admin/orders?${param}`), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual([param.split("=")[0]]);
    },
  );

  it("searches email as a case-insensitive substring", async () => {
    const s = await setup();
    const tag = unique("Srch").toLowerCase();
    const a = await placeOrder(s, [1], { email: `Ann.${tag}@Example.com` });
    const b = await placeOrder(s, [1], { email: `bob.${tag}@example.org` });
    await placeOrder(s, [1], { email: "carol@example.net" });
    const q = (search: string) => call("GET", `/admin/orders?event_id=${s.event.id}&search=${encodeURIComponent(search)}`);
    expect(ids(await expectJson(q(tag.toUpperCase()), 200))).toEqual([a.id, b.id]);
    expect(ids(await expectJson(q(`ANN.${tag}`), 200))).toEqual([a.id]);
    expect(ids(await expectJson(q("EXAMPLE.ORG"), 200))).toEqual([b.id]);
    expect(ids(await expectJson(q("Ann Smith"), 200))).toEqual([]); // the name is not searched
    for (const wildcard of ["%", "_", "*"]) expect(await expectJson(q(wildcard), 200)).toEqual([]); // no pattern syntax
  });

  it("combines include and exclude", async () => {
    const s = await setup();
    const [a, b, c] = [await placeOrder(s), await placeOrder(s), await placeOrder(s)];
    expect(ids(await expectJson(call("GET", `/admin/orders?include=${c.id},${a.id}`), 200))).toEqual([a.id, c.id]);
    expect(ids(await expectJson(call("GET", `/admin/orders?event_id=${s.event.id}&exclude=${b.id}`), 200))).toEqual([a.id, c.id]);
    expect(ids(await expectJson(call("GET", `/admin/orders?include=${a.id},${b.id}&exclude=${b.id}`), 200))).toEqual([a.id]);
  });

  it("orders by id, event_id and email, ascending or descending", async () => {
    const first = await setup();
    const second = await setup();
    const o1 = await placeOrder(second, [1], { email: "carol@example.com" });
    const o2 = await placeOrder(first, [1], { email: "Bob@example.com" });
    const o3 = await placeOrder(second, [1], { email: "alice@example.com" });
    const o4 = await placeOrder(first, [1], { email: "dave@example.com" });
    const base = `/admin/orders?event_id=${first.event.id},${second.event.id}`;
    const get = async (q: string) => ids(await expectJson(call("GET", `${base}&${q}`), 200));
    expect(await get("orderby=id")).toEqual([o1.id, o2.id, o3.id, o4.id]);
    expect(await get("orderby=id&order=desc")).toEqual([o4.id, o3.id, o2.id, o1.id]);
    expect(await get("order=asc")).toEqual([o1.id, o2.id, o3.id, o4.id]);
    expect(await get("orderby=event_id")).toEqual([o2.id, o4.id, o1.id, o3.id]);
    expect(await get("orderby=event_id&order=desc")).toEqual([o3.id, o1.id, o4.id, o2.id]);
    expect(await get("orderby=email")).toEqual([o3.id, o2.id, o1.id, o4.id]);
    expect(await get("orderby=email&order=desc")).toEqual([o4.id, o1.id, o2.id, o3.id]);
  });

  it("keeps only the fields named in _fields", async () => {
    const s = await setup();
    const o = await placeOrder(s);
    const list = await expectJson<Json[]>(call("GET", `/admin/orders?event_id=${s.event.id}&_fields=id,email,total,nothing`), 200);
    expect(list).toStrictEqual([{ id: o.id, email: o.email, total: o.total }]);
    const withLinks = await expectJson<Json[]>(call("GET", `/admin/orders?event_id=${s.event.id}&_fields=id,_links`), 200);
    expect(withLinks).toStrictEqual([{ id: o.id, _links: o._links }]);
  });

  it("embeds the order's tickets response under _embedded.tickets with _embed", async () => {
    const s = await setup({
      types: [
        { name: "Regular", price: 10 },
        { name: "VIP", price: 20 },
      ],
    });
    const o = await placeOrder(s, [2, 1]);
    const orderTickets = await expectJson(call("GET", `/admin/tickets/${o.id}`), 200);
    expect(orderTickets.tickets).toHaveLength(3);

    for (const embed of ["_embed", "_embed=1", "_embed=tickets"]) {
      const [embedded] = await expectJson<Json[]>(call("GET", `/admin/orders?include=${o.id}&${embed}`), 200);
      expect(embedded).toStrictEqual({ ...o, _embedded: { tickets: [orderTickets] } });
    }
    const [plain] = await expectJson<Json[]>(call("GET", `/admin/orders?include=${o.id}`), 200);
    expect(plain).not.toHaveProperty("_embedded");
    const [other] = await expectJson<Json[]>(call("GET", `/admin/orders?include=${o.id}&_embed=author`), 200);
    expect(other).not.toHaveProperty("_embedded");
    // _fields keeps _embedded when _embed asks for it.
    const [picked] = await expectJson<Json[]>(call("GET", `/admin/orders?include=${o.id}&_embed&_fields=id`), 200);
    expect(picked).toStrictEqual({ id: o.id, _embedded: { tickets: [orderTickets] } });
    // GET of one order embeds too.
    const one = await expectJson(call("GET", `/admin/orders/${o.id}?_embed`), 200);
    expect(one._embedded).toStrictEqual({ tickets: [orderTickets] });
  });

  it("shows an organizer only the orders of its events; an event_id filter naming another event is 403", async () => {
    const mine = await setup();
    const other = await setup();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const [m1, m2] = [await placeOrder(mine), await placeOrder(mine)];
    await placeOrder(other);

    const res = await call("GET", "/admin/orders?per_page=100", { auth: organizer.credentials });
    const list = await expectJson<Json[]>(res, 200);
    expect(ids(list)).toEqual([m1.id, m2.id]);
    expect(res.headers.get("X-WP-Total")).toBe("2");

    await expectJson(call("GET", `/admin/orders?event_id=${mine.event.id}`, { auth: organizer.credentials }), 200);
    await expectError(call("GET", `/admin/orders?event_id=${other.event.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/orders?event_id=${mine.event.id},${other.event.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");
    // include cannot reach around the scope.
    const o = await placeOrder(other);
    expect(await expectJson(call("GET", `/admin/orders?include=${o.id}`, { auth: organizer.credentials }), 200)).toEqual([]);
  });
});

describe("GET /admin/orders/<id>", () => {
  it("answers the order, with _fields", async () => {
    const s = await setup();
    const o = await placeOrder(s);
    expect(await expectJson(call("GET", `/admin/orders/${o.id}`), 200)).toStrictEqual(o);
    expect(await expectJson(call("GET", `/admin/orders/${o.id}?_fields=uid,payment_status`), 200)).toStrictEqual({
      uid: o.uid,
      payment_status: "dashboard",
    });
  });

  it.each(["987654321", "0", "abc", "-1"])("answers 404 rest_order_invalid_id for %s", async (id) => {
    await expectError(call("GET", `/admin/orders/${id}`), 404, "rest_order_invalid_id");
  });
});

describe("PUT /admin/orders/<id>", () => {
  it("changes custom_status, name and email and answers exactly those with _links", async () => {
    const s = await setup();
    const o = await placeOrder(s);
    const tag = unique("put").toLowerCase();
    const body = await expectJson(
      call("PUT", `/admin/orders/${o.id}`, { body: { custom_status: "checked", name: " Bob Jones ", email: `Bob.${tag}@Example.com` } }),
      200,
    );
    expect(body).toStrictEqual({
      custom_status: "checked",
      name: "Bob Jones",
      email: `Bob.${tag}@Example.com`,
      _links: o._links,
    });
    const read = await expectJson(call("GET", `/admin/orders/${o.id}`), 200);
    expect(read).toStrictEqual({ ...o, custom_status: "checked", name: "Bob Jones", email: `Bob.${tag}@Example.com` });
    // The new email is what search finds.
    expect(ids(await expectJson(call("GET", `/admin/orders?event_id=${s.event.id}&search=${tag.toUpperCase()}`), 200))).toEqual([o.id]);
    // The order's tickets show the new contact.
    expect(await expectJson(call("GET", `/admin/tickets/${o.id}`), 200)).toMatchObject({ name: "Bob Jones", email: `Bob.${tag}@Example.com` });
  });

  it("changes one field and keeps the others", async () => {
    const s = await setup();
    const o = await placeOrder(s);
    const body = await expectJson(call("PUT", `/admin/orders/${o.id}`, { body: { custom_status: "vip" } }), 200);
    expect(body).toMatchObject({ custom_status: "vip", name: o.name, email: o.email });
    const empty = await expectJson(call("PUT", `/admin/orders/${o.id}`, { body: {} }), 200);
    expect(empty).toMatchObject({ custom_status: "vip", name: o.name, email: o.email });
  });

  it("accepts back everything GET showed, and refuses a changed read-only field naming it", async () => {
    const s = await setup({ fields: [{ name: "Company" }] });
    const o = await placeOrder(s, [2], { fields: { [s.fields[0]!.id]: "ACME" } });
    const read = await expectJson(call("GET", `/admin/orders/${o.id}`), 200);
    const back = await expectJson(call("PUT", `/admin/orders/${o.id}`, { body: { ...read, name: "Changed" } }), 200);
    expect(back.name).toBe("Changed");

    const changes: [string, unknown][] = [
      ["id", o.id + 1],
      ["event_id", o.event_id + 1],
      ["total", 1],
      ["discount", 1],
      ["num_tickets", 1],
      ["payment_status", "paid"],
      ["payment_id", "tr_123"],
      ["uid", "x".repeat(40)],
      ["created_at", "2001-01-01 00:00:00"],
      ["event_date", "2001-01-01 00:00:00"],
      ["currency", "USD"],
      ["ip_address", "192.0.2.1"],
      ["input_fields", { ...o.input_fields, fields: [{ name: "Company", value: "Other" }] }],
    ];
    for (const [field, value] of changes) {
      const err = await expectError(call("PUT", `/admin/orders/${o.id}`, { body: { ...read, [field]: value } }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!), field).toEqual([field]);
    }
    expect(await expectJson(call("GET", `/admin/orders/${o.id}`), 200)).toStrictEqual({ ...read, name: "Changed" });
  });

  it.each([
    ["email", { email: "not-an-email" }],
    ["email", { email: `${"a".repeat(89)}@example.com` }],
    ["name", { name: "" }],
    ["name", { name: "n".repeat(51) }],
    ["custom_status", { custom_status: 5 }],
    ["custom_status", { custom_status: "s".repeat(101) }],
    ["bogus", { bogus: "x" }],
  ])("refuses an invalid %s with 400, changing nothing", async (field, body) => {
    const s = await setup();
    const o = await placeOrder(s);
    const err = await expectError(call("PUT", `/admin/orders/${o.id}`, { body }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual([field]);
    expect(await expectJson(call("GET", `/admin/orders/${o.id}`), 200)).toStrictEqual(o);
  });

  it("refuses a name or email holding control characters, changing nothing (decisions.md 14)", async () => {
    const s = await setup();
    const o = await placeOrder(s);
    for (const bad of ["\r\n", "\u0000", "\u007f"]) {
      const name = await expectError(call("PUT", `/admin/orders/${o.id}`, { body: { name: `Bob${bad}Bcc: evil@x.com` } }), 400, "rest_invalid_param");
      expect(name.data.params).toEqual({ name: "Name contains invalid characters" });
      const email = await expectError(call("PUT", `/admin/orders/${o.id}`, { body: { email: `bob${bad}@example.com` } }), 400, "rest_invalid_param");
      expect(email.data.params).toEqual({ email: "must be a valid email address" });
    }
    expect(await expectJson(call("GET", `/admin/orders/${o.id}`), 200)).toStrictEqual(o);
  });

  it("answers 404 rest_order_invalid_id for an unknown order", async () => {
    await expectError(call("PUT", "/admin/orders/987654321", { body: { name: "x" } }), 404, "rest_order_invalid_id");
  });
});

describe("DELETE /admin/orders/<id>", () => {
  it("deletes the order and its tickets, answers previous, and gives the units back", async () => {
    const s = await setup({
      types: [
        { name: "Limited", price: 10, stock_control: true, stock: 3 },
        { name: "Free", price: 0 },
      ],
    });
    const o = await placeOrder(s, [3, 1]);
    await expectJson(call("PUT", `/admin/orders/${o.id}`, { body: { custom_status: "cancelled by phone" } }), 200);
    expect(await soldOf(s)).toEqual({ event: 4, types: [3, 1] });
    expect(await ticketsInD1(o.id)).toBe(4);
    // Sold out now.
    await expectError(post(orderBody(s, [1, 0])), 409, "order_stock_unavailable");

    const res = await expectJson(call("DELETE", `/admin/orders/${o.id}`), 200);
    expect(res).toStrictEqual({ deleted: true, previous: { custom_status: "cancelled by phone", name: o.name, email: o.email } });

    await expectError(call("GET", `/admin/orders/${o.id}`), 404, "rest_order_invalid_id");
    await expectError(call("GET", `/admin/tickets/${o.id}`), 404, "rest_order_invalid_id");
    await expectError(call("DELETE", `/admin/orders/${o.id}`), 404, "rest_order_invalid_id");
    expect(await ticketsInD1(o.id)).toBe(0);
    expect(await ordersInD1(s.event.id)).toBe(0);
    expect(await soldOf(s)).toEqual({ event: 0, types: [0, 0] });

    // The units can be sold again.
    const again = await placeOrder(s, [3, 0]);
    expect(again.num_tickets).toBe(3);
    expect(await soldOf(s)).toEqual({ event: 3, types: [3, 0] });
  });

  it("logs that a deleted paid order was not refunded", async () => {
    const s = await setup({ types: [{ name: "Regular", price: "12.50" }] });
    const o = await placeOrder(s, [2]);
    await db.update(orders).set({ paymentStatus: "paid", paymentId: "tr_test_1" }).where(eq(orders.id, o.id));
    const before = await soldOf(s);

    expect(await expectJson(call("DELETE", `/admin/orders/${o.id}`), 200)).toMatchObject({ deleted: true });
    const entries = await db.select().from(logs).where(eq(logs.orderId, o.id));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ eventId: s.event.id, orderId: o.id });
    expect(entries[0]!.description).toMatch(/not refunded/i);
    expect(entries[0]!.description).toContain("25.00");
    // A paid order is final: its units are given back too.
    expect(await soldOf(s)).toEqual({ event: before.event - 2, types: [before.types[0]! - 2] });
  });

  it("gives the units back once when the same order is deleted twice at once", async () => {
    const s = await setup({
      types: [
        { name: "Regular", price: 10 },
        { name: "VIP", price: 50 },
      ],
    });
    const keep = await placeOrder(s, [1, 1]);
    const o = await placeOrder(s, [2, 1]);
    await db.update(orders).set({ paymentStatus: "paid" }).where(eq(orders.id, o.id));
    expect(await soldOf(s)).toEqual({ event: 5, types: [3, 2] });

    const answers = await Promise.all([1, 2, 3].map(() => call("DELETE", `/admin/orders/${o.id}`)));
    const statuses = answers.map((r) => r.status).sort();
    expect.soft(statuses, "one delete succeeds, the others find no order").toEqual([200, 404, 404]);
    // Only the order that is left still counts; the paid order's deletion is logged once.
    expect.soft(await soldOf(s), "sold after the deletes").toEqual({ event: 2, types: [1, 1] });
    expect.soft(await db.select().from(logs).where(eq(logs.orderId, o.id)), "log entries").toHaveLength(1);
    expect(await expectJson(call("GET", `/admin/orders/${keep.id}`), 200)).toStrictEqual(keep);
  });

  it("writes no log entry for a dashboard order", async () => {
    const s = await setup();
    const o = await placeOrder(s);
    await expectJson(call("DELETE", `/admin/orders/${o.id}`), 200);
    const [row] = await db
      .select({ n: count() })
      .from(logs)
      .where(and(eq(logs.orderId, o.id), eq(logs.eventId, s.event.id)));
    expect(row!.n).toBe(0);
  });

  it("answers 404 rest_order_invalid_id for an unknown order", async () => {
    await expectError(call("DELETE", "/admin/orders/987654321"), 404, "rest_order_invalid_id");
  });
});

describe("authorisation", () => {
  it("gives an organizer its own events' orders and 403 on others for GET, PUT and DELETE", async () => {
    const mine = await setup();
    const other = await setup();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const auth = organizer.credentials;
    const theirs = await placeOrder(other);

    await expectError(call("GET", `/admin/orders/${theirs.id}`, { auth }), 403, "rest_forbidden");
    await expectError(call("PUT", `/admin/orders/${theirs.id}`, { auth, body: { name: "Hijack" } }), 403, "rest_forbidden");
    await expectError(call("DELETE", `/admin/orders/${theirs.id}`, { auth }), 403, "rest_forbidden");
    expect(await expectJson(call("GET", `/admin/orders/${theirs.id}`), 200)).toStrictEqual(theirs);

    const own = await expectJson(post(orderBody(mine), { auth }), 201);
    expect(await expectJson(call("GET", `/admin/orders/${own.id}`, { auth }), 200)).toStrictEqual(own);
    expect((await expectJson(call("PUT", `/admin/orders/${own.id}`, { auth, body: { name: "Mine" } }), 200)).name).toBe("Mine");
    expect((await expectJson(call("DELETE", `/admin/orders/${own.id}`, { auth }), 200)).deleted).toBe(true);
  });

  it("answers another organizer's order or event with a 403 that names nothing (decisions.md 15)", async () => {
    const mine = await setup();
    const other = await setup();
    const organizer = await createUser("organizer", { authorised_events: [mine.event.id] });
    const auth = organizer.credentials;
    const theirs = await placeOrder(other);
    const refusals = [
      call("GET", `/admin/orders/${theirs.id}`, { auth }),
      call("PUT", `/admin/orders/${theirs.id}`, { auth, body: { name: "Hijack" } }),
      call("DELETE", `/admin/orders/${theirs.id}`, { auth }),
      call("GET", `/admin/orders?event_id=${mine.event.id},${other.event.id}`, { auth }),
      post(orderBody(other), { auth }),
      call("GET", `/admin/events/${other.event.id}`, { auth }),
    ];
    for (const res of refusals) {
      const err = await expectError(res, 403, "rest_forbidden");
      expect(err.message).toBe("Sorry, you are not allowed to do that.");
      expect(JSON.stringify(err)).not.toContain(String(other.event.id));
    }
  });

  it.each([
    ["GET", "/admin/orders"],
    ["POST", "/admin/orders"],
    ["GET", "/admin/orders/1"],
    ["PUT", "/admin/orders/1"],
    ["DELETE", "/admin/orders/1"],
  ])("%s %s needs the API key and Basic credentials", async (method, path) => {
    const body = method === "POST" || method === "PUT" ? {} : undefined;
    await expectError(call(method, path, { key: null, body }), 401, "rest_forbidden_api_key");
    await expectError(call(method, path, { key: "wrong-key-123", body }), 401, "rest_forbidden_api_key");
    const res = await call(method, path, { auth: null, body });
    expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
    await expectError(res, 401, "rest_not_logged_in");
    await expectError(call(method, path, { auth: { username: "admin", password: "wrong" }, body }), 401, "incorrect_password");
  });
});

describe("POST /admin/orders: at most 1000 tickets an order (decisions.md 15)", () => {
  const TOO_MANY = "An order holds at most 1000 tickets";

  async function ticketsAt(eventId: number): Promise<number> {
    const [row] = await db.select({ n: count() }).from(tickets).where(eq(tickets.eventId, eventId));
    return row!.n;
  }

  /** Refused with the rule's answer; no order, no ticket, no sale at any of the events. */
  async function expectTooMany(s: Setup, body: Json, others: Setup[] = []) {
    const soldBefore = await Promise.all([s, ...others].map(soldOf));
    const err = await expectError(post(body), 400, "rest_invalid_param");
    expect(err.message).toBe(TOO_MANY);
    expect(err.data.params).toEqual({ tickets: TOO_MANY });
    for (const e of [s, ...others]) {
      expect(await ordersInD1(e.event.id)).toBe(0);
      expect(await ticketsAt(e.event.id)).toBe(0);
    }
    expect(await Promise.all([s, ...others].map(soldOf))).toEqual(soldBefore);
  }

  it("refuses 1,001 tickets whatever maximum_to_order says, and issues 1,000", async () => {
    const s = await setup({
      event: { stock: 5000 },
      types: [
        { name: "Regular", price: 10, maximum_to_order: 0 },
        { name: "Crew", price: 0, maximum_to_order: 5000, stock_control: true, stock: 5000 },
      ],
    });
    await expectTooMany(s, orderBody(s, [1001, 0]));
    await expectTooMany(s, orderBody(s, [500, 501]));
    await expectTooMany(s, orderBody(s, [10_000, 0]));
    const placed = await placeOrder(s, [500, 500]);
    expect(await ticketsInD1(placed.id)).toBe(1000);
  });

  it("counts a passe-partout's tickets at every child event", async () => {
    const group = unique("pp-cap-");
    const days = [await setup({ event: { group_type: 1, event_group: group } }), await setup({ event: { group_type: 1, event_group: group } })];
    const pass = await setup({ event: { group_type: 3, event_group: group }, types: [{ name: "Pass", price: 50, maximum_to_order: 0 }] });
    await expectTooMany(pass, orderBody(pass, [501]), days);
    await placeOrder(pass, [300]);
  });
});
