import { describe, expect, it } from "vitest";
import { ADMIN, BASE, call, createUser, expectError, expectJson } from "../../helpers/api";
import { createEvent, createInputField, createTicketType } from "../../helpers/catalogue";

const FIELD_KEYS = ["_links", "id", "is_personalised", "is_required", "max", "min", "name", "type", "value"];
const ID = /^v[0-9a-f]{5}$/;

const fieldsOf = (eventId: number) => `/admin/events/${eventId}/input-fields`;
const fieldOf = (eventId: number, fieldId: string) => `${fieldsOf(eventId)}/${fieldId}`;
const typeOf = (eventId: number, typeId: string) => `/admin/events/${eventId}/ticket-types/${typeId}`;

async function newEvent(): Promise<number> {
  return (await createEvent()).id as number;
}

async function listNames(eventId: number): Promise<string[]> {
  return (await expectJson<any[]>(call("GET", fieldsOf(eventId)), 200)).map((f) => f.name);
}

describe("POST /admin/events/<event_id>/input-fields", () => {
  it("creates a text field from only a name, with the documented defaults, 201 and Location", async () => {
    const eventId = await newEvent();
    const res = await call("POST", fieldsOf(eventId), { body: { name: "Company" } });
    const body = await expectJson(res, 201);
    expect(body.id).toMatch(ID);
    expect(res.headers.get("Location")).toBe(`${BASE}${fieldOf(eventId, body.id)}`);
    expect(body).toEqual({
      id: body.id,
      name: "Company",
      type: "text",
      value: "",
      min: "",
      max: "",
      is_required: false,
      is_personalised: false,
      _links: {
        self: [{ href: `${BASE}${fieldOf(eventId, body.id)}` }],
        collection: [{ href: `${BASE}${fieldsOf(eventId)}` }],
      },
    });
    expect(await expectJson(call("GET", fieldOf(eventId, body.id)), 200)).toEqual(body);
  });

  it("stores every field it is sent and trims the name", async () => {
    const eventId = await newEvent();
    const body = await createInputField(eventId, {
      name: "  T-shirt size ",
      type: "select",
      value: "S, M, L",
      is_required: true,
      is_personalised: true,
    });
    expect(body).toMatchObject({ name: "T-shirt size", type: "select", value: "S, M, L", min: "", max: "", is_required: true, is_personalised: true });
    expect(Object.keys(body).sort()).toEqual(FIELD_KEYS);
    expect(await expectJson(call("GET", fieldOf(eventId, body.id)), 200)).toEqual(body);
  });

  it.each([
    { name: "Arrival", type: "date", value: "2025-06-01", min: "2025-05-01", max: "2025-06-30" },
    { name: "Leap day", type: "date", min: "2024-02-29", max: "2024-02-29" },
    { name: "Start time", type: "time", value: "09:30", min: "08:00", max: "23:59" },
    { name: "PIN", type: "password", min: "4", max: "4", is_required: true },
    { name: "Remarks", type: "text", value: "x".repeat(50), min: "0", max: "50" },
    { name: "Menu", type: "select", value: Array.from({ length: 20 }, (_, i) => `${"c".repeat(45)}${String(i).padStart(4, "0")}`).join(",") },
  ])("accepts a consistent $type field ($name)", async (input) => {
    const eventId = await newEvent();
    const body = await createInputField(eventId, input);
    expect(body).toMatchObject(input);
  });

  it("ignores _links sent back by a client", async () => {
    const eventId = await newEvent();
    const body = await createInputField(eventId, { name: "Links", _links: { self: [{ href: "http://elsewhere.test/x" }] } });
    expect(body._links.self[0].href).toBe(`${BASE}${fieldOf(eventId, body.id)}`);
  });

  it("gives each field its own id", async () => {
    const eventId = await newEvent();
    const ids = new Set<string>();
    for (const name of ["A", "B", "C", "D", "E"]) ids.add((await createInputField(eventId, { name })).id);
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(ID);
  });

  it("refuses a body without a name with rest_missing_callback_param", async () => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", fieldsOf(eventId), { body: { type: "text" } }), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params!)).toEqual(["name"]);
    expect(await listNames(eventId)).toEqual([]);
  });

  it("refuses a body that is not JSON", async () => {
    const eventId = await newEvent();
    await expectError(call("POST", fieldsOf(eventId), { body: "{name" }), 400, "rest_invalid_json");
    await expectError(
      call("POST", fieldsOf(eventId), { body: "name=x", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      415,
      "rest_unsupported_media_type",
    );
    expect(await listNames(eventId)).toEqual([]);
  });

  it("refuses the read-only id on create, naming it", async () => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", fieldsOf(eventId), { body: { name: "With id", id: "v12345" } }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ id: expect.any(String) });
    expect(await listNames(eventId)).toEqual([]);
  });

  const invalid: [string, string, Record<string, unknown>][] = [
    // type
    ["type not in the list", "type", { type: "checkbox" }],
    ["type in another letter case", "type", { type: "TEXT" }],
    ["type not a string", "type", { type: 1 }],
    // name
    ["empty name", "name", { name: "" }],
    ["blank name", "name", { name: "   " }],
    ["name with a comma", "name", { name: "First, last" }],
    ["name Order-id", "name", { name: "Order-id" }],
    ["name Name", "name", { name: "Name" }],
    ["name Email", "name", { name: "Email" }],
    ["name Email with spaces around", "name", { name: " Email " }],
    ["name not a string", "name", { name: 7 }],
    // select choices
    ["select without choices", "value", { type: "select", value: "" }],
    ["select with an empty choice", "value", { type: "select", value: "a,,b" }],
    ["select with a blank choice", "value", { type: "select", value: "a, ,b" }],
    ["select with a choice twice", "value", { type: "select", value: "a,b,a" }],
    ["select with a choice of 51 characters", "value", { type: "select", value: `a,${"b".repeat(51)}` }],
    ["select value over 1000 characters", "value", { type: "select", value: Array.from({ length: 101 }, (_, i) => String(i).padStart(9, "0")).join(",") }],
    ["select with min", "min", { type: "select", value: "a,b", min: "1" }],
    ["select with max", "max", { type: "select", value: "a,b", max: "2" }],
    // text and password
    ["text preset value of 51 characters", "value", { value: "v".repeat(51) }],
    ["text min not a number", "min", { min: "abc" }],
    ["text min negative", "min", { min: "-1" }],
    ["text max a fraction", "max", { max: "1.5" }],
    ["text max a date", "max", { max: "2024-01-01" }],
    ["password min not a number", "min", { type: "password", min: "x" }],
    ["password max a time", "max", { type: "password", max: "10:00" }],
    ["password preset value of 51 characters", "value", { type: "password", value: "p".repeat(51) }],
    ["password personalised", "is_personalised", { type: "password", is_personalised: true }],
    // date
    ["date min not a real date", "min", { type: "date", min: "2023-02-29" }],
    ["date max in another format", "max", { type: "date", max: "31-12-2024" }],
    ["date max a number", "max", { type: "date", max: "10" }],
    ["date value not a real date", "value", { type: "date", value: "2024-13-01" }],
    ["date value a date-time", "value", { type: "date", value: "2024-01-01 10:00:00" }],
    // time
    ["time min 24:00", "min", { type: "time", min: "24:00" }],
    ["time max without a leading zero", "max", { type: "time", max: "9:00" }],
    ["time value with seconds", "value", { type: "time", value: "09:00:00" }],
    ["time value a word", "value", { type: "time", value: "noon" }],
    // booleans
    ["is_required not a boolean", "is_required", { is_required: "yes" }],
    ["is_personalised not a boolean", "is_personalised", { is_personalised: 1 }],
    // unknown
    ["unknown field", "label", { label: "Your company" }],
  ];

  it.each(invalid)("refuses %s, naming %s in data.params", async (_what, field, override) => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", fieldsOf(eventId), { body: { name: "Field", ...override } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual([field]);
    expect(typeof err.data.params![field]).toBe("string");
    expect(err.message).toContain(field);
    expect(await listNames(eventId)).toEqual([]);
  });

  it("names an unknown field as not known", async () => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", fieldsOf(eventId), { body: { name: "Field", placeholder: "x" } }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ placeholder: "is not a known field" });
  });

  it.each([
    ["text", { min: "10", max: "9" }],
    ["password", { min: "12", max: "8" }],
    ["date", { min: "2024-12-31", max: "2024-01-01" }],
    ["time", { min: "18:00", max: "09:00" }],
  ])("refuses a %s field whose min is above its max", async (type, bounds) => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", fieldsOf(eventId), { body: { name: "Bounded", type, ...bounds } }), 400, "rest_invalid_param");
    const named = Object.keys(err.data.params!);
    expect(named.length).toBeGreaterThan(0);
    for (const key of named) expect(["min", "max"]).toContain(key);
    expect(await listNames(eventId)).toEqual([]);
  });

  it("reports several problems at once", async () => {
    const eventId = await newEvent();
    const err = await expectError(
      call("POST", fieldsOf(eventId), { body: { name: "Secret", type: "password", is_personalised: true, min: "x" } }),
      400,
      "rest_invalid_param",
    );
    expect(Object.keys(err.data.params!).sort()).toEqual(["is_personalised", "min"]);
  });
});

describe("names are unique per event", () => {
  it("refuses a name already used in the event with 409 rest_conflict, also after trimming", async () => {
    const eventId = await newEvent();
    await createInputField(eventId, { name: "Company" });
    await expectError(call("POST", fieldsOf(eventId), { body: { name: "Company" } }), 409, "rest_conflict");
    await expectError(call("POST", fieldsOf(eventId), { body: { name: " Company ", type: "select", value: "a,b" } }), 409, "rest_conflict");
    expect(await listNames(eventId)).toEqual(["Company"]);
  });

  it("compares names case-sensitively", async () => {
    const eventId = await newEvent();
    await createInputField(eventId, { name: "Company" });
    await createInputField(eventId, { name: "company" });
    await createInputField(eventId, { name: "COMPANY" });
    expect(await listNames(eventId)).toEqual(["Company", "company", "COMPANY"]);
  });

  it("allows the same name in another event", async () => {
    const first = await newEvent();
    const second = await newEvent();
    await createInputField(first, { name: "Company" });
    await createInputField(second, { name: "Company" });
    expect(await listNames(second)).toEqual(["Company"]);
  });

  it("refuses renaming onto another field's name with 409 and keeps both", async () => {
    const eventId = await newEvent();
    await createInputField(eventId, { name: "Company" });
    const other = await createInputField(eventId, { name: "Department" });
    await expectError(call("PUT", fieldOf(eventId, other.id), { body: { name: "Company" } }), 409, "rest_conflict");
    expect(await listNames(eventId)).toEqual(["Company", "Department"]);
    const renamed = await expectJson(call("PUT", fieldOf(eventId, other.id), { body: { name: "company" } }), 200);
    expect(renamed.name).toBe("company");
  });
});

describe("GET /admin/events/<event_id>/input-fields", () => {
  it("lists the event's fields as a bare array in creation order, with unpaged headers", async () => {
    const eventId = await newEvent();
    const created = [];
    for (const name of ["Zeta", "Alpha", "Mu"]) created.push(await createInputField(eventId, { name }));
    const other = await newEvent();
    await createInputField(other, { name: "Elsewhere" });

    const res = await call("GET", fieldsOf(eventId));
    const list = await expectJson<any[]>(res, 200);
    expect(Array.isArray(list)).toBe(true);
    expect(list).toEqual(created);
    expect(res.headers.get("X-WP-Total")).toBe("3");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("answers an empty array for an event without fields", async () => {
    const eventId = await newEvent();
    const res = await call("GET", fieldsOf(eventId));
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
  });

  it("keeps only the fields named in _fields, on the list and on one field", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Company" });
    await createInputField(eventId, { name: "Phone" });
    const list = await expectJson<any[]>(call("GET", `${fieldsOf(eventId)}?_fields=name,type,nonsense`), 200);
    expect(list).toEqual([
      { name: "Company", type: "text" },
      { name: "Phone", type: "text" },
    ]);
    const one = await expectJson(call("GET", `${fieldOf(eventId, field.id)}?_fields=id,_links`), 200);
    expect(one).toEqual({ id: field.id, _links: field._links });
  });
});

describe("PUT /admin/events/<event_id>/input-fields/<input_field_id>", () => {
  it("changes the fields sent and keeps the rest", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Company", is_required: true });
    const updated = await expectJson(call("PUT", fieldOf(eventId, field.id), { body: { value: "ACME" } }), 200);
    expect(updated).toEqual({ ...field, value: "ACME" });
    expect(await expectJson(call("GET", fieldOf(eventId, field.id)), 200)).toEqual(updated);
  });

  it("changes nothing for an empty body", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Company" });
    expect(await expectJson(call("PUT", fieldOf(eventId, field.id), { body: {} }), 200)).toEqual(field);
  });

  it("accepts what a client read, sent back whole (id equal, _links ignored)", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Size", type: "select", value: "S,M" });
    const read = await expectJson(call("GET", fieldOf(eventId, field.id)), 200);
    const updated = await expectJson(call("PUT", fieldOf(eventId, field.id), { body: { ...read, value: "S,M,L" } }), 200);
    expect(updated).toEqual({ ...field, value: "S,M,L" });
  });

  it("refuses a different id, naming it, and changes nothing", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Company" });
    const otherId = field.id === "v00000" ? "v00001" : "v00000";
    const err = await expectError(call("PUT", fieldOf(eventId, field.id), { body: { id: otherId, value: "x" } }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ id: expect.any(String) });
    expect(await expectJson(call("GET", fieldOf(eventId, field.id)), 200)).toEqual(field);
  });

  it.each([
    ["type", { type: "radio" }],
    ["name", { name: "" }],
    ["name", { name: "a,b" }],
    ["name", { name: "Order-id" }],
    ["value", { value: "v".repeat(51) }],
    ["min", { min: "abc" }],
    ["is_required", { is_required: null }],
    ["colour", { colour: "red" }],
  ])("refuses an invalid %s and changes nothing", async (field, body) => {
    const eventId = await newEvent();
    const current = await createInputField(eventId, { name: "Company" });
    const err = await expectError(call("PUT", fieldOf(eventId, current.id), { body }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual([field]);
    expect(await expectJson(call("GET", fieldOf(eventId, current.id)), 200)).toEqual(current);
  });

  it("checks the field as a whole: a new type must suit the stored bounds and flags", async () => {
    const eventId = await newEvent();
    const bounded = await createInputField(eventId, { name: "Bounded", min: "2", max: "20" });
    let err = await expectError(call("PUT", fieldOf(eventId, bounded.id), { body: { type: "select", value: "a,b" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!).sort()).toEqual(["max", "min"]);
    err = await expectError(call("PUT", fieldOf(eventId, bounded.id), { body: { type: "date" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!).sort()).toEqual(["max", "min"]);
    const select = await expectJson(call("PUT", fieldOf(eventId, bounded.id), { body: { type: "select", value: "a,b", min: "", max: "" } }), 200);
    expect(select).toMatchObject({ type: "select", value: "a,b", min: "", max: "" });

    const personal = await createInputField(eventId, { name: "Personal", is_personalised: true });
    err = await expectError(call("PUT", fieldOf(eventId, personal.id), { body: { type: "password" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["is_personalised"]);
    const secret = await createInputField(eventId, { name: "Secret", type: "password" });
    err = await expectError(call("PUT", fieldOf(eventId, secret.id), { body: { is_personalised: true } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["is_personalised"]);

    err = await expectError(call("PUT", fieldOf(eventId, bounded.id), { body: { type: "text", min: "5", max: "4" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!).every((k) => k === "min" || k === "max")).toBe(true);
    err = await expectError(call("PUT", fieldOf(eventId, personal.id), { body: { max: "1", min: "3" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!).every((k) => k === "min" || k === "max")).toBe(true);
  });
});

describe("references from ticket types", () => {
  it("carries a rename into every personalise and layout list of the event, and nowhere else", async () => {
    const eventId = await newEvent();
    const diet = await createInputField(eventId, { name: "Diet", is_personalised: true });
    const company = await createInputField(eventId, { name: "Company" });
    const regular = await createTicketType(eventId, { name: "Regular", personalise: "Diet", layout: "Order-id,Company,Diet" });
    const vip = await createTicketType(eventId, { name: "VIP", layout: "Diet,Name" });
    expect(regular).toMatchObject({ personalise: "Diet", layout: "Order-id,Company,Diet" });

    // Another event with same-named fields and lists must not change.
    const otherEvent = await newEvent();
    await createInputField(otherEvent, { name: "Diet", is_personalised: true });
    await createInputField(otherEvent, { name: "Company" });
    const otherType = await createTicketType(otherEvent, { name: "Regular", personalise: "Diet", layout: "Company,Diet" });

    const renamed = await expectJson(call("PUT", fieldOf(eventId, diet.id), { body: { name: "Dietary needs" } }), 200);
    expect(renamed).toEqual({ ...diet, name: "Dietary needs" });
    await expectJson(call("PUT", fieldOf(eventId, company.id), { body: { name: "Organisation" } }), 200);

    expect(await expectJson(call("GET", typeOf(eventId, regular.id)), 200)).toMatchObject({
      personalise: "Dietary needs",
      layout: "Order-id,Organisation,Dietary needs",
    });
    expect(await expectJson(call("GET", typeOf(eventId, vip.id)), 200)).toMatchObject({ personalise: "", layout: "Dietary needs,Name" });
    expect(await expectJson(call("GET", typeOf(otherEvent, otherType.id)), 200)).toMatchObject({ personalise: "Diet", layout: "Company,Diet" });

    // The renamed list still validates against the renamed fields.
    await expectJson(call("PUT", typeOf(eventId, regular.id), { body: { personalise: "Dietary needs", layout: "Organisation" } }), 200);
    await expectError(call("PUT", typeOf(eventId, regular.id), { body: { personalise: "Diet" } }), 400, "rest_invalid_param");
  });

  it("refuses to stop personalising a field a personalise list names (409) and changes nothing", async () => {
    const eventId = await newEvent();
    const diet = await createInputField(eventId, { name: "Diet", is_personalised: true });
    const type = await createTicketType(eventId, { name: "Regular", personalise: "Diet" });
    const err = await expectError(call("PUT", fieldOf(eventId, diet.id), { body: { is_personalised: false } }), 409, "rest_conflict");
    expect(err.message).toContain("Regular");
    // Also when the stop comes with a rename or a change to a password field.
    await expectError(call("PUT", fieldOf(eventId, diet.id), { body: { name: "Food", is_personalised: false } }), 409, "rest_conflict");
    await expectError(call("PUT", fieldOf(eventId, diet.id), { body: { type: "password", is_personalised: false } }), 409, "rest_conflict");
    expect(await expectJson(call("GET", fieldOf(eventId, diet.id)), 200)).toEqual(diet);
    expect(await expectJson(call("GET", typeOf(eventId, type.id)), 200)).toMatchObject({ personalise: "Diet" });

    // Once the list no longer names it, it may stop being personalised.
    await expectJson(call("PUT", typeOf(eventId, type.id), { body: { personalise: "" } }), 200);
    const updated = await expectJson(call("PUT", fieldOf(eventId, diet.id), { body: { is_personalised: false } }), 200);
    expect(updated.is_personalised).toBe(false);
  });

  it("lets a field only a layout names stop being personalised", async () => {
    const eventId = await newEvent();
    const diet = await createInputField(eventId, { name: "Diet", is_personalised: true });
    await createTicketType(eventId, { name: "Regular", layout: "Diet" });
    const updated = await expectJson(call("PUT", fieldOf(eventId, diet.id), { body: { is_personalised: false } }), 200);
    expect(updated.is_personalised).toBe(false);
  });

  it("refuses to delete a field a personalise or layout list names (409 naming the ticket type), then deletes it once free", async () => {
    const eventId = await newEvent();
    const diet = await createInputField(eventId, { name: "Allergies", is_personalised: true, is_required: true });
    const company = await createInputField(eventId, { name: "Employer", value: "ACME" });
    const regular = await createTicketType(eventId, { name: "Regular", personalise: "Allergies" });
    const vip = await createTicketType(eventId, { name: "VIP Lounge", layout: "Name,Employer" });

    let err = await expectError(call("DELETE", fieldOf(eventId, diet.id)), 409, "rest_conflict");
    expect(err.message).toContain("Regular");
    err = await expectError(call("DELETE", fieldOf(eventId, company.id)), 409, "rest_conflict");
    expect(err.message).toContain("VIP Lounge");
    expect(await listNames(eventId)).toEqual(["Allergies", "Employer"]);

    await expectJson(call("PUT", typeOf(eventId, regular.id), { body: { personalise: "" } }), 200);
    const res = await expectJson(call("DELETE", fieldOf(eventId, diet.id)), 200);
    expect(res).toEqual({
      deleted: true,
      previous: { name: "Allergies", type: "text", value: "", min: "", max: "", is_required: true, is_personalised: true },
    });
    expect(res.previous).not.toHaveProperty("id");
    expect(res.previous).not.toHaveProperty("_links");
    await expectError(call("GET", fieldOf(eventId, diet.id)), 404, "rest_input_field_invalid_id");

    await expectJson(call("PUT", typeOf(eventId, vip.id), { body: { layout: "" } }), 200);
    const { id: _id, _links, ...previous } = company;
    expect(await expectJson(call("DELETE", fieldOf(eventId, company.id)), 200)).toEqual({ deleted: true, previous });
    expect(await listNames(eventId)).toEqual([]);
  });

  it("does not count references from the ticket types of other events when deleting", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Seat row", is_personalised: true });
    // Another event has a field of the same name that its ticket type names in both lists.
    const otherEvent = await newEvent();
    await createInputField(otherEvent, { name: "Seat row", is_personalised: true });
    await createTicketType(otherEvent, { name: "Elsewhere personalised", personalise: "Seat row" });
    await createTicketType(otherEvent, { name: "Elsewhere layout", layout: "Seat row" });

    const res = await expectJson(call("DELETE", fieldOf(eventId, field.id)), 200);
    expect(res).toMatchObject({ deleted: true, previous: { name: "Seat row" } });
    expect(await listNames(eventId)).toEqual([]);
    expect(await listNames(otherEvent)).toEqual(["Seat row"]);
  });

  it("matches references case-sensitively", async () => {
    const eventId = await newEvent();
    const upper = await createInputField(eventId, { name: "Wheelchair", is_personalised: true });
    await createInputField(eventId, { name: "wheelchair", is_personalised: true });
    await createTicketType(eventId, { name: "Regular", personalise: "wheelchair", layout: "wheelchair" });
    const updated = await expectJson(call("PUT", fieldOf(eventId, upper.id), { body: { is_personalised: false } }), 200);
    expect(updated.is_personalised).toBe(false);
    await expectJson(call("DELETE", fieldOf(eventId, upper.id)), 200);
    expect(await listNames(eventId)).toEqual(["wheelchair"]);
  });
});

describe("DELETE /admin/events/<event_id>/input-fields/<input_field_id>", () => {
  it("deletes a field, answers deleted and previous without id and _links, and keeps the others in order", async () => {
    const eventId = await newEvent();
    const a = await createInputField(eventId, { name: "A" });
    const b = await createInputField(eventId, { name: "B", type: "time", min: "08:00" });
    const c = await createInputField(eventId, { name: "C" });
    const res = await expectJson(call("DELETE", fieldOf(eventId, b.id)), 200);
    expect(res).toEqual({ deleted: true, previous: { name: "B", type: "time", value: "", min: "08:00", max: "", is_required: false, is_personalised: false } });
    expect(await expectJson(call("GET", fieldsOf(eventId)), 200)).toEqual([a, c]);
    await expectError(call("DELETE", fieldOf(eventId, b.id)), 404, "rest_input_field_invalid_id");
    // The name is free again, and a new field comes last.
    await createInputField(eventId, { name: "B" });
    expect(await listNames(eventId)).toEqual(["A", "C", "B"]);
  });
});

describe("ids in the path", () => {
  it.each(["vfffff", "v00000"])("answers 404 rest_input_field_invalid_id for the unknown id %s", async (fieldId) => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Company" });
    const id = field.id === fieldId ? "vabcde" : fieldId;
    await expectError(call("GET", fieldOf(eventId, id)), 404, "rest_input_field_invalid_id");
    await expectError(call("PUT", fieldOf(eventId, id), { body: { value: "x" } }), 404, "rest_input_field_invalid_id");
    await expectError(call("DELETE", fieldOf(eventId, id)), 404, "rest_input_field_invalid_id");
  });

  it.each(["abc", "vABCDE", "v1234", "v123456", "x12345", "vghijk", "1"])("answers 404 rest_input_field_invalid_id for the malformed id %s", async (fieldId) => {
    const eventId = await newEvent();
    await expectError(call("GET", fieldOf(eventId, fieldId)), 404, "rest_input_field_invalid_id");
    await expectError(call("PUT", fieldOf(eventId, fieldId), { body: { value: "x" } }), 404, "rest_input_field_invalid_id");
    await expectError(call("DELETE", fieldOf(eventId, fieldId)), 404, "rest_input_field_invalid_id");
  });

  it("does not find a field through another event", async () => {
    const eventId = await newEvent();
    const other = await newEvent();
    const field = await createInputField(other, { name: "Company" });
    await expectError(call("GET", fieldOf(eventId, field.id)), 404, "rest_input_field_invalid_id");
    await expectError(call("PUT", fieldOf(eventId, field.id), { body: { value: "x" } }), 404, "rest_input_field_invalid_id");
    await expectError(call("DELETE", fieldOf(eventId, field.id)), 404, "rest_input_field_invalid_id");
    expect(await expectJson(call("GET", fieldOf(other, field.id)), 200)).toEqual(field);
  });

  it.each(["999999999", "abc", "0", "-1"])("answers 404 rest_event_invalid_id for the unknown or malformed event %s", async (eventId) => {
    const base = `/admin/events/${eventId}/input-fields`;
    await expectError(call("GET", base), 404, "rest_event_invalid_id");
    await expectError(call("POST", base, { body: { name: "Company" } }), 404, "rest_event_invalid_id");
    await expectError(call("GET", `${base}/vabcde`), 404, "rest_event_invalid_id");
    await expectError(call("PUT", `${base}/vabcde`, { body: { value: "x" } }), 404, "rest_event_invalid_id");
    await expectError(call("DELETE", `${base}/vabcde`), 404, "rest_event_invalid_id");
  });
});

describe("ids in the path: the outer id first", () => {
  it("answers an unknown event as such even when the field id is malformed too", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      await expectError(call(method, "/admin/events/999999999/input-fields/not-an-id", { body: method === "PUT" ? {} : undefined }), 404, "rest_event_invalid_id");
    }
  });
});

describe("authority", () => {
  it("lets an organizer do everything on an event it is authorised for", async () => {
    const eventId = await newEvent();
    const organizer = await createUser("organizer", { authorised_events: [eventId] });
    const auth = organizer.credentials;
    const field = await expectJson(call("POST", fieldsOf(eventId), { body: { name: "Organizer field" }, auth }), 201);
    expect(await expectJson(call("GET", fieldsOf(eventId), { auth }), 200)).toEqual([field]);
    expect(await expectJson(call("GET", fieldOf(eventId, field.id), { auth }), 200)).toEqual(field);
    expect(await expectJson(call("PUT", fieldOf(eventId, field.id), { body: { is_required: true }, auth }), 200)).toMatchObject({ is_required: true });
    expect(await expectJson(call("DELETE", fieldOf(eventId, field.id), { auth }), 200)).toMatchObject({ deleted: true, previous: { name: "Organizer field" } });
  });

  it("lets an organizer manage the fields of an event it created itself", async () => {
    const organizer = await createUser("organizer");
    const event = await createEvent({}, organizer.credentials);
    const field = await createInputField(event.id, { name: "Company" }, organizer.credentials);
    expect(await expectJson(call("GET", fieldsOf(event.id), { auth: organizer.credentials }), 200)).toEqual([field]);
  });

  it("answers 403 rest_forbidden to an organizer without the event, for every method, and changes nothing", async () => {
    const eventId = await newEvent();
    const elsewhere = await newEvent();
    const field = await createInputField(eventId, { name: "Company" });
    const organizer = await createUser("organizer", { authorised_events: [elsewhere] });
    const auth = organizer.credentials;
    await expectError(call("GET", fieldsOf(eventId), { auth }), 403, "rest_forbidden");
    await expectError(call("POST", fieldsOf(eventId), { body: { name: "Phone" }, auth }), 403, "rest_forbidden");
    await expectError(call("GET", fieldOf(eventId, field.id), { auth }), 403, "rest_forbidden");
    await expectError(call("PUT", fieldOf(eventId, field.id), { body: { value: "x" }, auth }), 403, "rest_forbidden");
    await expectError(call("DELETE", fieldOf(eventId, field.id), { auth }), 403, "rest_forbidden");
    expect(await expectJson(call("GET", fieldsOf(eventId)), 200)).toEqual([field]);
  });

  it("lets another administrator do everything", async () => {
    const eventId = await newEvent();
    const admin = await createUser("administrator");
    const field = await createInputField(eventId, { name: "Administrator field" }, admin.credentials);
    await expectJson(call("PUT", fieldOf(eventId, field.id), { body: { type: "date" }, auth: admin.credentials }), 200);
    await expectJson(call("DELETE", fieldOf(eventId, field.id), { auth: admin.credentials }), 200);
    expect(await listNames(eventId)).toEqual([]);
  });

  it("answers 401 without the API key, or with a wrong one", async () => {
    const eventId = await newEvent();
    for (const key of [null, "wrong-key"]) {
      await expectError(call("GET", fieldsOf(eventId), { key }), 401, "rest_forbidden_api_key");
      await expectError(call("POST", fieldsOf(eventId), { key, body: { name: "Company" } }), 401, "rest_forbidden_api_key");
    }
    expect(await listNames(eventId)).toEqual([]);
  });

  it("answers 401 without Basic credentials, or with wrong ones", async () => {
    const eventId = await newEvent();
    const field = await createInputField(eventId, { name: "Company" });
    const res = await call("GET", fieldsOf(eventId), { auth: null });
    expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
    await expectError(res, 401, "rest_not_logged_in");
    await expectError(call("POST", fieldsOf(eventId), { auth: null, body: { name: "Phone" } }), 401, "rest_not_logged_in");
    await expectError(call("PUT", fieldOf(eventId, field.id), { auth: null, body: { value: "x" } }), 401, "rest_not_logged_in");
    await expectError(call("DELETE", fieldOf(eventId, field.id), { auth: null }), 401, "rest_not_logged_in");
    await expectError(call("GET", fieldsOf(eventId), { auth: { username: ADMIN.username, password: "wrong" } }), 401, "incorrect_password");
    expect(await listNames(eventId)).toEqual(["Company"]);
  });
});

describe("references under concurrent changes", () => {
  const ROUNDS = 5;

  it("never leaves a ticket type naming a field deleted at the same time", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const eventId = await newEvent();
      const field = await createInputField(eventId, { name: "Racer", is_personalised: true });
      const [deleting, creating] = await Promise.all([
        call("DELETE", fieldOf(eventId, field.id)),
        call("POST", `/admin/events/${eventId}/ticket-types`, { body: { name: "Regular", price: 10, personalise: "Racer" } }),
      ]);
      // One of the two must lose: the delete with 409, or the ticket type with 400 (unknown name).
      expect([deleting.status, creating.status], `round ${round}`).not.toEqual([200, 201]);
      const names = await listNames(eventId);
      const types = await expectJson<any[]>(call("GET", `/admin/events/${eventId}/ticket-types`), 200);
      for (const type of types) for (const name of type.personalise.split(",").filter(Boolean)) expect(names).toContain(name);
    }
  });

  it("never leaves a ticket type personalising a field that stopped being personalised at the same time", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const eventId = await newEvent();
      const field = await createInputField(eventId, { name: "Racer", is_personalised: true });
      const [updating, creating] = await Promise.all([
        call("PUT", fieldOf(eventId, field.id), { body: { is_personalised: false } }),
        call("POST", `/admin/events/${eventId}/ticket-types`, { body: { name: "Regular", price: 10, personalise: "Racer" } }),
      ]);
      expect([updating.status, creating.status], `round ${round}`).not.toEqual([200, 201]);
      const stored = await expectJson(call("GET", fieldOf(eventId, field.id)), 200);
      const types = await expectJson<any[]>(call("GET", `/admin/events/${eventId}/ticket-types`), 200);
      if (types.some((t) => t.personalise === "Racer")) expect(stored.is_personalised).toBe(true);
    }
  });
});
