import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ticketTypes } from "../../../src/db/schema";
import { BASE, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createInputField, createScanKey, createTicketType, db, insertOrder, insertTemplate } from "../../helpers/catalogue";

/** Ticket type endpoints: ticketing-api.md "Ticket type" / "Ticket types"; decisions.md sections 3, 12 and 13. */

const ID = /^v[0-9a-f]{5}$/;

const listPath = (eventId: number | string) => `/admin/events/${eventId}/ticket-types`;
const typePath = (eventId: number | string, typeId: string) => `${listPath(eventId)}/${typeId}`;

/** Every test gets its own event: storage is shared by the tests of this file. */
async function newEvent(auth?: Credentials): Promise<number> {
  const event = await createEvent({ event_name: unique("Event ") }, auth);
  return event.id as number;
}

function post(eventId: number | string, body: unknown, auth?: Credentials) {
  return call("POST", listPath(eventId), { body, auth });
}

function put(eventId: number | string, typeId: string, body: unknown, auth?: Credentials) {
  return call("PUT", typePath(eventId, typeId), { body, auth });
}

function getType(eventId: number | string, typeId: string) {
  return expectJson(call("GET", typePath(eventId, typeId)), 200);
}

function listTypes(eventId: number | string) {
  return expectJson<any[]>(call("GET", listPath(eventId)), 200);
}

/** `sold` is read-only on the API; tests that need sold tickets write the counter directly. */
async function setSold(eventId: number, typeId: string, sold: number) {
  await db
    .update(ticketTypes)
    .set({ sold })
    .where(and(eq(ticketTypes.eventId, eventId), eq(ticketTypes.id, typeId)));
}

async function expectInvalid(res: Promise<Response>, field: string, label?: string) {
  const err = await expectError(res, 400, "rest_invalid_param");
  expect(Object.keys(err.data.params!), label).toContain(field);
  return err;
}

function links(eventId: number, typeId: string) {
  return {
    self: [{ href: `${BASE}${typePath(eventId, typeId)}` }],
    collection: [{ href: `${BASE}${listPath(eventId)}` }],
  };
}

describe("POST /admin/events/<event_id>/ticket-types", () => {
  it("creates a ticket type from name and price alone: 201, Location and every default", async () => {
    const eventId = await newEvent();
    const res = await post(eventId, { name: "Regular", price: 12.5 });
    const body = await expectJson(res, 201);
    expect(body.id).toMatch(ID);
    expect(res.headers.get("Location")).toBe(`${BASE}${typePath(eventId, body.id)}`);
    const expected = {
      id: body.id,
      name: "Regular",
      price: 12.5,
      volume_price: [],
      vat: 0,
      stock_control: false,
      sold: 0,
      minimum_to_order: 0,
      maximum_to_order: 10,
      is_counted: true,
      show_remaining: false,
      attachment_id: 0,
      personalise: "",
      layout: "",
      _links: links(eventId, body.id),
    };
    const { sold: _sold, ...createdPart } = expected;
    expect(body).toMatchObject(createdPart);
    expect(body).not.toHaveProperty("stock");

    const read = await getType(eventId, body.id);
    expect(read).toEqual(expected);
    expect(read).not.toHaveProperty("stock");
  });

  it('leaves sold out of the create response (spec: "absent from the create response")', async () => {
    const eventId = await newEvent();
    const body = await expectJson(post(eventId, { name: "Regular", price: 10 }), 201);
    expect(body).not.toHaveProperty("sold");
    const { sold, ...read } = await getType(eventId, body.id);
    expect(sold).toBe(0);
    expect(Object.keys(body).sort()).toEqual(Object.keys(read).sort());
  });

  it("takes every writable field on create and shows it back", async () => {
    const eventId = await newEvent();
    await createInputField(eventId, { name: "Company", is_personalised: true });
    const body = await expectJson(
      post(eventId, {
        name: "Early bird",
        price: "19.95",
        volume_price: [{ "10": 17 }, { "5": "18.50" }],
        vat: 21,
        stock_control: true,
        stock: 150,
        minimum_to_order: 2,
        maximum_to_order: 8,
        is_counted: false,
        show_remaining: true,
        attachment_id: 0,
        personalise: "Company",
        layout: "Order-id, Company",
      }),
      201,
    );
    expect(body).toMatchObject({
      name: "Early bird",
      price: 19.95,
      volume_price: [{ "5": 18.5 }, { "10": 17 }],
      vat: 21,
      stock_control: true,
      stock: 150,
      minimum_to_order: 2,
      maximum_to_order: 8,
      is_counted: false,
      show_remaining: true,
      attachment_id: 0,
      personalise: "Company",
      layout: "Order-id,Company",
    });
    expect(await getType(eventId, body.id)).toEqual({ ...body, sold: 0 });
  });

  it("refuses a body without name or price with rest_missing_callback_param", async () => {
    const eventId = await newEvent();
    for (const [body, missing] of [
      [{ price: 10 }, ["name"]],
      [{ name: "Regular" }, ["price"]],
      [{}, ["name", "price"]],
    ] as const) {
      const err = await expectError(post(eventId, body), 400, "rest_missing_callback_param");
      expect(Object.keys(err.data.params!).sort()).toEqual(missing);
    }
    expect(await listTypes(eventId)).toEqual([]);
  });

  it("refuses unknown fields and wrongly typed values, and ignores _links", async () => {
    const eventId = await newEvent();
    const err = await expectInvalid(post(eventId, { name: "Regular", price: 10, colour: "red" }), "colour");
    expect(err.data.params!.colour).toBe("is not a known field");
    for (const [field, value] of [
      ["stock_control", "yes"],
      ["is_counted", 1],
      ["show_remaining", null],
      ["minimum_to_order", 1.5],
      ["maximum_to_order", -1],
      ["attachment_id", "1"],
      ["personalise", ["Company"]],
      ["layout", 5],
      ["name", 42],
    ] as const) {
      await expectInvalid(post(eventId, { name: "Regular", price: 10, [field]: value }), field);
    }
    expect(await listTypes(eventId)).toEqual([]);
    await expectJson(post(eventId, { name: "Regular", price: 10, _links: { self: [{ href: "x" }] } }), 201);
  });

  it("refuses a body that is not JSON", async () => {
    const eventId = await newEvent();
    await expectError(call("POST", listPath(eventId), { body: "{not json" }), 400, "rest_invalid_json");
    await expectError(
      call("POST", listPath(eventId), { body: "name=x&price=1", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      415,
      "rest_unsupported_media_type",
    );
    expect(await listTypes(eventId)).toEqual([]);
  });
});

describe("money: price, vat and volume_price", () => {
  it("accepts price as a number or a decimal string, with at most 2 decimals", async () => {
    const eventId = await newEvent();
    const cases: [unknown, number][] = [
      [12, 12],
      [12.5, 12.5],
      ["12.50", 12.5],
      ["7", 7],
      [0, 0],
      ["0.05", 0.05],
      [99.99, 99.99],
      [1234567.89, 1234567.89],
    ];
    for (const [i, [price, shown]] of cases.entries()) {
      const body = await expectJson(post(eventId, { name: `Type ${i}`, price }), 201);
      expect(body.price, JSON.stringify(price)).toBe(shown);
      expect((await getType(eventId, body.id)).price, JSON.stringify(price)).toBe(shown);
    }
  });

  it("refuses a negative price, more than 2 decimals, float noise and non-amounts", async () => {
    const eventId = await newEvent();
    const cases: [string, unknown][] = [
      ["a negative number", -1],
      ["a negative string", "-1.00"],
      ["three decimals", 12.345],
      ["three decimals as a string", "12.345"],
      ["float noise", 0.1 + 0.2],
      ["an exponent", 1e21],
      ["an exponent string", "1e3"],
      ["text", "ten"],
      ["an empty string", ""],
      ["null", null],
      ["a boolean", true],
    ];
    for (const [label, price] of cases) await expectInvalid(post(eventId, { name: "Regular", price }), "price", label);
    expect(await listTypes(eventId)).toEqual([]);
  });

  it("refuses a bad price on update and keeps the stored one", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { price: 10 });
    for (const price of [-5, 0.1 + 0.2, "1.001"]) await expectInvalid(put(eventId, type.id, { price }), "price", JSON.stringify(price));
    expect((await getType(eventId, type.id)).price).toBe(10);
    const changed = await expectJson(put(eventId, type.id, { price: "15.00" }), 200);
    expect(changed.price).toBe(15);
    expect((await getType(eventId, type.id)).price).toBe(15);
  });

  it("accepts vat from 0 to 100 with at most 2 decimals", async () => {
    const eventId = await newEvent();
    const cases: [unknown, number][] = [
      [0, 0],
      [21, 21],
      [5.5, 5.5],
      ["5.5", 5.5],
      [99.99, 99.99],
      [100, 100],
    ];
    for (const [i, [vat, shown]] of cases.entries()) {
      const body = await expectJson(post(eventId, { name: `Type ${i}`, price: 10, vat }), 201);
      expect(body.vat, JSON.stringify(vat)).toBe(shown);
      expect((await getType(eventId, body.id)).vat, JSON.stringify(vat)).toBe(shown);
    }
  });

  it("refuses vat above 100, below 0, or with more than 2 decimals, on create and update", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { vat: 9 });
    for (const vat of [101, -1, 100.01, 5.555, "abc", 0.1 + 0.2]) {
      await expectInvalid(post(eventId, { name: "Other", price: 10, vat }), "vat", JSON.stringify(vat));
      await expectInvalid(put(eventId, type.id, { vat }), "vat", JSON.stringify(vat));
    }
    expect((await listTypes(eventId)).map((t) => [t.name, t.vat])).toEqual([["Regular", 9]]);
  });

  it("returns volume prices sorted by ticket count, with their prices as numbers", async () => {
    const eventId = await newEvent();
    const body = await expectJson(post(eventId, { name: "Regular", price: 10, volume_price: [{ "10": 9 }, { "2": "9.50" }, { "5": 9.25 }] }), 201);
    expect(body.volume_price).toEqual([{ "2": 9.5 }, { "5": 9.25 }, { "10": 9 }]);
    expect((await getType(eventId, body.id)).volume_price).toEqual(body.volume_price);
    const changed = await expectJson(put(eventId, body.id, { volume_price: [{ "20": "8" }, { "3": 0 }] }), 200);
    expect(changed.volume_price).toEqual([{ "3": 0 }, { "20": 8 }]);
    const cleared = await expectJson(put(eventId, body.id, { volume_price: [] }), 200);
    expect(cleared.volume_price).toEqual([]);
  });

  it("refuses every malformed volume_price, on create and update, naming volume_price", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { volume_price: [{ "3": 9 }] });
    const cases: [string, unknown][] = [
      ["a count of 1", [{ "1": 5 }]],
      ["a count of 0", [{ "0": 5 }]],
      ["a fractional count", [{ "2.5": 5 }]],
      ["a negative count", [{ "-3": 5 }]],
      ["a count that is not a number", [{ abc: 5 }]],
      ["two keys in one entry", [{ "2": 5, "3": 4 }]],
      ["an empty entry", [{}]],
      ["a count named twice", [{ "2": 5 }, { "4": 4 }, { "2": 4.5 }]],
      ["a negative price", [{ "2": -1 }]],
      ["a price with three decimals", [{ "2": 1.234 }]],
      ["a price with float noise", [{ "2": 0.1 + 0.2 }]],
      ["a price that is text", [{ "2": "cheap" }]],
      ["a price that is null", [{ "2": null }]],
      ["an object instead of an array", { "2": 5 }],
      ["an entry that is not an object", [5]],
    ];
    for (const [label, volume_price] of cases) {
      await expectInvalid(post(eventId, { name: "Other", price: 10, volume_price }), "volume_price", label);
      await expectInvalid(put(eventId, type.id, { volume_price }), "volume_price", label);
    }
    expect((await listTypes(eventId)).map((t) => [t.name, t.volume_price])).toEqual([["Regular", [{ "3": 9 }]]]);
  });
});

describe("stock", () => {
  it("requires stock when stock_control is true on create, and accepts stock 0", async () => {
    const eventId = await newEvent();
    const missing = await expectJson(post(eventId, { name: "Regular", price: 10, stock_control: true }), 400);
    expect(["rest_invalid_param", "rest_missing_callback_param"]).toContain(missing.code);
    expect(Object.keys(missing.data.params)).toContain("stock");
    expect(await listTypes(eventId)).toEqual([]);

    const soldOut = await expectJson(post(eventId, { name: "Sold out", price: 10, stock_control: true, stock: 0 }), 201);
    expect(soldOut).toMatchObject({ stock_control: true, stock: 0 });
    expect(await getType(eventId, soldOut.id)).toMatchObject({ stock_control: true, stock: 0 });
  });

  it("refuses stock while stock_control is false, on create", async () => {
    const eventId = await newEvent();
    await expectInvalid(post(eventId, { name: "A", price: 10, stock: 5 }), "stock");
    await expectInvalid(post(eventId, { name: "B", price: 10, stock_control: false, stock: 5 }), "stock");
    await expectInvalid(post(eventId, { name: "C", price: 10, stock_control: false, stock: 0 }), "stock");
    expect(await listTypes(eventId)).toEqual([]);
  });

  it("refuses a stock that is not a whole non-negative number", async () => {
    const eventId = await newEvent();
    for (const stock of [-1, 1.5, "10", null]) {
      await expectInvalid(post(eventId, { name: "Regular", price: 10, stock_control: true, stock }), "stock");
    }
    expect(await listTypes(eventId)).toEqual([]);
  });

  it("switches stock control on and off through PUT", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId);

    // Off: stock may not be sent, alone or with stock_control false.
    await expectInvalid(put(eventId, type.id, { stock: 5 }), "stock");
    await expectInvalid(put(eventId, type.id, { stock_control: false, stock: 5 }), "stock");
    // Switching on needs a stock, since none is stored.
    const missing = await expectJson(put(eventId, type.id, { stock_control: true }), 400);
    expect(Object.keys(missing.data.params)).toContain("stock");
    expect(await getType(eventId, type.id)).not.toHaveProperty("stock");

    const on = await expectJson(put(eventId, type.id, { stock_control: true, stock: 20 }), 200);
    expect(on).toMatchObject({ stock_control: true, stock: 20 });
    expect(await expectJson(put(eventId, type.id, { stock: 30 }), 200)).toMatchObject({ stock_control: true, stock: 30 });
    // Already on with a stored stock: stock_control true alone is fine and keeps the stock.
    expect(await expectJson(put(eventId, type.id, { stock_control: true }), 200)).toMatchObject({ stock: 30 });

    const off = await expectJson(put(eventId, type.id, { stock_control: false }), 200);
    expect(off.stock_control).toBe(false);
    expect(off).not.toHaveProperty("stock");
    const read = await getType(eventId, type.id);
    expect(read.stock_control).toBe(false);
    expect(read).not.toHaveProperty("stock");
    await expectInvalid(put(eventId, type.id, { stock: 30 }), "stock");

    // Switched off, the old stock is gone: switching on again needs a stock.
    const again = await expectJson(put(eventId, type.id, { stock_control: true }), 400);
    expect(Object.keys(again.data.params)).toContain("stock");
    expect(await expectJson(put(eventId, type.id, { stock_control: true, stock: 0 }), 200)).toMatchObject({ stock: 0 });
  });

  it("allows a stock below the number sold", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { stock_control: true, stock: 10 });
    await setSold(eventId, type.id, 5);
    const body = await expectJson(put(eventId, type.id, { stock: 2 }), 200);
    expect(body).toMatchObject({ stock: 2, sold: 5 });
  });
});

describe("minimum_to_order and maximum_to_order", () => {
  it("refuses a minimum above a maximum on create", async () => {
    const eventId = await newEvent();
    await expectInvalid(post(eventId, { name: "A", price: 10, minimum_to_order: 5, maximum_to_order: 3 }), "minimum_to_order");
    await expectInvalid(post(eventId, { name: "B", price: 10, minimum_to_order: 11 }), "minimum_to_order");
    expect(await listTypes(eventId)).toEqual([]);
    expect(await expectJson(post(eventId, { name: "C", price: 10, minimum_to_order: 5, maximum_to_order: 5 }), 201)).toMatchObject({
      minimum_to_order: 5,
      maximum_to_order: 5,
    });
  });

  it("reads maximum 0 as no maximum", async () => {
    const eventId = await newEvent();
    const body = await expectJson(post(eventId, { name: "Bulk", price: 1, minimum_to_order: 500, maximum_to_order: 0 }), 201);
    expect(body).toMatchObject({ minimum_to_order: 500, maximum_to_order: 0 });
    expect(await expectJson(put(eventId, body.id, { minimum_to_order: 1000 }), 200)).toMatchObject({ minimum_to_order: 1000 });
  });

  it("checks the pair against the stored values on update", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { minimum_to_order: 4 });
    await expectInvalid(put(eventId, type.id, { minimum_to_order: 11 }), "minimum_to_order");
    const err = await expectError(put(eventId, type.id, { maximum_to_order: 3 }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!).some((k) => k === "minimum_to_order" || k === "maximum_to_order")).toBe(true);
    expect(await getType(eventId, type.id)).toMatchObject({ minimum_to_order: 4, maximum_to_order: 10 });
    expect(await expectJson(put(eventId, type.id, { maximum_to_order: 0, minimum_to_order: 50 }), 200)).toMatchObject({
      minimum_to_order: 50,
      maximum_to_order: 0,
    });
    await expectInvalid(put(eventId, type.id, { maximum_to_order: 40 }), "minimum_to_order");
  });
});

describe("names", () => {
  it("trims names and refuses empty names and commas", async () => {
    const eventId = await newEvent();
    const body = await expectJson(post(eventId, { name: "  VIP  ", price: 10 }), 201);
    expect(body.name).toBe("VIP");
    for (const name of ["", "   ", "VIP, Gold", ",", "n".repeat(101)]) await expectInvalid(post(eventId, { name, price: 10 }), "name", name);
    for (const name of ["", "A,B"]) await expectInvalid(put(eventId, body.id, { name }), "name");
    expect((await listTypes(eventId)).map((t) => t.name)).toEqual(["VIP"]);
    expect(await expectJson(put(eventId, body.id, { name: " Gold " }), 200)).toMatchObject({ name: "Gold" });
  });

  it("keeps names unique per event: a duplicate is 409, another event or another letter case is fine", async () => {
    const eventId = await newEvent();
    const otherEventId = await newEvent();
    const vip = await createTicketType(eventId, { name: "VIP" });
    await expectError(post(eventId, { name: "VIP", price: 20 }), 409, "rest_conflict");
    await expectError(post(eventId, { name: " VIP ", price: 20 }), 409, "rest_conflict");
    const lower = await expectJson(post(eventId, { name: "vip", price: 20 }), 201);
    expect(lower.name).toBe("vip");
    await expectJson(post(otherEventId, { name: "VIP", price: 20 }), 201);

    // Renaming onto a taken name is a conflict too; renaming to its own name is not.
    await expectError(put(eventId, lower.id, { name: "VIP" }), 409, "rest_conflict");
    expect((await getType(eventId, lower.id)).name).toBe("vip");
    await expectJson(put(eventId, vip.id, { name: "VIP" }), 200);
    expect((await listTypes(eventId)).map((t) => t.name)).toEqual(["VIP", "vip"]);
  });

  it("creates exactly one ticket type when the same name is sent 10 times at once", async () => {
    const eventId = await newEvent();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(eventId, { name: "Rush", price: i })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    for (const res of results.filter((r) => r.status === 409)) await expectError(res, 409, "rest_conflict");
    const list = await listTypes(eventId);
    expect(list.map((t) => t.name)).toEqual(["Rush"]);
  });

  it("creates 10 differently named ticket types at once, each with its own id", async () => {
    const eventId = await newEvent();
    const bodies = await Promise.all(Array.from({ length: 10 }, (_, i) => expectJson(post(eventId, { name: `Type ${i}`, price: i }), 201)));
    const ids = bodies.map((b) => b.id);
    for (const id of ids) expect(id).toMatch(ID);
    expect(new Set(ids).size).toBe(10);
    const list = await listTypes(eventId);
    expect(list.map((t) => t.id).sort()).toEqual([...ids].sort());
  });
});

describe("personalise and layout", () => {
  async function eventWithFields() {
    const eventId = await newEvent();
    await createInputField(eventId, { name: "Company", is_personalised: true });
    await createInputField(eventId, { name: "Diet", is_personalised: true });
    await createInputField(eventId, { name: "Phone", is_personalised: false });
    await createInputField(eventId, { name: "Age" });
    return eventId;
  }

  it("accepts personalised input fields of the event in personalise", async () => {
    const eventId = await eventWithFields();
    const body = await expectJson(post(eventId, { name: "Regular", price: 10, personalise: "Company, Diet" }), 201);
    expect(body.personalise).toBe("Company,Diet");
    expect((await getType(eventId, body.id)).personalise).toBe("Company,Diet");
    expect(await expectJson(put(eventId, body.id, { personalise: "Diet" }), 200)).toMatchObject({ personalise: "Diet" });
    expect(await expectJson(put(eventId, body.id, { personalise: "" }), 200)).toMatchObject({ personalise: "" });
  });

  it("refuses in personalise any name that is not a personalised input field of the event", async () => {
    const eventId = await eventWithFields();
    const type = await createTicketType(eventId, { name: "Regular", personalise: "Company" });
    const cases: [string, string][] = [
      ["an unknown name", "Nickname"],
      ["a field that is not personalised", "Phone"],
      ["a field with the default is_personalised", "Age"],
      ["a known and an unknown name", "Company,Nickname"],
      ["an order name", "Email"],
      ["a differently cased name", "company"],
    ];
    for (const [label, personalise] of cases) {
      await expectInvalid(post(eventId, { name: "Other", price: 10, personalise }), "personalise", label);
      await expectInvalid(put(eventId, type.id, { personalise }), "personalise", label);
    }
    expect((await listTypes(eventId)).map((t) => [t.name, t.personalise])).toEqual([["Regular", "Company"]]);
  });

  it("refuses a personalised input field of another event", async () => {
    const eventId = await newEvent();
    const otherEventId = await newEvent();
    await createInputField(otherEventId, { name: "Passport", is_personalised: true });
    await expectInvalid(post(eventId, { name: "Regular", price: 10, personalise: "Passport" }), "personalise");
  });

  it("accepts up to 6 layout names from the input fields and Order-id, Name, Email", async () => {
    const eventId = await eventWithFields();
    const body = await expectJson(post(eventId, { name: "Regular", price: 10, layout: "Order-id, Name, Email, Company, Phone, Age" }), 201);
    expect(body.layout).toBe("Order-id,Name,Email,Company,Phone,Age");
    expect((await getType(eventId, body.id)).layout).toBe(body.layout);
    expect(await expectJson(put(eventId, body.id, { layout: "Diet" }), 200)).toMatchObject({ layout: "Diet" });
    expect(await expectJson(put(eventId, body.id, { layout: "" }), 200)).toMatchObject({ layout: "" });
  });

  it("refuses in layout an unknown name and more than 6 names", async () => {
    const eventId = await eventWithFields();
    const type = await createTicketType(eventId, { name: "Regular", layout: "Name" });
    const cases: [string, string][] = [
      ["an unknown name", "Order-id,Nickname"],
      ["7 names", "Order-id,Name,Email,Company,Diet,Phone,Age"],
      ["a differently cased order name", "order-id"],
    ];
    for (const [label, layout] of cases) {
      await expectInvalid(post(eventId, { name: "Other", price: 10, layout }), "layout", label);
      await expectInvalid(put(eventId, type.id, { layout }), "layout", label);
    }
    expect((await listTypes(eventId)).map((t) => [t.name, t.layout])).toEqual([["Regular", "Name"]]);
  });
});

describe("attachment_id", () => {
  it("accepts 0, the caller's own template, and for an administrator anyone's", async () => {
    const eventId = await newEvent();
    const organizer = await createUser("organizer", { authorised_events: [eventId] });
    const someoneElse = await createUser("organizer");
    const own = await insertTemplate(organizer.id);
    const foreign = await insertTemplate(someoneElse.id);

    const mine = await expectJson(post(eventId, { name: "Mine", price: 10, attachment_id: own }, organizer.credentials), 201);
    expect(mine.attachment_id).toBe(own);
    await expectJson(post(eventId, { name: "Default", price: 10, attachment_id: 0 }, organizer.credentials), 201);

    const admin = await expectJson(post(eventId, { name: "Admin's", price: 10, attachment_id: foreign }), 201);
    expect(admin.attachment_id).toBe(foreign);
    expect((await getType(eventId, admin.id)).attachment_id).toBe(foreign);
    expect(await expectJson(put(eventId, mine.id, { attachment_id: foreign }), 200)).toMatchObject({ attachment_id: foreign });
  });

  it("refuses an unknown template and an organizer's use of another user's template", async () => {
    const eventId = await newEvent();
    const organizer = await createUser("organizer", { authorised_events: [eventId] });
    const someoneElse = await createUser("administrator");
    const foreign = await insertTemplate(someoneElse.id);
    const own = await insertTemplate(organizer.id);

    await expectInvalid(post(eventId, { name: "A", price: 10, attachment_id: 987654321 }), "attachment_id");
    await expectInvalid(post(eventId, { name: "B", price: 10, attachment_id: foreign }, organizer.credentials), "attachment_id");
    expect(await listTypes(eventId)).toEqual([]);

    const type = await createTicketType(eventId, { attachment_id: own }, organizer.credentials);
    await expectInvalid(put(eventId, type.id, { attachment_id: foreign }, organizer.credentials), "attachment_id");
    await expectInvalid(put(eventId, type.id, { attachment_id: 987654321 }), "attachment_id");
    expect((await getType(eventId, type.id)).attachment_id).toBe(own);
  });
});

describe("read-only fields", () => {
  it("refuses id and sold on create", async () => {
    const eventId = await newEvent();
    for (const [field, value] of [
      ["id", "v12345"],
      ["sold", 0],
    ] as const) {
      const err = await expectError(post(eventId, { name: "Regular", price: 10, [field]: value }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual([field]);
    }
    expect(await listTypes(eventId)).toEqual([]);
  });

  it("accepts id and sold on update when they equal the stored values, and refuses them otherwise", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId);
    const renamed = await expectJson(put(eventId, type.id, { id: type.id, sold: 0, name: "Renamed" }), 200);
    expect(renamed).toMatchObject({ id: type.id, sold: 0, name: "Renamed" });

    for (const [field, value] of [
      ["id", "v00000"],
      ["sold", 1],
    ] as const) {
      const err = await expectError(put(eventId, type.id, { [field]: value, name: "Changed" }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual([field]);
    }
    expect((await getType(eventId, type.id)).name).toBe("Renamed");

    await setSold(eventId, type.id, 3);
    expect(await expectJson(put(eventId, type.id, { sold: 3 }), 200)).toMatchObject({ sold: 3 });
    await expectInvalid(put(eventId, type.id, { sold: 0 }), "sold");
  });

  it("accepts back exactly what a GET answered, with every field in use", async () => {
    const eventId = await newEvent();
    await createInputField(eventId, { name: "Company", is_personalised: true });
    const template = await insertTemplate((await createUser("administrator")).id);
    const type = await createTicketType(eventId, {
      name: "Full",
      price: "25.50",
      volume_price: [{ "10": 20 }, { "4": 22.5 }],
      vat: 5.5,
      stock_control: true,
      stock: 40,
      minimum_to_order: 1,
      maximum_to_order: 6,
      is_counted: false,
      show_remaining: true,
      attachment_id: template,
      personalise: "Company",
      layout: "Order-id,Company,Email",
    });
    await setSold(eventId, type.id, 2);
    const read = await getType(eventId, type.id);
    const back = await expectJson(put(eventId, type.id, read), 200);
    expect(back).toEqual(read);
    expect(await getType(eventId, type.id)).toEqual(read);

    const changed = await expectJson(put(eventId, type.id, { ...read, price: 30 }), 200);
    expect(changed).toEqual({ ...read, price: 30 });
  });

  it("lets an organizer put back what it read, even with a template an administrator attached", async () => {
    const eventId = await newEvent();
    const organizer = await createUser("organizer", { authorised_events: [eventId] });
    const adminTemplate = await insertTemplate((await createUser("administrator")).id);
    const type = await createTicketType(eventId, { attachment_id: adminTemplate });
    const read = await expectJson(call("GET", typePath(eventId, type.id), { auth: organizer.credentials }), 200);
    expect(read.attachment_id).toBe(adminTemplate);
    // The template is not being chosen by the organizer: it is sent back unchanged.
    const back = await expectJson(put(eventId, type.id, { ...read, price: 11 }, organizer.credentials), 200);
    expect(back).toEqual({ ...read, price: 11 });
    // Choosing that template anew is still refused.
    const other = await createTicketType(eventId, { name: "Other" });
    await expectInvalid(put(eventId, other.id, { attachment_id: adminTemplate }, organizer.credentials), "attachment_id");
  });

  it("accepts back what a GET answered for a ticket type without stock control", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId);
    const read = await getType(eventId, type.id);
    expect(read).not.toHaveProperty("stock");
    expect(await expectJson(put(eventId, type.id, read), 200)).toEqual(read);
  });
});

describe("PUT /admin/events/<event_id>/ticket-types/<ticket_type_id>", () => {
  it("changes only the fields sent", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { vat: 21, stock_control: true, stock: 5 });
    const before = await getType(eventId, type.id);
    const body = await expectJson(put(eventId, type.id, { show_remaining: true }), 200);
    expect(body).toEqual({ ...before, show_remaining: true });
    expect(await expectJson(put(eventId, type.id, {}), 200)).toEqual(body);
  });

  it("refuses unknown fields and changes nothing", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId);
    const before = await getType(eventId, type.id);
    const err = await expectInvalid(put(eventId, type.id, { name: "New", colour: "red" }), "colour");
    expect(err.data.params!.colour).toBe("is not a known field");
    expect(await getType(eventId, type.id)).toEqual(before);
  });

  it("renames the ticket type inside the event's scan keys", async () => {
    const eventId = await newEvent();
    const otherEventId = await newEvent();
    await createTicketType(eventId, { name: "Regular" });
    const vip = await createTicketType(eventId, { name: "VIP" });
    await createTicketType(otherEventId, { name: "VIP" });
    const gate = await createScanKey(eventId, { location: "Gate", tickets: "VIP,Regular" });
    const side = await createScanKey(eventId, { location: "Side", tickets: "Regular" });
    const elsewhere = await createScanKey(otherEventId, { location: "Gate", tickets: "VIP" });

    expect(await expectJson(put(eventId, vip.id, { name: "Gold" }), 200)).toMatchObject({ name: "Gold" });

    const scanKey = (e: number, key: string) => expectJson(call("GET", `/admin/events/${e}/scan-keys/${key}`), 200);
    expect((await scanKey(eventId, gate.key)).tickets).toBe("Gold,Regular");
    expect((await scanKey(eventId, side.key)).tickets).toBe("Regular");
    expect((await scanKey(otherEventId, elsewhere.key)).tickets).toBe("VIP");

    // The scan key now refers to the new name: deleting the renamed type is refused.
    await expectError(call("DELETE", typePath(eventId, vip.id)), 409, "rest_conflict");
  });

  it("leaves scan keys alone when a rename fails", async () => {
    const eventId = await newEvent();
    await createTicketType(eventId, { name: "Regular" });
    const vip = await createTicketType(eventId, { name: "VIP" });
    const gate = await createScanKey(eventId, { location: "Gate", tickets: "VIP" });
    await expectError(put(eventId, vip.id, { name: "Regular" }), 409, "rest_conflict");
    expect((await expectJson(call("GET", `/admin/events/${eventId}/scan-keys/${gate.key}`), 200)).tickets).toBe("VIP");
  });
});

describe("GET /admin/events/<event_id>/ticket-types", () => {
  it("answers a bare array in creation order with unpaged headers", async () => {
    const eventId = await newEvent();
    const created = [];
    for (const name of ["Zeta", "Alpha", "Mid"]) created.push(await createTicketType(eventId, { name }));
    const res = await call("GET", listPath(eventId));
    const list = await expectJson<any[]>(res, 200);
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((t) => t.name)).toEqual(["Zeta", "Alpha", "Mid"]);
    expect(res.headers.get("X-WP-Total")).toBe("3");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
    for (const [i, item] of list.entries()) {
      expect(item).toEqual({ ...created[i], sold: 0 });
      expect(item._links).toEqual(links(eventId, item.id));
    }

    // A deleted type leaves the list; a new one comes last.
    await expectJson(call("DELETE", typePath(eventId, created[1].id)), 200);
    await createTicketType(eventId, { name: "Beta" });
    expect((await listTypes(eventId)).map((t) => t.name)).toEqual(["Zeta", "Mid", "Beta"]);
  });

  it("answers an empty array for an event without ticket types", async () => {
    const eventId = await newEvent();
    const res = await call("GET", listPath(eventId));
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("keeps only the fields named in _fields, on the list and on one ticket type", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { name: "Regular", price: 10 });
    await createTicketType(eventId, { name: "VIP", price: 50 });

    const list = await expectJson<any[]>(call("GET", `${listPath(eventId)}?_fields=name,price,bogus`), 200);
    expect(list).toEqual([
      { name: "Regular", price: 10 },
      { name: "VIP", price: 50 },
    ]);
    const one = await expectJson(call("GET", `${typePath(eventId, type.id)}?_fields=id,_links`), 200);
    expect(one).toEqual({ id: type.id, _links: links(eventId, type.id) });
    const stock = await expectJson(call("GET", `${typePath(eventId, type.id)}?_fields=stock`), 200);
    expect(stock).toEqual({});
    // _fields shapes GET answers only.
    const updated = await expectJson(call("PUT", `${typePath(eventId, type.id)}?_fields=id`, { body: { price: 11 } }), 200);
    expect(updated).toMatchObject({ id: type.id, name: "Regular", price: 11 });
  });
});

describe("DELETE /admin/events/<event_id>/ticket-types/<ticket_type_id>", () => {
  it("deletes and answers previous without id and _links", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { name: "Gone", stock_control: true, stock: 3, vat: 9 });
    const read = await getType(eventId, type.id);
    const res = await expectJson(call("DELETE", typePath(eventId, type.id)), 200);
    expect(Object.keys(res).sort()).toEqual(["deleted", "previous"]);
    expect(res.deleted).toBe(true);
    const { id: _id, _links: _l, ...expected } = read;
    expect(res.previous).toEqual(expected);
    expect(res.previous).not.toHaveProperty("id");
    expect(res.previous).not.toHaveProperty("_links");

    await expectError(call("GET", typePath(eventId, type.id)), 404, "rest_ticket_type_invalid_id");
    await expectError(put(eventId, type.id, { price: 1 }), 404, "rest_ticket_type_invalid_id");
    await expectError(call("DELETE", typePath(eventId, type.id)), 404, "rest_ticket_type_invalid_id");
    expect(await listTypes(eventId)).toEqual([]);
    // The name is free again.
    await expectJson(post(eventId, { name: "Gone", price: 1 }), 201);
  });

  it("refuses to delete a ticket type a scan key names, naming the scan key", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { name: "VIP" });
    await createTicketType(eventId, { name: "Regular" });
    const key = await createScanKey(eventId, { location: "North gate", tickets: "Regular,VIP" });
    const err = await expectError(call("DELETE", typePath(eventId, type.id)), 409, "rest_conflict");
    expect(err.message).toContain("North gate");
    expect((await getType(eventId, type.id)).name).toBe("VIP");

    await expectJson(call("PUT", `/admin/events/${eventId}/scan-keys/${key.key}`, { body: { tickets: "Regular" } }), 200);
    await expectJson(call("DELETE", typePath(eventId, type.id)), 200);
  });

  it("refuses to delete a ticket type with sold tickets", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { name: "Popular" });
    await setSold(eventId, type.id, 1);
    const err = await expectError(call("DELETE", typePath(eventId, type.id)), 409, "rest_conflict");
    expect(err.message).toContain("Popular");
    expect(await getType(eventId, type.id)).toMatchObject({ name: "Popular", sold: 1 });
  });

  it("keeps a ticket type that an order's tickets were sold from", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId, { name: "Ordered" });
    await insertOrder(eventId, [type.id, type.id]);
    await setSold(eventId, type.id, 2);
    await expectError(call("DELETE", typePath(eventId, type.id)), 409, "rest_conflict");
    expect((await listTypes(eventId)).map((t) => t.id)).toEqual([type.id]);
  });
});

describe("ids", () => {
  it("answers 404 rest_ticket_type_invalid_id for an unknown or malformed ticket type id", async () => {
    const eventId = await newEvent();
    await createTicketType(eventId);
    for (const typeId of ["v00000", "V12345", "vABCDE", "v1234", "v123456", "x12345", "12345", "v1234g"]) {
      await expectError(call("GET", typePath(eventId, typeId)), 404, "rest_ticket_type_invalid_id");
      await expectError(put(eventId, typeId, { price: 1 }), 404, "rest_ticket_type_invalid_id");
      await expectError(call("DELETE", typePath(eventId, typeId)), 404, "rest_ticket_type_invalid_id");
    }
  });

  it("answers 404 rest_event_invalid_id for an unknown or malformed event", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId);
    for (const event of ["999999999", "0", "abc", "-1"]) {
      await expectError(call("GET", listPath(event)), 404, "rest_event_invalid_id");
      await expectError(post(event, { name: "Regular", price: 10 }), 404, "rest_event_invalid_id");
      await expectError(call("GET", typePath(event, type.id)), 404, "rest_event_invalid_id");
      await expectError(put(event, type.id, { price: 1 }), 404, "rest_event_invalid_id");
      await expectError(call("DELETE", typePath(event, type.id)), 404, "rest_event_invalid_id");
    }
    // Both ids malformed: the outer one, the event, is named.
    await expectError(call("GET", typePath("abc", "bad")), 404, "rest_event_invalid_id");
  });

  it("names the unknown event first when the ticket type id is malformed too", async () => {
    // decisions.md section 12: a path id that does not exist is rest_<resource>_invalid_id; the event is the outer one.
    for (const method of ["GET", "PUT", "DELETE"]) {
      const body = method === "PUT" ? { price: 1 } : undefined;
      await expectError(call(method, typePath("999999999", "bad"), { body }), 404, "rest_event_invalid_id");
    }
  });

  it("answers 404 for a ticket type id of another event, and leaves it alone", async () => {
    const eventId = await newEvent();
    const otherEventId = await newEvent();
    const type = await createTicketType(eventId);
    await expectError(call("GET", typePath(otherEventId, type.id)), 404, "rest_ticket_type_invalid_id");
    await expectError(put(otherEventId, type.id, { name: "Stolen" }), 404, "rest_ticket_type_invalid_id");
    await expectError(call("DELETE", typePath(otherEventId, type.id)), 404, "rest_ticket_type_invalid_id");
    expect(await getType(eventId, type.id)).toEqual({ ...type, sold: 0 });
  });
});

describe("authority", () => {
  it("lets an organizer do everything on a ticket type of its authorised event", async () => {
    const eventId = await newEvent();
    const organizer = await createUser("organizer", { authorised_events: [eventId] });
    const auth = organizer.credentials;
    const created = await expectJson(post(eventId, { name: "Regular", price: 10 }, auth), 201);
    expect((await expectJson<any[]>(call("GET", listPath(eventId), { auth }), 200)).map((t) => t.id)).toEqual([created.id]);
    expect(await expectJson(call("GET", typePath(eventId, created.id), { auth }), 200)).toMatchObject({ id: created.id });
    expect(await expectJson(put(eventId, created.id, { price: 12 }, auth), 200)).toMatchObject({ price: 12 });
    expect(await expectJson(call("DELETE", typePath(eventId, created.id), { auth }), 200)).toMatchObject({ deleted: true });
    expect(await listTypes(eventId)).toEqual([]);
  });

  it("answers 403 rest_forbidden to an organizer without the event, on every method", async () => {
    const eventId = await newEvent();
    const otherEventId = await newEvent();
    const organizer = await createUser("organizer", { authorised_events: [otherEventId] });
    const auth = organizer.credentials;
    const type = await createTicketType(eventId);
    await expectError(call("GET", listPath(eventId), { auth }), 403, "rest_forbidden");
    await expectError(post(eventId, { name: "Sneaky", price: 1 }, auth), 403, "rest_forbidden");
    await expectError(call("GET", typePath(eventId, type.id), { auth }), 403, "rest_forbidden");
    await expectError(put(eventId, type.id, { price: 1 }, auth), 403, "rest_forbidden");
    await expectError(call("DELETE", typePath(eventId, type.id), { auth }), 403, "rest_forbidden");
    expect(await listTypes(eventId)).toEqual([{ ...type, sold: 0 }]);
  });

  it("requires the API key and Basic credentials on every method", async () => {
    const eventId = await newEvent();
    const type = await createTicketType(eventId);
    const requests: [string, string, unknown][] = [
      ["GET", listPath(eventId), undefined],
      ["POST", listPath(eventId), { name: "Other", price: 1 }],
      ["GET", typePath(eventId, type.id), undefined],
      ["PUT", typePath(eventId, type.id), { price: 1 }],
      ["DELETE", typePath(eventId, type.id), undefined],
    ];
    for (const [method, path, body] of requests) {
      await expectError(call(method, path, { body, key: null }), 401, "rest_forbidden_api_key");
      await expectError(call(method, path, { body, key: "wrong-key" }), 401, "rest_forbidden_api_key");
      const res = await call(method, path, { body, auth: null });
      expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
      await expectError(res, 401, "rest_not_logged_in");
      await expectError(call(method, path, { body, auth: { username: "admin", password: "wrong-password" } }), 401, "incorrect_password");
    }
    expect(await listTypes(eventId)).toEqual([{ ...type, sold: 0 }]);
  });
});

describe("coupons naming a ticket type (decisions.md 13: names are references)", () => {
  it("a rename reaches the coupons of the event; a delete of a named type is a 409 naming the coupon", async () => {
    const event = await createEvent({ event_name: unique("Coupon refs ") });
    const other = await createEvent({ event_name: unique("Coupon refs other ") });
    const type = await createTicketType(event.id, { name: "Early" });
    await createTicketType(other.id, { name: "Early" });
    const mine = await expectJson(
      call("POST", "/admin/coupons", { body: { code: unique("REF"), type: "percent", amount: 10, events: String(event.id), tickets: "Early" } }),
      201,
    );
    const elsewhere = await expectJson(
      call("POST", "/admin/coupons", { body: { code: unique("REFO"), type: "percent", amount: 10, events: String(other.id), tickets: "Early" } }),
      201,
    );

    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${type.id}`, { body: { name: "Early bird" } }), 200);
    expect((await expectJson(call("GET", `/admin/coupons/${mine.id}`), 200)).tickets).toBe("Early bird");
    expect((await expectJson(call("GET", `/admin/coupons/${elsewhere.id}`), 200)).tickets).toBe("Early");

    const err = await expectError(call("DELETE", `/admin/events/${event.id}/ticket-types/${type.id}`), 409, "rest_conflict");
    expect(err.message).toContain(mine.code);
    expect((await expectJson(call("GET", `/admin/events/${event.id}/ticket-types/${type.id}`), 200)).name).toBe("Early bird");
  });
});
