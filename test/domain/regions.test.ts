import { describe, expect, it } from "vitest";
import { REGIONS, regionForTimeZone } from "../../src/domain/regions";

describe("regionForTimeZone", () => {
  it.each([
    ["America/Los_Angeles", "wnam"],
    ["America/Denver", "wnam"],
    ["Pacific/Honolulu", "wnam"],
    ["America/New_York", "enam"],
    ["America/Chicago", "enam"],
    ["America/Mexico_City", "enam"],
    ["America/Sao_Paulo", "sam"],
    ["America/Argentina/Buenos_Aires", "sam"],
    ["Europe/Amsterdam", "weur"],
    ["Europe/London", "weur"],
    ["Atlantic/Reykjavik", "weur"],
    ["Europe/Warsaw", "eeur"],
    ["Europe/Istanbul", "eeur"],
    ["Asia/Dubai", "me"],
    ["Asia/Jerusalem", "me"],
    ["Asia/Tokyo", "apac"],
    ["Asia/Kolkata", "apac"],
    ["Australia/Sydney", "oc"],
    ["Pacific/Auckland", "oc"],
    ["Africa/Lagos", "afr"],
    ["Africa/Johannesburg", "afr"],
  ])("%s is near %s", (zone, region) => {
    expect(regionForTimeZone(zone)).toBe(region);
    expect(REGIONS).toContain(region);
  });

  it("names no region for zones that are not places", () => {
    for (const zone of ["UTC", "Etc/UTC", "Etc/GMT+5", "GMT"]) expect(regionForTimeZone(zone)).toBeNull();
  });
});
