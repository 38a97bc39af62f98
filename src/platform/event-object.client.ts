import type { Env } from "../env";
import type { EventObject } from "../event-object/event.do";

export type EventObjectStub = DurableObjectStub<EventObject>;

/**
 * The typed way to reach an event's object; nothing else names the namespace or the id scheme. `region` (a location
 * hint, domain/regions.ts) places the object when this request is the one that creates it, and is ignored after.
 */
export function eventObject(env: Pick<Env, "EVENTS">, eventId: number, region = ""): EventObjectStub {
  const id = env.EVENTS.idFromName(`event:${eventId}`);
  return region === "" ? env.EVENTS.get(id) : env.EVENTS.get(id, { locationHint: region as DurableObjectLocationHint });
}

/** The seam services use, so they never hold the namespace binding itself. */
export interface EventObjects {
  get(eventId: number, region?: string): EventObjectStub;
}

export function eventObjectsFrom(env: Pick<Env, "EVENTS">): EventObjects {
  return { get: (eventId, region) => eventObject(env, eventId, region) };
}
