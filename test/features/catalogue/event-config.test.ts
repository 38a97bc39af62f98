import { createExecutionContext, createScheduledController, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events, scanKeys, ticketTypes } from "../../../src/db/schema";
import type { EventConfig } from "../../../src/event-object/event-config";
import { eventObject } from "../../../src/platform/event-object.client";
import type { EventObject } from "../../../src/event-object/event.do";
import worker from "../../../src/index";
import { depsFromEnv } from "../../../src/platform/deps";
import { findScanKeyTarget, forgetScanKey, loadEventConfig, pushEventConfig } from "../../../src/features/catalogue/event-config.service";
import { call, expectError, expectJson } from "../../helpers/api";
import { createEvent, createInputField, createScanKey, createTicketType, db } from "../../helpers/catalogue";

/**
 * The event object's copy of the catalogue (decisions.md sections 1 and 13): D1 is the source of truth, every change
 * the object needs is pushed with a per-event config_version, the object ignores older versions, the cron sweep
 * repairs missed pushes, and the object can be rebuilt from D1. Each test uses its own event.
 */

const deps = () => depsFromEnv(env);

async function versionsInD1(eventId: number): Promise<{ configVersion: number; pushedVersion: number }> {
  const row = await db.select({ configVersion: events.configVersion, pushedVersion: events.pushedVersion }).from(events).where(eq(events.id, eventId)).get();
  expect(row, `event ${eventId} in D1`).toBeDefined();
  return row!;
}

/** The object holds exactly what D1 says, at D1's config_version, and D1 knows the push arrived. */
async function expectObjectMatchesD1(eventId: number): Promise<EventConfig> {
  const loaded = await loadEventConfig(deps(), eventId);
  expect(loaded).not.toBeNull();
  const fromD1 = loaded!.config;
  const stub = eventObject(env, eventId);
  expect(await stub.config()).toEqual(fromD1);
  const { configVersion, pushedVersion } = await versionsInD1(eventId);
  expect(fromD1.version).toBe(configVersion);
  expect(await stub.configVersion()).toBe(configVersion);
  expect(pushedVersion).toBe(configVersion);
  return fromD1;
}

async function runSweep(): Promise<void> {
  const ctx = createExecutionContext();
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("the event object's copy of the catalogue", () => {
  it("follows every catalogue change made through the HTTP API, one version per change", async () => {
    const linked = await createEvent({ event_name: "Linked event" });
    const event = await createEvent({ event_name: "Festival", timezone: "Europe/London" });
    const id = event.id as number;
    let config = await expectObjectMatchesD1(id);
    expect(config).toMatchObject({ eventId: id, version: 1, eventName: "Festival", timezone: "Europe/London", stock: 0, stockLink: 0, ticketTypes: [], scanKeys: [] });

    let version = config.version;
    /** After each change: in sync with D1, and exactly one version further. */
    const step = async () => {
      config = await expectObjectMatchesD1(id);
      expect(config.version).toBe(version + 1);
      version = config.version;
    };

    const regular = await createTicketType(id, { name: "Regular", is_counted: false });
    await step();
    const vip = await createTicketType(id, { name: "VIP", price: 80, stock_control: true, stock: 50 });
    await step();
    expect(config.ticketTypes).toEqual([
      { id: regular.id, name: "Regular", stockControl: false, stock: 0, isCounted: false },
      { id: vip.id, name: "VIP", stockControl: true, stock: 50, isCounted: true },
    ]);

    const door = await createScanKey(id, { location: "Door", tickets: "VIP", level: 0 });
    await step();
    const bar = await createScanKey(id, { location: "Bar", tickets: "Regular,VIP", level: 1, date_format: "H:i" });
    await step();
    expect(config.scanKeys).toEqual([
      { key: door.key, level: 0, tickets: ["VIP"], dateFormat: "Y-m-d H:i:s", location: "Door" },
      { key: bar.key, level: 1, tickets: ["Regular", "VIP"], dateFormat: "H:i", location: "Bar" },
    ]);

    // Renaming a ticket type renames it in the scan keys' filters, in the same change.
    await expectJson(call("PUT", `/admin/events/${id}/ticket-types/${vip.id}`, { body: { name: "Gold", stock: 60 } }), 200);
    await step();
    expect(config.ticketTypes[1]).toEqual({ id: vip.id, name: "Gold", stockControl: true, stock: 60, isCounted: true });
    expect(config.scanKeys.map((k) => k.tickets)).toEqual([["Gold"], ["Regular", "Gold"]]);

    await expectJson(call("PUT", `/admin/events/${id}`, { body: { stock: 500, stock_link: linked.id } }), 200);
    await step();
    expect(config).toMatchObject({ stock: 500, stockLink: linked.id });

    await expectJson(call("PUT", `/admin/events/${id}/scan-keys/${door.key}`, { body: { level: 9, location: "Exit" } }), 200);
    await step();
    expect(config.scanKeys[0]).toMatchObject({ key: door.key, level: 9, location: "Exit" });

    await expectJson(call("DELETE", `/admin/events/${id}/scan-keys/${door.key}`), 200);
    await step();
    expect(config.scanKeys.map((k) => k.key)).toEqual([bar.key]);

    // A refused change (Regular is still named by the Bar key) moves nothing.
    await expectError(call("DELETE", `/admin/events/${id}/ticket-types/${regular.id}`), 409, "rest_conflict");
    expect((await expectObjectMatchesD1(id)).version).toBe(version);

    await expectJson(call("PUT", `/admin/events/${id}/scan-keys/${bar.key}`, { body: { tickets: "Gold" } }), 200);
    await step();
    await expectJson(call("DELETE", `/admin/events/${id}/ticket-types/${regular.id}`), 200);
    await step();

    expect(config).toEqual({
      eventId: id,
      version,
      eventName: "Festival",
      timezone: "Europe/London",
      stock: 500,
      stockLink: linked.id,
      reloadOnExit: false,
      seatRanges: [],
      seatCount: 0,
      ticketTypes: [{ id: vip.id, name: "Gold", stockControl: true, stock: 60, isCounted: true }],
      // No waiting list on this event: no offers (decisions.md 15 "Selling like the peers").
      waitingListHours: 0,
      scanKeys: [{ key: bar.key, level: 1, tickets: ["Gold"], dateFormat: "H:i", location: "Bar" }],
    });
  });

  it("is not bumped by input-field edits, which the object does not copy", async () => {
    const event = await createEvent();
    const id = event.id as number;
    await createTicketType(id, { name: "Regular" });
    const before = await expectObjectMatchesD1(id);

    const field = await createInputField(id, { name: "Company" });
    await expectJson(call("PUT", `/admin/events/${id}/input-fields/${field.id}`, { body: { name: "Organisation", is_required: true } }), 200);
    await expectJson(call("DELETE", `/admin/events/${id}/input-fields/${field.id}`), 200);

    const after = await expectObjectMatchesD1(id);
    expect(after).toEqual(before);
    expect((await versionsInD1(id)).configVersion).toBe(before.version);
  });

  it("ignores a version older than (or equal to) the one it holds, answering the held version", async () => {
    const event = await createEvent({ event_name: "Current" });
    const id = event.id as number;
    await createTicketType(id, { name: "Regular", stock_control: true, stock: 10 });
    await createScanKey(id, { location: "Gate" });
    const held = await expectObjectMatchesD1(id);
    expect(held.version).toBeGreaterThan(1);
    const stub = eventObject(env, id);

    const stale: EventConfig = { ...held, version: held.version - 1, eventName: "Stale", stock: 999, ticketTypes: [], scanKeys: [] };
    expect(await stub.applyConfig(stale)).toBe(held.version);
    expect(await stub.config()).toEqual(held);

    const sameVersion: EventConfig = { ...stale, version: held.version };
    expect(await stub.applyConfig(sameVersion)).toBe(held.version);
    expect(await stub.config()).toEqual(held);
    expect(await stub.configVersion()).toBe(held.version);

    // The stale copies were not stored either: a fresh read of storage gives the held copy.
    await runInDurableObject(stub, (_instance: EventObject, state) => {
      const rows = state.storage.sql.exec<{ version: number; body: string }>("SELECT version, body FROM config").toArray();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.version).toBe(held.version);
      expect(JSON.parse(rows[0]!.body)).toEqual(held);
    });

    // pushEventConfig of the unchanged catalogue is harmless too.
    expect(await pushEventConfig(deps(), id)).toBe(true);
    await expectObjectMatchesD1(id);
  });

  it("is repaired by the cron sweep after a push was lost", async () => {
    const event = await createEvent();
    const id = event.id as number;
    const type = await createTicketType(id, { name: "Limited", stock_control: true, stock: 10 });
    const before = await expectObjectMatchesD1(id);

    // The catalogue changes in D1 but the push never arrives.
    await db.batch([
      db
        .update(ticketTypes)
        .set({ stock: 25 })
        .where(and(eq(ticketTypes.eventId, id), eq(ticketTypes.id, type.id))),
      db
        .update(events)
        .set({ configVersion: sql`${events.configVersion} + 1` })
        .where(eq(events.id, id)),
    ]);
    const stub = eventObject(env, id);
    const lagging = await versionsInD1(id);
    expect(lagging).toEqual({ configVersion: before.version + 1, pushedVersion: before.version });
    expect(await stub.configVersion()).toBe(before.version);
    expect((await stub.config())!.ticketTypes[0]!.stock).toBe(10);

    await runSweep();

    const repaired = await expectObjectMatchesD1(id);
    expect(repaired.version).toBe(before.version + 1);
    expect(repaired.ticketTypes[0]!.stock).toBe(25);
  });

  it("is rebuilt from D1 after its storage is wiped", async () => {
    const event = await createEvent({ stock: 120 });
    const id = event.id as number;
    await createTicketType(id, { name: "Regular" });
    await createTicketType(id, { name: "VIP", stock_control: true, stock: 5 });
    await createScanKey(id, { location: "Gate", tickets: "VIP", level: 7 });
    const before = await expectObjectMatchesD1(id);
    const stub = eventObject(env, id);

    await runInDurableObject(stub, async (instance: EventObject) => {
      await instance.retire();
    });
    expect(await stub.configVersion()).toBe(0);
    expect(await stub.config()).toBeNull();

    expect(await pushEventConfig(deps(), id)).toBe(true);
    const rebuilt = await expectObjectMatchesD1(id);
    expect(rebuilt).toEqual(before);
  });

  it("is retired when its event is deleted", async () => {
    const event = await createEvent();
    const id = event.id as number;
    await createTicketType(id, { name: "Regular" });
    const key = await createScanKey(id, { location: "Gate" });
    await expectObjectMatchesD1(id);
    const stub = eventObject(env, id);

    await expectJson(call("DELETE", `/admin/events/${id}`), 200);

    expect(await stub.config()).toBeNull();
    expect(await stub.configVersion()).toBe(0);
    expect(await loadEventConfig(deps(), id)).toBeNull();
    // Nothing can be pushed for an event that is gone, and its keys went with it.
    expect(await pushEventConfig(deps(), id)).toBe(false);
    expect(await stub.config()).toBeNull();
    // Its keys went with it: at the latest once a cached answer has expired (at most 60 s), the key is unknown.
    expect(await findScanKeyTarget(deps(), key.key, Date.now() + 61_000)).toBeNull();
    expect(await db.select().from(scanKeys).where(eq(scanKeys.eventId, id))).toEqual([]);
  });
});

describe("findScanKeyTarget", () => {
  it("finds the event and config version of a key, and null for an unknown key", async () => {
    const event = await createEvent();
    const id = event.id as number;
    const key = await createScanKey(id, { location: "Gate" });
    const { configVersion } = await versionsInD1(id);

    expect(await findScanKeyTarget(deps(), key.key)).toEqual({ eventId: id, configVersion, eventName: event.event_name, level: key.level });
    expect(await findScanKeyTarget(deps(), "ZZZZZZZZZZZZZZZZ")).toBeNull();
  });

  it("answers from its cache for up to 60 s without reading D1 again", async () => {
    const event = await createEvent();
    const id = event.id as number;
    const key = await createScanKey(id, { location: "Gate" });
    const { configVersion } = await versionsInD1(id);
    const target = { eventId: id, configVersion, eventName: event.event_name, level: key.level };
    const now = Date.now();

    expect(await findScanKeyTarget(deps(), key.key, now)).toEqual(target);

    // The row disappears behind the cache's back: only a D1 read could notice.
    await db.delete(scanKeys).where(eq(scanKeys.key, key.key));
    expect(await findScanKeyTarget(deps(), key.key, now)).toEqual(target);
    expect(await findScanKeyTarget(deps(), key.key, now + 59_999)).toEqual(target);

    // Past 60 s the entry is stale and D1 is asked again.
    expect(await findScanKeyTarget(deps(), key.key, now + 61_000)).toBeNull();
  });

  it("drops an entry on forgetScanKey", async () => {
    const event = await createEvent();
    const id = event.id as number;
    const key = await createScanKey(id, { location: "Gate" });
    const now = Date.now();
    expect(await findScanKeyTarget(deps(), key.key, now)).toMatchObject({ eventId: id });

    await db.delete(scanKeys).where(eq(scanKeys.key, key.key));
    expect(await findScanKeyTarget(deps(), key.key, now)).toMatchObject({ eventId: id });
    forgetScanKey(key.key);
    expect(await findScanKeyTarget(deps(), key.key, now)).toBeNull();
  });

  it("does not cache an unknown key, so a key created a moment later is found at once", async () => {
    const event = await createEvent();
    const id = event.id as number;
    const now = Date.now();
    const chosen = `N${crypto.randomUUID().replace(/-/g, "").slice(0, 15)}`;
    expect(await findScanKeyTarget(deps(), chosen, now)).toBeNull();
    await createScanKey(id, { key: chosen, location: "Gate" });
    expect(await findScanKeyTarget(deps(), chosen, now)).toMatchObject({ eventId: id });
  });
});

describe("the region reaches the event's object", () => {
  it("the push that creates the object passes the event's region as its location hint", async () => {
    const event = await createEvent({ event_name: "Sydney night", timezone: "Australia/Sydney" });
    const id = event.id as number;
    expect(event.region).toBe("oc");
    const real = depsFromEnv(env);
    const asked: { eventId: number; region: string | undefined }[] = [];
    const recording = {
      ...real,
      eventObjects: {
        get: (eventId: number, region?: string) => {
          asked.push({ eventId, region });
          return real.eventObjects.get(eventId, region);
        },
      },
    };
    expect(await pushEventConfig(recording, id)).toBe(true);
    expect(asked).toEqual([{ eventId: id, region: "oc" }]);
  });

  it("the client turns a region into the namespace's locationHint, and no region into none", () => {
    const calls: unknown[][] = [];
    const namespace = {
      idFromName: (name: string) => ({ name }),
      get: (...args: unknown[]) => {
        calls.push(args);
        return {};
      },
    } as unknown as DurableObjectNamespace<EventObject>;
    eventObject({ EVENTS: namespace }, 7, "weur");
    eventObject({ EVENTS: namespace }, 8);
    expect(calls).toEqual([[{ name: "event:7" }, { locationHint: "weur" }], [{ name: "event:8" }]]);
  });
});
