import { describe, expect, it } from "vitest";
import { BASE, call, createUser, expectError, expectJson } from "../../helpers/api";
import { createEvent, createScanKey, createTicketType } from "../../helpers/catalogue";

/** `/admin/events/<event_id>/scan-keys` (decisions.md sections 3, 6, 12, 13). Each test uses its own event. */

const SCAN_KEY_FIELDS = ["_links", "date_format", "key", "level", "location", "tickets"];
const KEY = /^[A-Za-z0-9]{16}$/;

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** A chosen key that no other test uses: 16 random characters of [A-Za-z0-9]. */
function freshKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => ALPHANUMERIC[b % 62]).join("");
}

const keysPath = (eventId: number) => `/admin/events/${eventId}/scan-keys`;
const keyPath = (eventId: number, key: string) => `/admin/events/${eventId}/scan-keys/${key}`;

async function newEvent(): Promise<number> {
  return (await createEvent()).id as number;
}

/** An event with the ticket types `Regular` and `VIP`. */
async function eventWithTypes(): Promise<number> {
  const id = await newEvent();
  await createTicketType(id, { name: "Regular" });
  await createTicketType(id, { name: "VIP", price: 50 });
  return id;
}

describe("POST /admin/events/<event_id>/scan-keys", () => {
  it("creates a key from a location alone: 201, Location, the defaults and a generated key", async () => {
    const eventId = await newEvent();
    const res = await call("POST", keysPath(eventId), { body: { location: "Main entrance" } });
    const body = await expectJson(res, 201);
    expect(Object.keys(body).sort()).toEqual(SCAN_KEY_FIELDS);
    expect(body.key).toMatch(KEY);
    expect(body).toEqual({
      key: body.key,
      level: 0,
      tickets: "",
      date_format: "Y-m-d H:i:s",
      location: "Main entrance",
      _links: {
        self: [{ href: `${BASE}${keyPath(eventId, body.key)}` }],
        collection: [{ href: `${BASE}${keysPath(eventId)}` }],
      },
    });
    expect(res.headers.get("Location")).toBe(`${BASE}${keyPath(eventId, body.key)}`);

    // The Location names the stored resource, and reading it gives the same answer.
    expect(await expectJson(call("GET", keyPath(eventId, body.key)), 200)).toEqual(body);
  });

  it("generates a different key each time", async () => {
    const eventId = await newEvent();
    const a = await createScanKey(eventId, { location: "Door A" });
    const b = await createScanKey(eventId, { location: "Door B" });
    expect(a.key).toMatch(KEY);
    expect(b.key).toMatch(KEY);
    expect(a.key).not.toBe(b.key);
  });

  it("creates a key with a chosen key, level, ticket filter and date format", async () => {
    const eventId = await eventWithTypes();
    const key = freshKey();
    const res = await call("POST", keysPath(eventId), {
      body: { key, level: 9, tickets: "VIP, Regular", date_format: "d/m/Y \\a\\t H:i", location: "  Exit gate  " },
    });
    const body = await expectJson(res, 201);
    expect(res.headers.get("Location")).toBe(`${BASE}${keyPath(eventId, key)}`);
    expect(body).toMatchObject({ key, level: 9, tickets: "VIP,Regular", date_format: "d/m/Y \\a\\t H:i", location: "Exit gate" });
    expect(await expectJson(call("GET", keyPath(eventId, key)), 200)).toEqual(body);
  });

  it.each([0, 1, 6, 7, 8, 9])("accepts level %i", async (level) => {
    const eventId = await newEvent();
    const body = await createScanKey(eventId, { level, location: `Level ${level}` });
    expect(body.level).toBe(level);
  });

  it("ignores _links sent in a create", async () => {
    const eventId = await newEvent();
    const body = await createScanKey(eventId, { location: "Side door", _links: { self: [{ href: "http://elsewhere" }] } });
    expect(body._links.self[0].href).toBe(`${BASE}${keyPath(eventId, body.key)}`);
  });
});

describe("GET /admin/events/<event_id>/scan-keys", () => {
  it("lists the event's keys as a bare array in creation order, with unpaged headers", async () => {
    const eventId = await newEvent();
    const other = await newEvent();
    const a = await createScanKey(eventId, { location: "North" });
    const b = await createScanKey(eventId, { location: "South", level: 1 });
    await createScanKey(other, { location: "North" });

    const res = await call("GET", keysPath(eventId));
    const list = await expectJson<any[]>(res, 200);
    expect(Array.isArray(list)).toBe(true);
    expect(list).toEqual([a, b]);
    expect(res.headers.get("X-WP-Total")).toBe("2");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("lists an event without keys as an empty array", async () => {
    const eventId = await newEvent();
    const res = await call("GET", keysPath(eventId));
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
  });

  it("keeps only the fields named in _fields, in the list and for one key", async () => {
    const eventId = await newEvent();
    const a = await createScanKey(eventId, { location: "Hall", level: 7 });
    const list = await expectJson<any[]>(call("GET", `${keysPath(eventId)}?_fields=key,level,nonsense`), 200);
    expect(list).toEqual([{ key: a.key, level: 7 }]);
    const one = await expectJson(call("GET", `${keyPath(eventId, a.key)}?_fields=location,_links`), 200);
    expect(one).toEqual({ location: "Hall", _links: a._links });
  });
});

describe("validation", () => {
  it.each([
    ["too short", "abc123"],
    ["15 characters", "abcdefghijklmno"],
    ["17 characters", "abcdefghijklmnopq"],
    ["a non-alphanumeric character", "abcdefghijklmn-_"],
    ["a non-ASCII letter", "abcdefghijklmnoé"],
    ["not a string", 1234567890123456],
  ])("refuses a key with %s", async (_why, key) => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { key, location: "Gate" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["key"]);
    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([]);
  });

  it.each([2, 3, 4, 5, 10, -1, 1.5, "0", null])("refuses level %j", async (level) => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { level, location: "Gate" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["level"]);
  });

  it("refuses tickets naming a ticket type the event does not have (names are case-sensitive)", async () => {
    const eventId = await eventWithTypes();
    const other = await newEvent();
    await createTicketType(other, { name: "Backstage" });

    for (const tickets of ["Backstage", "vip", "VIP,regular", "Regular,VIP,Crew"]) {
      const err = await expectError(call("POST", keysPath(eventId), { body: { tickets, location: "Gate" } }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!), tickets).toEqual(["tickets"]);
    }
    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([]);

    // The exact names are accepted.
    expect((await createScanKey(eventId, { tickets: "VIP", location: "Gate" })).tickets).toBe("VIP");
  });

  it("refuses tickets on an event without ticket types", async () => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { tickets: "Regular", location: "Gate" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["tickets"]);
  });

  it.each(["Y-m-d H:i:s T", "Q", "Y-m-d\\", "", "c"])("refuses date_format %j", async (date_format) => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { date_format, location: "Gate" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["date_format"]);
  });

  it("accepts escaped letters in date_format", async () => {
    const eventId = await newEvent();
    const body = await createScanKey(eventId, { date_format: "D j M Y \\T H:i", location: "Gate" });
    expect(body.date_format).toBe("D j M Y \\T H:i");
  });

  it("requires a location", async () => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { level: 1 } }), 400, "rest_missing_callback_param");
    expect(err.data.params).toEqual({ location: "is required" });
  });

  it.each(["", "   ", 42])("refuses location %j", async (location) => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { location } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["location"]);
  });

  it("refuses an unknown field on create and on update", async () => {
    const eventId = await newEvent();
    const err = await expectError(call("POST", keysPath(eventId), { body: { location: "Gate", colour: "red" } }), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ colour: "is not a known field" });
    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([]);

    const key = await createScanKey(eventId, { location: "Gate" });
    const err2 = await expectError(call("PUT", keyPath(eventId, key.key), { body: { levle: 1 } }), 400, "rest_invalid_param");
    expect(err2.data.params).toEqual({ levle: "is not a known field" });
    expect(await expectJson(call("GET", keyPath(eventId, key.key)), 200)).toEqual(key);
  });

  it("validates the fields of an update like those of a create", async () => {
    const eventId = await eventWithTypes();
    const key = await createScanKey(eventId, { location: "Gate" });
    for (const [field, value] of [
      ["level", 5],
      ["tickets", "Crew"],
      ["tickets", "vip"],
      ["date_format", "Y-m-d e"],
      ["location", ""],
    ] as const) {
      const err = await expectError(call("PUT", keyPath(eventId, key.key), { body: { [field]: value } }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!), `${field}=${value}`).toEqual([field]);
    }
    expect(await expectJson(call("GET", keyPath(eventId, key.key)), 200)).toEqual(key);
  });

  it("refuses a different key on update, and accepts the same one (a client may PUT back what it read)", async () => {
    const eventId = await eventWithTypes();
    const key = await createScanKey(eventId, { location: "Gate" });

    const err = await expectError(call("PUT", keyPath(eventId, key.key), { body: { key: freshKey(), level: 1 } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["key"]);
    expect(await expectJson(call("GET", keyPath(eventId, key.key)), 200)).toEqual(key);

    const read = await expectJson(call("GET", keyPath(eventId, key.key)), 200);
    const sentBack = { ...read, level: 8, tickets: "VIP", location: "Back gate" };
    const updated = await expectJson(call("PUT", keyPath(eventId, key.key), { body: sentBack }), 200);
    expect(updated).toEqual({ ...read, level: 8, tickets: "VIP", location: "Back gate" });

    // Exactly what was read, unchanged, is accepted too.
    expect(await expectJson(call("PUT", keyPath(eventId, key.key), { body: updated }), 200)).toEqual(updated);
  });
});

describe("PUT /admin/events/<event_id>/scan-keys/<key>", () => {
  it("changes only the fields sent and keeps the key", async () => {
    const eventId = await eventWithTypes();
    const key = await createScanKey(eventId, { location: "Gate", level: 0, tickets: "Regular" });

    const updated = await expectJson(call("PUT", keyPath(eventId, key.key), { body: { level: 1, date_format: "H:i" } }), 200);
    expect(updated).toEqual({ ...key, level: 1, date_format: "H:i" });
    expect(await expectJson(call("GET", keyPath(eventId, key.key)), 200)).toEqual(updated);

    const cleared = await expectJson(call("PUT", keyPath(eventId, key.key), { body: { tickets: "" } }), 200);
    expect(cleared.tickets).toBe("");
    expect(cleared).toEqual({ ...updated, tickets: "" });
  });
});

describe("uniqueness", () => {
  it("keeps a key unique across the whole service", async () => {
    const eventA = await newEvent();
    const eventB = await newEvent();
    const key = freshKey();
    await createScanKey(eventA, { key, location: "Gate" });

    await expectError(call("POST", keysPath(eventB), { body: { key, location: "Other gate" } }), 409, "rest_conflict");
    await expectError(call("POST", keysPath(eventA), { body: { key, location: "Other gate" } }), 409, "rest_conflict");

    expect(await expectJson(call("GET", keysPath(eventB)), 200)).toEqual([]);
    const listA = await expectJson<any[]>(call("GET", keysPath(eventA)), 200);
    expect(listA.map((k) => [k.key, k.location])).toEqual([[key, "Gate"]]);
  });

  it("keeps a location unique per event, and lets another event use it", async () => {
    const eventA = await newEvent();
    const eventB = await newEvent();
    const first = await createScanKey(eventA, { location: "Main hall" });

    await expectError(call("POST", keysPath(eventA), { body: { location: "Main hall", level: 9 } }), 409, "rest_conflict");
    // Trimmed before the comparison.
    await expectError(call("POST", keysPath(eventA), { body: { location: " Main hall " } }), 409, "rest_conflict");
    expect(await expectJson(call("GET", keysPath(eventA)), 200)).toEqual([first]);

    const other = await createScanKey(eventB, { location: "Main hall" });
    expect(other.location).toBe("Main hall");
  });

  it("refuses an update to a location the event already uses", async () => {
    const eventId = await newEvent();
    await createScanKey(eventId, { location: "North" });
    const south = await createScanKey(eventId, { location: "South" });

    await expectError(call("PUT", keyPath(eventId, south.key), { body: { location: "North" } }), 409, "rest_conflict");
    expect(await expectJson(call("GET", keyPath(eventId, south.key)), 200)).toEqual(south);

    // Its own location is no clash.
    expect(await expectJson(call("PUT", keyPath(eventId, south.key), { body: { location: "South", level: 1 } }), 200)).toMatchObject({
      location: "South",
      level: 1,
    });
  });
});

describe("DELETE /admin/events/<event_id>/scan-keys/<key>", () => {
  it("answers {deleted, previous} with previous without _links; the key is gone afterwards", async () => {
    const eventId = await eventWithTypes();
    const key = await createScanKey(eventId, { location: "Gate", level: 6, tickets: "VIP" });
    const keep = await createScanKey(eventId, { location: "Other" });

    const body = await expectJson(call("DELETE", keyPath(eventId, key.key)), 200);
    const { _links: _, ...previous } = key;
    expect(body).toEqual({ deleted: true, previous });
    expect(Object.keys(body.previous).sort()).toEqual(["date_format", "key", "level", "location", "tickets"]);

    await expectError(call("GET", keyPath(eventId, key.key)), 404, "rest_scan_key_invalid_id");
    await expectError(call("PUT", keyPath(eventId, key.key), { body: { level: 1 } }), 404, "rest_scan_key_invalid_id");
    await expectError(call("DELETE", keyPath(eventId, key.key)), 404, "rest_scan_key_invalid_id");
    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([keep]);

    // The location is free again.
    expect((await createScanKey(eventId, { location: "Gate" })).location).toBe("Gate");
  });

  it("does not find a key of another event under this event", async () => {
    const eventA = await newEvent();
    const eventB = await newEvent();
    const keyOfB = await createScanKey(eventB, { location: "Gate" });

    await expectError(call("GET", keyPath(eventA, keyOfB.key)), 404, "rest_scan_key_invalid_id");
    await expectError(call("PUT", keyPath(eventA, keyOfB.key), { body: { level: 9 } }), 404, "rest_scan_key_invalid_id");
    await expectError(call("DELETE", keyPath(eventA, keyOfB.key)), 404, "rest_scan_key_invalid_id");

    expect(await expectJson(call("GET", keyPath(eventB, keyOfB.key)), 200)).toEqual(keyOfB);
  });

  it("answers a path key that cannot be a key as an unknown key", async () => {
    const eventId = await newEvent();
    await expectError(call("GET", keyPath(eventId, "short")), 404, "rest_scan_key_invalid_id");
    await expectError(call("DELETE", keyPath(eventId, "abcdefghijklmnop1")), 404, "rest_scan_key_invalid_id");
    await expectError(call("GET", keyPath(eventId, "AAAAAAAAAAAAAAAA")), 404, "rest_scan_key_invalid_id");
  });
});

describe("authority and roles", () => {
  it("lets an organizer with the event authorised do everything", async () => {
    const eventId = await eventWithTypes();
    const organizer = await createUser("organizer", { authorised_events: [eventId] });
    const auth = organizer.credentials;

    const created = await createScanKey(eventId, { location: "Gate", tickets: "VIP" }, auth);
    expect(await expectJson(call("GET", keysPath(eventId), { auth }), 200)).toEqual([created]);
    expect(await expectJson(call("GET", keyPath(eventId, created.key), { auth }), 200)).toEqual(created);
    const updated = await expectJson(call("PUT", keyPath(eventId, created.key), { body: { level: 1 }, auth }), 200);
    expect(updated.level).toBe(1);
    const removed = await expectJson(call("DELETE", keyPath(eventId, created.key), { auth }), 200);
    expect(removed.deleted).toBe(true);
    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([]);
  });

  it("lets an organizer manage the keys of an event it created", async () => {
    const organizer = await createUser("organizer");
    const event = await createEvent({ event_name: "Own event" }, organizer.credentials);
    const key = await createScanKey(event.id, { location: "Gate" }, organizer.credentials);
    expect(await expectJson(call("GET", keysPath(event.id), { auth: organizer.credentials }), 200)).toEqual([key]);
  });

  it("refuses an organizer without the event with 403, and changes nothing", async () => {
    const eventId = await newEvent();
    const elsewhere = await newEvent();
    const existing = await createScanKey(eventId, { location: "Gate" });
    const organizer = await createUser("organizer", { authorised_events: [elsewhere] });
    const auth = organizer.credentials;

    await expectError(call("GET", keysPath(eventId), { auth }), 403, "rest_forbidden");
    await expectError(call("POST", keysPath(eventId), { body: { location: "Sneaky" }, auth }), 403, "rest_forbidden");
    await expectError(call("GET", keyPath(eventId, existing.key), { auth }), 403, "rest_forbidden");
    await expectError(call("PUT", keyPath(eventId, existing.key), { body: { level: 9 }, auth }), 403, "rest_forbidden");
    await expectError(call("DELETE", keyPath(eventId, existing.key), { auth }), 403, "rest_forbidden");

    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([existing]);
  });

  it("needs the API key and Basic credentials", async () => {
    const eventId = await newEvent();
    const existing = await createScanKey(eventId, { location: "Gate" });

    await expectError(call("GET", keysPath(eventId), { key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("POST", keysPath(eventId), { key: null, body: { location: "X" } }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", keysPath(eventId), { key: "wrong-key" }), 401, "rest_forbidden_api_key");
    // A scan key is not the service key.
    await expectError(call("GET", keysPath(eventId), { key: existing.key }), 401, "rest_forbidden_api_key");

    const res = await call("GET", keysPath(eventId), { auth: null });
    expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
    await expectError(res, 401, "rest_not_logged_in");
    await expectError(call("DELETE", keyPath(eventId, existing.key), { auth: null }), 401, "rest_not_logged_in");
    await expectError(call("PUT", keyPath(eventId, existing.key), { auth: { username: "admin", password: "wrong" }, body: { level: 1 } }), 401, "incorrect_password");

    expect(await expectJson(call("GET", keysPath(eventId)), 200)).toEqual([existing]);
  });

  it("answers 404 rest_event_invalid_id for an unknown event, for every method", async () => {
    const missing = 987_654_321;
    const key = freshKey();
    await expectError(call("GET", keysPath(missing)), 404, "rest_event_invalid_id");
    await expectError(call("POST", keysPath(missing), { body: { location: "Gate" } }), 404, "rest_event_invalid_id");
    await expectError(call("GET", keyPath(missing, key)), 404, "rest_event_invalid_id");
    await expectError(call("PUT", keyPath(missing, key), { body: { level: 1 } }), 404, "rest_event_invalid_id");
    await expectError(call("DELETE", keyPath(missing, key)), 404, "rest_event_invalid_id");
    await expectError(call("GET", "/admin/events/abc/scan-keys"), 404, "rest_event_invalid_id");

    // Also for an organizer (the event does not exist, so there is nothing to be forbidden from).
    const organizer = await createUser("organizer");
    await expectError(call("GET", keysPath(missing), { auth: organizer.credentials }), 404, "rest_event_invalid_id");
  });
});
