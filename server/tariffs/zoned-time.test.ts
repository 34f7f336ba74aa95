import { describe, expect, it } from "vitest";
import { isoToWall, wallToIso } from "@/components/console/zoned-time";

describe("wall-clock times in a zone", () => {
  it("reads 18:00 in the zone, in winter and in summer", () => {
    expect(wallToIso("2026-01-15T18:00", "Europe/London")).toBe("2026-01-15T18:00:00.000Z");
    expect(wallToIso("2026-07-15T18:00", "Europe/London")).toBe("2026-07-15T17:00:00.000Z");
    expect(wallToIso("2026-07-15T18:00", "America/New_York")).toBe("2026-07-15T22:00:00.000Z");
    expect(wallToIso("2026-07-15T18:00", "UTC")).toBe("2026-07-15T18:00:00.000Z");
  });

  it("turns an instant back into the zone's wall clock", () => {
    expect(isoToWall(new Date("2026-07-15T22:00:00Z"), "America/New_York")).toBe(
      "2026-07-15T18:00",
    );
  });

  it("refuses what is not a datetime-local value", () => {
    expect(wallToIso("18:00", "UTC")).toBeNull();
  });
});
