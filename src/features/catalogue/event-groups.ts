import { and, eq, gt, type SQL } from "drizzle-orm";
import { events } from "../../db/schema";

/**
 * The events of group `name`: an event is in a group only while its `group_type` is above 0, whatever its
 * `event_group` still says, so a group's passe-partout, dates and reports never gather a loose event by its name.
 */
export function inGroup(name: string): SQL {
  return and(eq(events.eventGroup, name), gt(events.groupType, 0))!;
}
