import { describe, expect, it } from "vitest";
import { API_KEY, call, createUser, expectError, expectJson, unique } from "../../helpers/api";
import { createScanKey } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";

/**
 * `GET /scan-keys/self` (docs/scanning.md "Offline scanning protocol", "The key's own settings"): what a door phone
 * needs to decide scans offline with the scan key in `X-EVT-API-KEY`, as the event's object decides them: the event,
 * the key's level, location, date format and ticket filter, and the ticket type ids the filter admits. Never the key,
 * never another event. Storage is shared with other files: every test makes its own events.
 */

type Json = Record<string, any>;

const FIELDS = ["event_id", "event_name", "level", "location", "date_format", "tickets", "ticket_type_ids"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const self = (key: string | null, auth: null | undefined = null, query = "") => call("GET", `/scan-keys/self${query}`, { key, auth });
const selfOf = (key: string) => expectJson(self(key), 200);

/** An event taking dashboard orders with the types Regular, VIP and Crew (in that order). */
async function setup() {
  const event = await createOrderEvent();
  const regular = await createOrderType(event.id, "Regular");
  const vip = await createOrderType(event.id, "VIP");
  const crew = await createOrderType(event.id, "Crew");
  return { event, regular, vip, crew, typeIds: [regular.id, vip.id, crew.id] };
}

describe("GET /scan-keys/self", () => {
  it("answers the key's event, level, location, date format and filter; an empty filter admits every type (null)", async () => {
    const f = await setup();
    const key = await createScanKey(f.event.id, { level: 0, location: "Main gate" });
    const res = await self(key.key);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = await expectJson(res, 200);
    expect(body).toStrictEqual({
      event_id: f.event.id,
      event_name: f.event.name,
      level: 0,
      location: "Main gate",
      date_format: "Y-m-d H:i:s",
      tickets: "",
      ticket_type_ids: null,
    });
    expect(Object.keys(body)).toEqual(FIELDS);
    // The key itself is never in the answer.
    expect(JSON.stringify(body)).not.toContain(key.key);
  });

  it("a filter: its names as the admin API shows them, and the ids of the types it admits, in the event's order of types", async () => {
    const f = await setup();
    const key = await createScanKey(f.event.id, { level: 9, location: "Exit", tickets: "Crew, Regular", date_format: "d/m H:i" });
    const admin = await expectJson(call("GET", `/admin/events/${f.event.id}/scan-keys/${key.key}`), 200);
    expect(await selfOf(key.key)).toStrictEqual({
      event_id: f.event.id,
      event_name: f.event.name,
      level: 9,
      location: "Exit",
      date_format: "d/m H:i",
      tickets: admin.tickets,
      ticket_type_ids: [f.regular.id, f.crew.id],
    });
    expect(admin.tickets).toBe("Crew,Regular");
  });

  it("follows changes at once: the key's settings, a renamed type (same id), the event's name; a deleted key is 401", async () => {
    const f = await setup();
    const key = (await createScanKey(f.event.id, { level: 0, location: "Door", tickets: "VIP" })).key as string;
    expect((await selfOf(key)).ticket_type_ids).toEqual([f.vip.id]);

    await expectJson(
      call("PUT", `/admin/events/${f.event.id}/scan-keys/${key}`, { body: { level: 1, location: "Hall", tickets: "Regular,VIP", date_format: "H:i" } }),
      200,
    );
    expect(await selfOf(key)).toMatchObject({ level: 1, location: "Hall", date_format: "H:i", tickets: "Regular,VIP", ticket_type_ids: [f.regular.id, f.vip.id] });

    await expectJson(call("PUT", `/admin/events/${f.event.id}/ticket-types/${f.regular.id}`, { body: { name: "Standard" } }), 200);
    expect(await selfOf(key)).toMatchObject({ tickets: "Standard,VIP", ticket_type_ids: [f.regular.id, f.vip.id] });

    const renamed = unique("Renamed ");
    await expectJson(call("PUT", `/admin/events/${f.event.id}`, { body: { event_name: renamed } }), 200);
    expect((await selfOf(key)).event_name).toBe(renamed);

    await expectJson(call("PUT", `/admin/events/${f.event.id}/scan-keys/${key}`, { body: { tickets: "" } }), 200);
    expect(await selfOf(key)).toMatchObject({ tickets: "", ticket_type_ids: null });

    await expectJson(call("DELETE", `/admin/events/${f.event.id}/scan-keys/${key}`), 200);
    const err = await expectError(self(key), 401, "rest_forbidden_api_key");
    expect(err.message).toBe("Invalid scan key");
  });

  it("decides as the object does: the offline list's ticket_type_id in ticket_type_ids exactly when POST /scans admits the type", async () => {
    const f = await setup();
    const placed = await placeOrder(
      orderBody(f.event.id, f.typeIds, { [f.regular.id]: 2, [f.vip.id]: 1, [f.crew.id]: 1 }, { name: "Door Tester", email: `${unique("self")}@example.com` }),
    );
    const vipDoor = (await createScanKey(f.event.id, { level: 0, location: "VIP door", tickets: "VIP" })).key as string;
    const staffDoor = (await createScanKey(f.event.id, { level: 0, location: "Staff door", tickets: "Crew,VIP" })).key as string;
    const anyDoor = (await createScanKey(f.event.id, { level: 0, location: "Any door" })).key as string;

    let listed: Json[] = [];
    for (const deadline = Date.now() + 5000; listed.length < 4 && Date.now() < deadline; await sleep(25)) {
      listed = (await expectJson(call("GET", "/scans/tickets", { key: anyDoor, auth: null }), 200)).tickets;
    }
    expect(listed.map((t) => t.order_id)).toEqual([placed.id, placed.id, placed.id, placed.id]);

    for (const door of [vipDoor, staffDoor, anyDoor]) {
      const { ticket_type_ids: ids } = await selfOf(door);
      for (const t of listed) {
        const offline = ids === null || ids.includes(t.ticket_type_id);
        const online = await expectJson(call("POST", "/scans", { key: door, auth: null, body: { id: t.ticket_id } }), 200);
        expect(online.error !== "Invalid ticket for this entrance", `${t.ticket_type} at ${(await selfOf(door)).location}`).toBe(offline);
      }
    }
    expect((await selfOf(vipDoor)).ticket_type_ids).toEqual([f.vip.id]);
    expect((await selfOf(staffDoor)).ticket_type_ids).toEqual([f.vip.id, f.crew.id]);
  });

  it("_fields narrows the answer, as on every GET", async () => {
    const f = await setup();
    const key = (await createScanKey(f.event.id, { level: 7, location: "Smoking area" })).key as string;
    expect(await expectJson(self(key, null, "?_fields=level,location"), 200)).toStrictEqual({ level: 7, location: "Smoking area" });
  });
});

describe("who can reach it", () => {
  it("a key answers its own event only: nothing of another event or another organiser's event", async () => {
    const a = await setup();
    const organizer = await createUser("organizer");
    const other = await expectJson(
      call("POST", "/admin/events", { body: { event_name: unique("Theirs "), add_dashboard_orders_needed: true }, auth: organizer.credentials }),
      201,
    );
    const secret = await expectJson(call("POST", `/admin/events/${other.id}/ticket-types`, { body: { name: "Backstage", price: 5 }, auth: organizer.credentials }), 201);
    const theirKey = (await createScanKey(other.id, { level: 0, location: "Their gate", tickets: "Backstage" }, organizer.credentials)).key as string;
    const ourKey = (await createScanKey(a.event.id, { level: 0, location: "Our gate", tickets: "VIP" })).key as string;

    const ours = await selfOf(ourKey);
    expect(ours).toMatchObject({ event_id: a.event.id, location: "Our gate", ticket_type_ids: [a.vip.id] });
    const text = JSON.stringify(ours);
    expect(ours.event_id).not.toBe(other.id);
    for (const leak of [other.event_name, `"${secret.id}"`, "Backstage", "Their gate", theirKey]) expect(text).not.toContain(leak);

    expect(await selfOf(theirKey)).toStrictEqual({
      event_id: other.id,
      event_name: other.event_name,
      level: 0,
      location: "Their gate",
      date_format: "Y-m-d H:i:s",
      tickets: "Backstage",
      ticket_type_ids: [secret.id],
    });
  });

  it("needs a scan key: none, an empty, malformed or unknown one, or the service API key (with or without a login) is 401 Invalid scan key", async () => {
    for (const [key, auth] of [
      [null, null],
      ["", null],
      ["short", null],
      ["NoSuchScanKey000", null],
      ["NoSuchScanKey000/../x", null],
      [API_KEY, null],
      [API_KEY, undefined],
    ] as const) {
      const err = await expectError(self(key, auth), 401, "rest_forbidden_api_key");
      expect(err.message, String(key)).toBe("Invalid scan key");
    }
  });
});
