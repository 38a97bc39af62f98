/**
 * What the phone keeps between visits, in IndexedDB (a stadium's list is 10 MB: more than localStorage holds):
 * the key and what the service said of it, the offline list with its sync token, and every scan made here.
 */
import type { KeyConfig, ListEntry, PublicKey, ScanAnswer } from "./door-types";

/** A scan made on this phone. `queued`: decided offline, not yet sent; `conflict`: the service refused it when sent. */
export interface LocalScan {
  id?: number;
  code: string;
  ticketId: string;
  /** Epoch milliseconds. */
  at: number;
  level: number;
  location: string;
  admitted: boolean;
  state: "answered" | "queued" | "sent" | "conflict";
  name: string;
  type: string;
  error?: string;
  /** The service's answer, once there is one. */
  answer?: ScanAnswer;
}

export interface DoorSettings {
  key: string;
  config: KeyConfig;
  publicKeys: PublicKey[];
  /** The offline list's sync token once a full walk ended; null before. */
  syncToken: string | null;
  /** The ETag of the last delta asked with `syncToken` (unchanged list: 304). */
  deltaEtag: string | null;
  /** Epoch milliseconds of the last sync that reached the service. */
  lastSync: number | null;
}

const DB_NAME = "door";
const SETTINGS = "settings";
const TICKETS = "tickets";
const SCANS = "scans";

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function finished(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

export class DoorStore {
  private constructor(private readonly db: IDBDatabase) {}

  static async open(): Promise<DoorStore> {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore(SETTINGS);
      db.createObjectStore(TICKETS, { keyPath: "ticket_id" });
      db.createObjectStore(SCANS, { keyPath: "id", autoIncrement: true }).createIndex("ticketId", "ticketId");
    };
    return new DoorStore(await done(request));
  }

  async settings(): Promise<DoorSettings | null> {
    const tx = this.db.transaction(SETTINGS);
    return ((await done(tx.objectStore(SETTINGS).get("door"))) as DoorSettings | undefined) ?? null;
  }

  async saveSettings(settings: DoorSettings): Promise<void> {
    const tx = this.db.transaction(SETTINGS, "readwrite");
    tx.objectStore(SETTINGS).put(settings, "door");
    await finished(tx);
  }

  /** Forgets everything: another key means another event and another door. */
  async clear(): Promise<void> {
    const tx = this.db.transaction([SETTINGS, TICKETS, SCANS], "readwrite");
    for (const name of [SETTINGS, TICKETS, SCANS]) tx.objectStore(name).clear();
    await finished(tx);
  }

  async ticket(ticketId: string): Promise<ListEntry | null> {
    const tx = this.db.transaction(TICKETS);
    return ((await done(tx.objectStore(TICKETS).get(ticketId))) as ListEntry | undefined) ?? null;
  }

  async ticketCount(): Promise<number> {
    return done(this.db.transaction(TICKETS).objectStore(TICKETS).count());
  }

  /**
   * One page of the list applied in one transaction, with the settings it leads to: a walk cut off halfway keeps
   * what it had and its old token, so the next sync starts it again rather than trusting half a list.
   */
  async applyPage(page: { tickets: ListEntry[]; revoked?: { ticket_id: string }[] }, settings: DoorSettings | null, replaceAll = false): Promise<void> {
    const tx = this.db.transaction([TICKETS, SETTINGS], "readwrite");
    const tickets = tx.objectStore(TICKETS);
    if (replaceAll) tickets.clear();
    for (const t of page.tickets) tickets.put(t);
    for (const r of page.revoked ?? []) tickets.delete(r.ticket_id);
    if (settings) tx.objectStore(SETTINGS).put(settings, "door");
    await finished(tx);
  }

  async addScan(scan: LocalScan): Promise<LocalScan> {
    const tx = this.db.transaction(SCANS, "readwrite");
    const id = (await done(tx.objectStore(SCANS).add(scan))) as number;
    await finished(tx);
    return { ...scan, id };
  }

  async updateScan(scan: LocalScan): Promise<void> {
    const tx = this.db.transaction(SCANS, "readwrite");
    tx.objectStore(SCANS).put(scan);
    await finished(tx);
  }

  async scansOf(ticketId: string): Promise<LocalScan[]> {
    const tx = this.db.transaction(SCANS);
    return (await done(tx.objectStore(SCANS).index("ticketId").getAll(ticketId))) as LocalScan[];
  }

  /** Every scan made here, oldest first. */
  async scans(): Promise<LocalScan[]> {
    return (await done(this.db.transaction(SCANS).objectStore(SCANS).getAll())) as LocalScan[];
  }
}
