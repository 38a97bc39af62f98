/** What the door app and the service say to each other (docs/scanning.md, ticketing-api.md "Scans"). */

/** What `GET /scan-keys/self` tells a phone about its key: enough to decide scans without the service. */
export interface KeyConfig {
  event_id: number;
  event_name: string;
  level: number;
  location: string;
  date_format: string;
  tickets: string;
  /** The ticket types the key admits; null when it admits every type. */
  ticket_type_ids: (number | string)[] | null;
}

export interface PublicKey {
  kid: string;
  jwk: { kty: "OKP"; crv: "Ed25519"; x: string; kid: string };
}

/** One entry of the offline list (`GET /scans/tickets`). */
export interface ListEntry {
  ticket_id: string;
  order_id: number;
  ticket_type: string;
  ticket_type_id: number | string;
  name: string;
}

export interface ListPage {
  tickets: ListEntry[];
  revoked?: { ticket_id: string }[];
  sync_token: string;
  next: string | null;
  etag: string | null;
}

/** The scan validation result (ticketing-api.md "Scan validation result"). */
export interface ScanAnswer {
  order_id: number;
  qrcode: string;
  event: string;
  name: string;
  email: string;
  level: number;
  type: string;
  status: boolean;
  date: string;
  location: string;
  error?: string;
}
