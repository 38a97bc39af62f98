/**
 * The door's work, apart from the screen: a scan (online through `POST /scans`, offline from the kept list), the
 * list's sync (a full walk once, then deltas with `since`), and the replay of scans decided offline.
 */
import { format } from "../domain/messages";
import { SCAN_ERRORS, type ScanRecord } from "../domain/scan-rules";
import { looksSigned, TicketSigner, ticketIdOfCode } from "../lib/ticket-codes";
import { fetchKeyConfig, fetchListPage, fetchPublicKeys, postScan, Unreachable } from "./door-api";
import type { ScanAnswer } from "./door-types";
import type { DoorSettings, DoorStore, LocalScan } from "./door-store";
import { doorText } from "./door-language";
import { decideOffline } from "./offline-decision";

/** What the screen shows for one scan. */
export interface ScanShown {
  kind: "admitted" | "repeat" | "refused";
  title: string;
  name: string;
  type: string;
  detail: string;
  offline: boolean;
}

const LIST_PER_PAGE = 1000;
const REPEATS = new Set<string>([SCAN_ERRORS.done, SCAN_ERRORS.away, SCAN_ERRORS.back, SCAN_ERRORS.left]);

export class Door {
  private signer: TicketSigner;
  private syncing: Promise<void> | null = null;
  private replaying: Promise<void> | null = null;

  constructor(
    private readonly store: DoorStore,
    public settings: DoorSettings,
  ) {
    this.signer = new TicketSigner(settings.publicKeys.map((k) => ({ ...k.jwk, kid: k.kid })));
  }

  /** A key checked with the service and kept: another key starts a new door (list and scans forgotten). */
  static async start(store: DoorStore, key: string): Promise<Door> {
    const [config, publicKeys] = await Promise.all([fetchKeyConfig(key), fetchPublicKeys(key)]);
    await store.clear();
    const settings: DoorSettings = { key, config, publicKeys, syncToken: null, deltaEtag: null, lastSync: null };
    await store.saveSettings(settings);
    return new Door(store, settings);
  }

  /**
   * One scan. Online, the service decides; when it cannot be reached within the scan deadline, the phone decides from
   * what it keeps and queues the scan for the replay.
   */
  async scan(code: string): Promise<ScanShown> {
    const now = Date.now();
    const { config } = this.settings;
    try {
      const answer = await postScan(this.settings.key, code);
      const ticketId = answer.qrcode || (await this.ticketIdOf(code)) || code;
      const admitted = answer.status;
      await this.store.addScan({
        code,
        ticketId,
        at: now,
        level: config.level,
        location: config.location,
        admitted,
        state: "answered",
        name: answer.name,
        type: answer.type,
        ...(answer.error ? { error: answer.error } : {}),
        answer,
      });
      // The network is there: a good moment for the queue (its failures show at the next sync, which retries it).
      void this.replay().catch(() => undefined);
      return shownOnline(answer);
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
    }
    const ticketId = await this.ticketIdOf(code);
    const ticket = ticketId ? await this.store.ticket(ticketId) : null;
    const history = ticket ? await this.history(ticket.ticket_id) : [];
    const decision = decideOffline(config, ticket, history);
    const scan: LocalScan = {
      code,
      ticketId: ticketId ?? code,
      at: now,
      level: config.level,
      location: config.location,
      admitted: decision.admitted,
      // Only admissions are replayed: a refusal changes nothing at the service.
      state: decision.admitted ? "queued" : "answered",
      name: decision.ticket?.name ?? "",
      type: decision.ticket?.ticket_type ?? "",
      ...(decision.admitted ? {} : { error: decision.error }),
    };
    await this.store.addScan(scan);
    const t = doorText();
    if (decision.admitted) return { kind: "admitted", title: t.admitted, name: scan.name, type: scan.type, detail: t.admittedOffline, offline: true };
    // A code signed for this event that the list lacks was issued, and then cancelled or sold after the last sync:
    // the door should know the difference from a forgery, and ask again once online.
    if (!ticket && ticketId && looksSigned(code)) {
      const { lastSync } = this.settings;
      const detail = lastSync ? format(t.notOnListSyncedDetail, { when: localDateTime(lastSync) }) : t.notOnListDetail;
      return { kind: "refused", title: t.notOnList, name: "", type: "", detail, offline: true };
    }
    const earlier = decision.earlier ? format(t.whenAt, { when: localDateTime(decision.earlier.at), where: decision.earlier.location }) : "";
    return { ...shownRefusal(decision.error, scan.name, scan.type, earlier), offline: true };
  }

  /** The ticket a code names when it is this event's (a signed code's signature holds, or a plain ticket id). */
  private ticketIdOf(code: string): Promise<string | null> {
    return ticketIdOfCode(this.signer, this.settings.config.event_id, code);
  }

  /** This phone's admitted scans of a ticket, oldest first (a refused scan is no scan). */
  private async history(ticketId: string): Promise<ScanRecord[]> {
    const scans = await this.store.scansOf(ticketId);
    return scans.filter((s) => s.admitted && s.state !== "conflict").map((s) => ({ level: s.level, at: s.at, location: s.location }));
  }

  /**
   * The offline list brought up to date: the whole list while the phone has no sync token, else what changed since
   * it (a 304 when nothing did). One sync at a time; the key's settings are read again too (a changed filter or level).
   */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const { key } = this.settings;
    const [config, publicKeys] = await Promise.all([fetchKeyConfig(key), fetchPublicKeys(key)]);
    this.settings = { ...this.settings, config, publicKeys };
    this.signer = new TicketSigner(publicKeys.map((k) => ({ ...k.jwk, kid: k.kid })));
    const token = this.settings.syncToken;
    let url: string | null = token === null ? `scans/tickets?per_page=${LIST_PER_PAGE}` : `scans/tickets?per_page=${LIST_PER_PAGE}&since=${encodeURIComponent(token)}`;
    let first = true;
    while (url) {
      const page = await fetchListPage(key, url, first && token !== null ? this.settings.deltaEtag : null);
      if (page === null) break;
      const last = page.next === null;
      const settings: DoorSettings | null = last
        ? // An ETag is for its own address: worth keeping only while the next delta asks the same `since` (nothing changed).
          { ...this.settings, syncToken: page.sync_token, deltaEtag: first && page.sync_token === token ? page.etag : null, lastSync: Date.now() }
        : first && token === null
          ? { ...this.settings, syncToken: null }
          : null;
      await this.store.applyPage(page, settings, first && token === null);
      if (settings) this.settings = settings;
      first = false;
      url = page.next;
    }
    this.settings = { ...this.settings, lastSync: Date.now() };
    await this.store.saveSettings(this.settings);
  }

  /**
   * The scans admitted offline, sent in the order they were made. The service's answer stands: an admission it
   * refuses (the ticket came in at another door meanwhile) is a conflict for the door to see. A refusal naming this
   * key's own location is this door's own earlier attempt (an answer lost on the way), not a conflict.
   */
  replay(): Promise<void> {
    this.replaying ??= this.replayOnce().finally(() => {
      this.replaying = null;
    });
    return this.replaying;
  }

  private async replayOnce(): Promise<void> {
    const queued = (await this.store.scans()).filter((s) => s.state === "queued");
    for (const scan of queued) {
      let answer: ScanAnswer;
      try {
        answer = await postScan(this.settings.key, scan.code, 10_000);
      } catch (error) {
        if (error instanceof Unreachable) return;
        throw error;
      }
      const ours = !answer.status && answer.error === SCAN_ERRORS.done && answer.location === scan.location;
      await this.store.updateScan({ ...scan, state: answer.status || ours ? "sent" : "conflict", answer });
    }
  }

  async counters(): Promise<{ scanned: number; admitted: number; refused: number; queued: number; conflicts: LocalScan[]; listed: number }> {
    const scans = await this.store.scans();
    return {
      scanned: scans.length,
      admitted: scans.filter((s) => s.admitted && s.state !== "conflict").length,
      refused: scans.filter((s) => !s.admitted).length,
      queued: scans.filter((s) => s.state === "queued").length,
      conflicts: scans.filter((s) => s.state === "conflict"),
      listed: await this.store.ticketCount(),
    };
  }
}

function shownOnline(answer: ScanAnswer): ScanShown {
  const t = doorText();
  if (answer.status) return { kind: "admitted", title: t.admitted, name: answer.name, type: answer.type, detail: "", offline: false };
  const earlier = answer.date ? (answer.location ? format(t.whenAt, { when: answer.date, where: answer.location }) : answer.date) : "";
  return { ...shownRefusal(answer.error ?? "", answer.name, answer.type, earlier), offline: false };
}

/**
 * A refusal the service (or the phone, with the same rules) wrote as one of the scan answers' fixed texts
 * (domain/scan-rules.ts SCAN_ERRORS, part of the wire): the door's words for it, found by its key in that table, never
 * by translating English; a text outside the table is shown as the service wrote it.
 */
export function scanErrorText(error: string): string {
  const key = (Object.keys(SCAN_ERRORS) as (keyof typeof SCAN_ERRORS)[]).find((k) => SCAN_ERRORS[k] === error);
  return key ? doorText().scanErrors[key] : error || doorText().refused;
}

function shownRefusal(error: string, name: string, type: string, earlier: string): Omit<ScanShown, "offline"> {
  const t = doorText();
  const text = scanErrorText(error);
  if (REPEATS.has(error))
    return { kind: "repeat", title: error === SCAN_ERRORS.done ? t.alreadyScanned : text, name, type, detail: earlier ? format(t.scannedWhen, { when: earlier }) : text };
  const title = error === SCAN_ERRORS.notFound ? t.notForEvent : error === SCAN_ERRORS.wrongType ? t.wrongEntrance : text;
  return { kind: "refused", title, name, type, detail: "" };
}

/** The phone's own time of a scan, written like the service's default `Y-m-d H:i:s`. */
function localDateTime(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
