import type { SeatRange } from "../domain/seat-plan";

/**
 * What an event's object needs to know of the catalogue to decide stock and scans on its own. The Worker builds
 * it from D1 after every change and pushes it; `version` is the event's `config_version`, and the object keeps
 * only the newest it has seen.
 */
export interface EventConfig {
  eventId: number;
  version: number;
  eventName: string;
  timezone: string;
  /** 0 means unlimited. */
  stock: number;
  stockLink: number;
  reloadOnExit: boolean;
  /** The event's seat plan (used by its own seated orders and by events sharing it), and how many seats it has. */
  seatRanges: SeatRange[];
  seatCount: number;
  ticketTypes: TicketTypeConfig[];
  /**
   * How long a waiting-list offer holds its units, in hours; 0 (or absent, in a copy pushed before waiting lists)
   * when the event has no waiting list (`waiting_list_needed` off): no offers are made.
   */
  waitingListHours?: number;
  scanKeys: ScanKeyConfig[];
}

interface TicketTypeConfig {
  id: string;
  name: string;
  stockControl: boolean;
  stock: number;
  isCounted: boolean;
}

export interface ScanKeyConfig {
  key: string;
  level: number;
  /** Ticket type names this key admits; empty admits all. */
  tickets: string[];
  dateFormat: string;
  location: string;
}
