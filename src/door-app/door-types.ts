/**
 * What the door app and the service say to each other (docs/scanning.md, ticketing-api.md "Scans"): the list's
 * entries and the scan result are the service's own types.
 */
import type { ListedTicket } from "../domain/offline-list";

export type { ListedTicket as ListEntry } from "../domain/offline-list";
export type { ScanResult as ScanAnswer } from "../domain/scan-rules";
export type { PublicKeyView as PublicKey } from "../lib/ticket-codes";

/** What `GET /scan-keys/self` tells a phone about its key: enough to decide scans without the service. */
export interface KeyConfig {
  event_id: number;
  event_name: string;
  level: number;
  location: string;
  date_format: string;
  tickets: string;
  /** The ticket types the key admits; null when it admits every type. */
  ticket_type_ids: string[] | null;
}

export interface ListPage {
  tickets: ListedTicket[];
  revoked?: { ticket_id: string }[];
  sync_token: string;
  next: string | null;
  etag: string | null;
}
