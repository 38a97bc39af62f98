import type { Role } from "../db/schema";
import { type ApiError, forbidden } from "./errors";

/** Who is calling, as the authority rules of decisions.md section 13 need it. */
export interface AuthUser {
  id: number;
  username: string;
  role: Role;
  authorisedEvents: readonly number[];
}

export function isAdministrator(user: AuthUser): boolean {
  return user.role === "administrator";
}

/** Users, webhooks, the email outbox and unscoped bulk coupon emails are for administrators only. */
export function assertAdministrator(user: AuthUser): void {
  if (!isAdministrator(user)) throw forbidden();
}

/** Its own account's application passwords a user manages itself; an administrator manages anyone's. */
export function assertSelfOrAdministrator(user: AuthUser, userId: number): void {
  if (!isAdministrator(user) && user.id !== userId) throw forbidden();
}

/** The events a user may see and change: every event for an administrator, else its authorised events. */
export function eventScope(user: AuthUser): "all" | readonly number[] {
  return isAdministrator(user) ? "all" : user.authorisedEvents;
}

export function canAccessEvent(user: AuthUser, eventId: number): boolean {
  return isAdministrator(user) || user.authorisedEvents.includes(eventId);
}

/**
 * The one `403` for an event the user may not manage, or for what belongs to one (an order, a coupon, a group): it
 * names no event (decisions.md 15), so it tells a caller nothing about events that are not its own.
 */
export function eventForbidden(): ApiError {
  return forbidden();
}

/** An organizer naming an event outside its authorised events, in a path, a body or a filter: 403. */
export function assertEventAccess(user: AuthUser, eventIds: Iterable<number>): void {
  for (const id of eventIds) if (!canAccessEvent(user, id)) throw eventForbidden();
}
