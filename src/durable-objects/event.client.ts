import type { Env } from "../env";

/** The typed way to reach an event's object; nothing else names the namespace or the id scheme. */
export function eventObject(env: Pick<Env, "EVENTS">, eventId: number) {
  return env.EVENTS.get(env.EVENTS.idFromName(`event:${eventId}`));
}
