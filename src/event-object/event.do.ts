import { waitingDeadline } from "../domain/order-rules";
import { DurableObject } from "cloudflare:workers";
import { LIVE_STATUSES } from "../db/order-status";
import { ordersOfHolds, type OrderOfHold } from "../db/orders-of-holds";
import type { Env } from "../env";
import { jobQueueFrom, type JobQueue } from "../platform/job-queue";
import { buildJob } from "../platform/messages";
import { log } from "../lib/log";
import type { EventConfig, ScanKeyConfig } from "./event-config";
import * as ledger from "./stock-ledger";
import * as scans from "./scan-ledger";
import * as outbox from "./scan-outbox";
import * as list from "./offline-list";
import * as waiting from "./waiting-list";
import { migrateStorage } from "./storage";
import type { ListQuery } from "../domain/offline-list";
import type { ScanResult } from "../domain/scan-rules";

/**
 * How long a hold waits for its order to reach D1 before the alarm asks D1 whether it did. The Worker abandons a hold
 * it could not write within a minute (order-placement.ts), so 90 s leaves a margin and a hold whose batch never
 * landed (the runtime died) is given back within about a minute and a half (docs/reliability.md "Guarantees",
 * docs/stock.md "Crash points").
 */
export const HOLD_MS = 90_000;

/**
 * A final order's hold is looked up in D1 this long after it is made, when its batch has usually landed (the Worker
 * writes right after the hold), and again every LEARN_AGAIN_MS while D1 does not hold it yet, until its deadline.
 * Holds made together are looked up together: one D1 read (and one clear of their intents) for the lot.
 */
const LEARN_AFTER_MS = 250;
const LEARN_AGAIN_MS = 1_000;

/** An open order handed to the Worker for expiry is looked at again after this, should the message be lost. */
const EXPIRY_RETRY_MS = 60_000;

export type ScanAnswer = { ok: true; result: ScanResult } | { ok: false; reason: "stale" | "unknown_key" };
export type OfflineListAnswer = { ok: true; list: list.ListOutcome } | { ok: false; reason: "stale" | "unknown_key" };
export type ScanKeyAnswer =
  | { ok: true; eventName: string; scanKey: ScanKeyConfig; ticketTypes: { id: string; name: string }[] }
  | { ok: false; reason: "stale" | "unknown_key" };
export type TicketScansAnswer =
  | {
      ok: true;
      ticket: {
        order_id: number;
        qrcode: string;
        event_name: string;
        ticket_type: string;
        name: string;
        email: string;
        scans: { scan_level: number; scan_date: string; scan_location: string }[];
      } | null;
    }
  | { ok: false; reason: "stale" | "unknown_key" };

/**
 * The deadline a take keeps when the alarm (not the Worker's confirm) settles a hold: an open order's payment
 * deadline, an unconfirmed booking's timeout, none for a final order.
 */
function takeDeadline(o: OrderOfHold): number | null {
  const order = { open: o.paymentStatus === "open", expiresAt: o.expiresAt, awaitsConfirmation: o.awaitsConfirmation, createdAt: o.createdAt };
  return waitingDeadline(order, o.confirmationTimeout ?? 0);
}

/**
 * One object per event (`event:<id>`): the authority on that event's remaining stock and holds, and on which
 * tickets are valid there, serialising every decision about them. Its alarm is the event's clock: a hold whose
 * order never reached D1 is released after checking D1.
 */
export class EventObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly jobs: JobQueue;
  private cachedConfig: EventConfig | null | undefined;
  /** An alarm at or before the next scan flush is known to be set (forgotten when the object restarts). */
  private flushArmed = false;
  /**
   * Final holds are looked up no sooner than this (epoch ms): each alarm run moves it a quarter second on, so a busy
   * sale's holds go to D1 in batches, not one lookup per order, whoever sets the alarm next.
   */
  private nextLearnRun = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.jobs = jobQueueFrom(env);
    ctx.blockConcurrencyWhile(async () => {
      migrateStorage(ctx.storage);
      // Killed between recording a scan (or a hold) and setting the alarm for it, the object sets it on restart.
      await this.scheduleAlarm();
    });
  }

  /** The catalogue copy this object decides with, or null before the first push. */
  config(): EventConfig | null {
    if (this.cachedConfig === undefined) {
      const row = this.sql.exec<{ body: string }>(`SELECT body FROM config WHERE id = 1`).toArray()[0];
      this.cachedConfig = row ? (JSON.parse(row.body) as EventConfig) : null;
    }
    return this.cachedConfig;
  }

  /** The catalogue version this object holds (0 before any push). */
  configVersion(): number {
    return this.config()?.version ?? 0;
  }

  /** Keeps `next` when it is newer than what the object holds; answers the version now held. */
  async applyConfig(next: EventConfig): Promise<number> {
    const current = this.configVersion();
    if (next.version <= current) return current;
    // A raised stock, or a waiting list switched on, offers what is free in the same transaction.
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT INTO config (id, version, body) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, body = excluded.body`,
        next.version,
        JSON.stringify(next),
      );
      this.cachedConfig = next;
      waiting.offerFree(this.sql, next, Date.now());
    });
    await this.scheduleAlarm();
    return next.version;
  }

  /**
   * Holds units for an order about to be written to D1. `minVersion` is the catalogue version the Worker read:
   * an object behind it answers `stale` (the Worker pushes and asks again) rather than decide on old stock.
   */
  async reserve(request: ledger.ReservationRequest, minVersion: number): Promise<ledger.ReserveResult> {
    const config = this.config();
    if (!config || config.version < minVersion) return { ok: false, failure: { kind: "stale" } };
    const now = Date.now();
    const learnAt = request.final ? now + LEARN_AFTER_MS : null;
    const result = this.ctx.storage.transactionSync(() => {
      const held = ledger.reserve(this.sql, config, request, now + HOLD_MS, learnAt);
      if (held.ok && held.offerUsed && request.offer !== undefined) {
        // The order took the offer's units; what it did not need goes to the next in line at once.
        waiting.markOrdered(this.sql, request.offer, request.uid);
        waiting.offerFree(this.sql, config, now);
      }
      return held;
    });
    if (result.ok) await this.scheduleAlarm();
    return result;
  }

  /**
   * The order is in D1: its units are taken (until released) and its tickets know their order. `expiresAt` (epoch
   * ms) is an open order's payment deadline: the alarm then asks the Worker to expire it.
   */
  async confirm(uid: string, info: ledger.OrderInfo, expiresAt: number | null = null): Promise<boolean> {
    const taken = this.ctx.storage.transactionSync(() => ledger.take(this.sql, uid, info, expiresAt));
    if (taken && expiresAt !== null) await this.scheduleAlarm();
    return taken;
  }

  /** A final order: its tickets valid here (when it has some here) and its units taken, in one call. */
  confirmWithTickets(uid: string, tickets: ledger.ObjectTicket[], info: ledger.OrderInfo): boolean {
    return this.ctx.storage.transactionSync(() => {
      if (tickets.length > 0) ledger.replaceTickets(this.sql, uid, tickets, info);
      return ledger.take(this.sql, uid, info, null);
    });
  }

  /**
   * Gives an order's units back (expired, cancelled, deleted, refunded, or its D1 write failed), offering them to the
   * waiting list in the same transaction.
   */
  async release(uid: string): Promise<boolean> {
    const released = this.ctx.storage.transactionSync(() => this.releaseAndOffer(uid));
    if (released) await this.scheduleAlarm();
    return released;
  }

  /** Inside a transaction: a release, and the offers of what it freed. */
  private releaseAndOffer(uid: string): boolean {
    const released = ledger.release(this.sql, uid);
    const config = this.config();
    if (released && config) waiting.offerFree(this.sql, config, Date.now());
    return released;
  }

  /** An entry joined the waiting list in D1: it is put in line, and offered what is free now. */
  async enqueueWaiting(entry: waiting.WaitingEntry): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      const config = this.config();
      if (waiting.enqueue(this.sql, entry) && config) waiting.offerFree(this.sql, config, Date.now());
    });
    await this.scheduleAlarm();
  }

  /** The organiser deleted an entry: its offer's units go to the next in line. */
  async dequeueWaiting(entryId: number): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      const config = this.config();
      if (waiting.dequeue(this.sql, entryId) && config) waiting.offerFree(this.sql, config, Date.now());
    });
    await this.scheduleAlarm();
  }

  /** The `waiting-list.update` consumer's acknowledgement: D1 holds these entries' states. */
  waitingListSynced(updates: Pick<waiting.EntryUpdate, "entryId" | "state">[]): number {
    return this.ctx.storage.transactionSync(() => waiting.markSynced(this.sql, updates));
  }

  /** The waiting list as this object holds it (tests, and the admin's checks). */
  waitingList() {
    return waiting.entries(this.sql);
  }

  /** Tickets of an order were re-issued or deleted (an empty list): only these are valid here now. */
  replaceTickets(uid: string, tickets: ledger.ObjectTicket[], info: ledger.OrderInfo | null): void {
    this.ctx.storage.transactionSync(() => ledger.replaceTickets(this.sql, uid, tickets, info));
  }

  /** The configuration and the key a scan call names, when this object's copy is recent enough to decide. */
  private keyFor(key: string, minVersion: number): { config: EventConfig; scanKey: EventConfig["scanKeys"][number] } | "stale" | "unknown_key" {
    const config = this.config();
    if (!config || config.version < minVersion) return "stale";
    const scanKey = config.scanKeys.find((k) => k.key === key);
    return scanKey ? { config, scanKey } : "unknown_key";
  }

  /**
   * `POST /scans`, decided here from this object's own state: no D1 on the way. A recorded scan is durable before
   * the answer leaves (the object's storage), and the alarm sends it to the queue that writes it to D1 until the
   * consumer acknowledges it (`scansRecorded`).
   */
  async scan(key: string, ticketId: string, minVersion: number): Promise<ScanAnswer> {
    const found = this.keyFor(key, minVersion);
    if (typeof found === "string") return { ok: false, reason: found };
    const { config, scanKey } = found;
    const outcome = this.ctx.storage.transactionSync(() => scans.scan(this.sql, config, scanKey, ticketId, Date.now(), (uid) => ledger.returnUnit(this.sql, uid)));
    if (outcome.recorded) await this.armFlush();
    return { ok: true, result: outcome.result };
  }

  /** `GET /scans/<ticket_id>`: the ticket and its scans since its last reset, dates in the key's format. */
  ticketScans(key: string, ticketId: string, minVersion: number): TicketScansAnswer {
    const found = this.keyFor(key, minVersion);
    if (typeof found === "string") return { ok: false, reason: found };
    const { config, scanKey } = found;
    const t = scans.ticketScans(this.sql, ticketId);
    if (!t) return { ok: true, ticket: null };
    return {
      ok: true,
      ticket: {
        order_id: t.orderId,
        qrcode: t.ticketId,
        event_name: config.eventName,
        ticket_type: t.typeName,
        name: t.name,
        email: t.email,
        scans: t.scans.map((s) => ({ scan_level: s.level, scan_date: scans.formatScanDate(config, scanKey, s.at), scan_location: s.location })),
      },
    };
  }

  /**
   * `GET /scans/tickets`: one answer of the list of tickets valid here, for scanners going offline (the whole list,
   * a page of it, or a page of what changed since a sync token). `unlessHeads`: the list versions the client's ETags
   * name; while the list is still at one of them, the answer is `not_modified` and no ticket is read.
   */
  offlineList(key: string, minVersion: number, query: ListQuery, unlessHeads: number[] = []): OfflineListAnswer {
    const found = this.keyFor(key, minVersion);
    if (typeof found === "string") return { ok: false, reason: found };
    return { ok: true, list: list.readList(this.sql, query, unlessHeads) };
  }

  /**
   * `GET /scan-keys/self`: the key as this object decides scans with it, and the event's ticket types its filter
   * names, so a door phone decides offline as the object would.
   */
  scanKeyOf(key: string, minVersion: number): ScanKeyAnswer {
    const found = this.keyFor(key, minVersion);
    if (typeof found === "string") return { ok: false, reason: found };
    const { config, scanKey } = found;
    return { ok: true, eventName: config.eventName, scanKey, ticketTypes: config.ticketTypes.map(({ id, name }) => ({ id, name })) };
  }

  private async armFlush(): Promise<void> {
    if (this.flushArmed) return;
    const at = Date.now() + outbox.SCAN_FLUSH_MS;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
    this.flushArmed = true;
  }

  /**
   * The `scans.record` consumer's acknowledgement, sent once its D1 batch committed: these scans are in D1 and are
   * not sent again. An unknown or already acknowledged seq changes nothing. Answers how many were newly marked.
   */
  scansRecorded(seqs: number[]): number {
    return this.ctx.storage.transactionSync(() => outbox.markRecorded(this.sql, seqs));
  }

  /** A queue that refuses costs the scans their resend delay, not the rest of the alarm (holds, expiries, re-arming). */
  private async sendScans(): Promise<void> {
    this.flushArmed = false;
    const eventId = this.config()?.eventId;
    // No configuration, no scans: a scan is decided with the event's configuration (`keyFor`).
    if (eventId === undefined) return;
    try {
      await outbox.sendDueScans(this.ctx.storage, this.jobs, eventId, Date.now());
    } catch (err) {
      log("warn", "scans not sent, will send again", { event_id: eventId, error: String(err) });
    }
  }

  /**
   * What is left of the event and of each type; null while the object's copy of the catalogue is older than
   * `minVersion` (the Worker pushes it and asks again), since remaining stock read from an older copy would show a
   * type it does not know yet as unlimited.
   */
  remaining(minVersion = 0) {
    const config = this.config();
    return config && config.version >= minVersion ? ledger.remaining(this.sql, config) : null;
  }

  snapshot(): ledger.LedgerSnapshot {
    return ledger.snapshot(this.sql);
  }

  /** Replaces every reservation with the takes of the live orders the Worker read from D1 (offers are kept). */
  async rebuild(takes: ledger.RebuiltTake[]): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      ledger.rebuild(this.sql, takes);
      const config = this.config();
      if (config) waiting.offerFree(this.sql, config, Date.now());
    });
    await this.scheduleAlarm();
  }

  /** The event was deleted: forget everything, so a later event can never inherit this state. */
  async retire(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.cachedConfig = undefined;
    // deleteAll() dropped the tables and their `_migrations`: built again from migration 1.
    migrateStorage(this.ctx.storage);
  }

  /**
   * The event's clock. Final orders' holds are looked up in D1 soon after they are made, holds past their deadline
   * too: a hold whose order D1 holds live is taken, one whose order is no longer live (or that is past its deadline
   * with no order at all) is released, and a final order's hold not yet in D1 is looked up again later. Open orders
   * past their payment deadline are handed to the Worker (`order.expire`), which decides in D1 and releases; the
   * deadline moves a minute on, so a lost message is sent again.
   */
  override async alarm(): Promise<void> {
    await this.sendScans();
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      const config = this.config();
      if (waiting.expireOffers(this.sql, now) > 0 && config) waiting.offerFree(this.sql, config, now);
    });
    this.nextLearnRun = now + LEARN_AFTER_MS;
    const due = ledger.dueTakes(this.sql, now);
    if (due.length > 0) {
      const eventId = this.config()?.eventId;
      await this.jobs.sendAll(due.map((uid) => buildJob("order.expire", { uid, eventId })));
      this.ctx.storage.transactionSync(() => {
        for (const uid of due) ledger.postpone(this.sql, uid, now + EXPIRY_RETRY_MS);
      });
    }
    const expired = new Set(ledger.expiredHolds(this.sql, now));
    const learnable = ledger.holdsToLearn(this.sql, now);
    const uids = [...new Set([...expired, ...learnable])];
    if (uids.length > 0) {
      // The intents of the learnable final orders are cleared in the same D1 batch, before the take below is stored:
      // safe, since the hold stays until taken and the next alarm looks it up again (docs/reliability.md "Guarantees").
      const orders = await ordersOfHolds(this.env.DB, this.config()?.eventId, uids, learnable);
      this.ctx.storage.transactionSync(() => {
        for (const uid of uids) {
          const order = orders.get(uid);
          // Live statuses keep their units; any other status (or no order by the deadline) gives them back.
          if (order && (LIVE_STATUSES as readonly string[]).includes(order.paymentStatus)) {
            ledger.take(this.sql, uid, { orderId: order.id, name: order.name, email: order.email }, takeDeadline(order));
          } else if (order || expired.has(uid)) {
            this.releaseAndOffer(uid);
          } else {
            ledger.learnLater(this.sql, uid, now + LEARN_AGAIN_MS);
          }
        }
      });
    }
    await this.sendWaitingList();
    await this.scheduleAlarm();
  }

  /** What became of waiting entries, to the queue that writes it to D1; a refusing queue sends again later. */
  private async sendWaitingList(): Promise<void> {
    const eventId = this.config()?.eventId;
    if (eventId === undefined) return;
    try {
      for (;;) {
        const updates = this.ctx.storage.transactionSync(() => waiting.takeDueUpdates(this.sql, Date.now()));
        if (updates.length === 0) return;
        await this.jobs.send(buildJob("waiting-list.update", { eventId, updates }));
      }
    } catch (err) {
      log("warn", "waiting list updates not sent, will send again", { event_id: eventId, error: String(err) });
    }
  }

  private async scheduleAlarm(): Promise<void> {
    const learnAt = ledger.nextLearnAt(this.sql);
    const now = Date.now();
    const due = [
      ledger.nextDeadline(this.sql),
      outbox.nextSendAt(this.sql, now),
      waiting.nextSendAt(this.sql, now),
      learnAt === null ? null : Math.max(learnAt, this.nextLearnRun),
    ];
    const times = due.filter((t) => t !== null);
    if (times.length === 0) return;
    const next = Math.min(...times);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next) await this.ctx.storage.setAlarm(next);
  }
}
