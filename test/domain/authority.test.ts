import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors";
import { assertAdministrator, assertEventAccess, canAccessEvent, eventScope, isAdministrator, type AuthUser } from "../../src/domain/authority";

const admin: AuthUser = { id: 1, username: "a", role: "administrator", authorisedEvents: [] };
const organizer: AuthUser = { id: 2, username: "o", role: "organizer", authorisedEvents: [3, 5] };

describe("authority rules", () => {
  it("gives administrators every event and organizers their authorised events", () => {
    expect(isAdministrator(admin)).toBe(true);
    expect(isAdministrator(organizer)).toBe(false);
    expect(eventScope(admin)).toBe("all");
    expect(eventScope(organizer)).toEqual([3, 5]);
    expect(canAccessEvent(admin, 99)).toBe(true);
    expect(canAccessEvent(organizer, 3)).toBe(true);
    expect(canAccessEvent(organizer, 4)).toBe(false);
  });

  it("answers 403 rest_forbidden for what a role may not do", () => {
    expect(() => assertAdministrator(admin)).not.toThrow();
    expect(() => assertEventAccess(organizer, [3, 5])).not.toThrow();
    for (const attempt of [() => assertAdministrator(organizer), () => assertEventAccess(organizer, [3, 4])]) {
      try {
        attempt();
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect(err).toMatchObject({ status: 403, code: "rest_forbidden" });
      }
    }
  });
});
