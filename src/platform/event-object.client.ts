import type { Env } from "../env";
import type { EventObject } from "../event-object/event.do";

export type EventObjectStub = DurableObjectStub<EventObject>;

/** The typed way to reach an event's object; nothing else names the namespace or the id scheme. */
export function eventObject(env: Pick<Env, "EVENTS">, eventId: number): EventObjectStub {
  return env.EVENTS.get(env.EVENTS.idFromName(`event:${eventId}`));
}

/** The seam services use, so they never hold the namespace binding itself. */
export interface EventObjects {
  get(eventId: number): EventObjectStub;
}

export function eventObjectsFrom(env: Pick<Env, "EVENTS">): EventObjects {
  return { get: (eventId) => eventObject(env, eventId) };
}
