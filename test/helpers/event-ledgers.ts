import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { EventConfig } from "../../src/event-object/event-config";
import type { EventObject } from "../../src/event-object/event.do";

/**
 * For the ledger tests (test/event-object/): an event object of its own, made by its constructor (which creates its
 * tables), whose ledgers the tests call inside it with its own SQLite storage, the way pretix's test_checkin.py calls
 * perform_checkin. Storage is shared by all test files, so every test takes a fresh object.
 */
export function freshEventObject(): DurableObjectStub<EventObject> {
  return env.EVENTS.get(env.EVENTS.idFromName(`ledger-test:${crypto.randomUUID()}`));
}

/** Runs `fn` inside the object on its storage, in one transaction, as the object's own calls run its ledgers. */
export function inObject<R>(stub: DurableObjectStub<EventObject>, fn: (sql: SqlStorage) => R): Promise<R> {
  return runInDurableObject(stub, (_instance: EventObject, state) => state.storage.transactionSync(() => fn(state.storage.sql)));
}

/** The catalogue copy a ledger decides with: no limits, no seats, no types or keys unless given. */
export function ledgerConfig(over: Partial<EventConfig> = {}): EventConfig {
  return {
    eventId: 1,
    version: 1,
    eventName: "Ledger test",
    timezone: "UTC",
    stock: 0,
    stockLink: 0,
    reloadOnExit: false,
    seatRanges: [],
    seatCount: 0,
    ticketTypes: [],
    scanKeys: [],
    ...over,
  };
}

let serial = 0;
/** A fresh 16-character ticket id (the ledgers take any id; this one looks like the service's). */
export function ledgerTicketId(): string {
  serial++;
  return `LT${Date.now().toString(36).toUpperCase()}${serial.toString(36).toUpperCase()}`.padEnd(16, "X").slice(0, 16);
}
