import { overloaded, type ApiError } from "../../domain/errors";
import { overloadOf } from "../../http/errors";
import { log } from "../../lib/log";
import type { Deps } from "../../platform/deps";
import type { EventObjectStub } from "../../platform/event-object.client";
import { pushEventConfig } from "./event-config.service";

/**
 * The one way a feature asks an event's object something it decides from its copy of the catalogue (a hold, a scan,
 * a ticket's scans, the offline list, a scan key), with one retry policy: the question carries the catalogue version
 * the Worker read; an object whose copy is behind it answers stale, is pushed the event's catalogue and asked once
 * more; still behind, it is logged once and answered `503 rest_overloaded` with `Retry-After`, the same for orders
 * and scans (decisions.md 15 "Trust, second round"; docs/scale.md "Above it"). An object too busy to take the call
 * is that same error, as a reply. What the object refuses for the caller's own reasons (stock, seats, an unknown
 * scan key) stays the caller's, read from the answer by `read`.
 *
 * It lives in catalogue because catalogue owns the push (`pushEventConfig`) and sits below every feature that asks
 * (ordering, checkout, scanning), so each may import it (.dependency-cruiser.cjs FEATURE_ORDER).
 */

/** What `read` gives for an answer that says the object's copy of the catalogue is behind the version asked for. */
export const STALE = Symbol("stale");

export interface EventObjectQuestion<A, R> {
  eventId: number;
  /** The catalogue version the Worker read: an object behind it answers stale rather than decide on an older copy. */
  minVersion: number;
  ask: (stub: EventObjectStub, minVersion: number) => Promise<A>;
  /** The caller's reading of an answer: its result, or `STALE`. */
  read: (answer: A) => R | typeof STALE;
}

/** The caller's result, or the one error for an object that stays behind or is too busy: `overloaded("event")`. */
export type EventObjectReply<R> = { ok: true; value: R } | { ok: false; error: ApiError };

export async function askEventObject<A, R>(deps: Deps, question: EventObjectQuestion<A, R>): Promise<EventObjectReply<R>> {
  const { eventId, minVersion, ask, read } = question;
  const stub = deps.eventObjects.get(eventId);
  for (let asked = 1; ; asked++) {
    let answer: R | typeof STALE;
    try {
      answer = read(await ask(stub, minVersion));
    } catch (err) {
      // Too busy to take the call (Cloudflare's `.overloaded` error, not to be retried at once): the same 503, as a
      // reply rather than a throw, so that a caller holding in several objects gives back what it holds.
      if (overloadOf(err) !== "event") throw err;
      log("warn", "event object overloaded: answered 503", { event_id: eventId });
      return { ok: false, error: overloaded("event") };
    }
    if (answer !== STALE) return { ok: true, value: answer };
    if (asked === 2) break;
    await pushEventConfig(deps, eventId); // the object's copy was behind: bring it up to date and ask once more
  }
  log("error", "event object stays behind its catalogue", { event_id: eventId });
  return { ok: false, error: overloaded("event") }; // busy, come back shortly (decisions.md 15)
}
