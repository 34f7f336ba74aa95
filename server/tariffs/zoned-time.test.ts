import { describe, expect, it } from "vitest";
import { money } from "@/components/console/money";
import { isoToWall, moment, wallToIso } from "@/components/console/zoned-time";

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

describe("moment (every date the console prints)", () => {
  it("names the zone and writes the year in full, in the location's zone when given", () => {
    expect(moment("2026-07-01T12:00:00Z", "Europe/London", "en-GB")).toBe(
      "1 Jul 2026, 13:00:00 BST",
    );
    expect(moment("2026-11-26T18:00:00Z", "America/New_York", "en-US")).toBe(
      "Nov 26, 2026, 1:00:00 PM EST",
    );
  });

  it("falls back to the runtime's zone for a zone it does not know, and a dash for no moment", () => {
    expect(moment("2026-07-01T12:00:00Z", "Mars/Olympus", "en-GB")).toMatch(/^1 Jul 2026, /);
    expect(moment(null)).toBe("—");
    expect(moment("not a date")).toBe("—");
  });
});

describe("money (every amount the console prints)", () => {
  it("prints minor units in the object's own currency", () => {
    expect(money(432, "USD")).toBe("$4.32");
    expect(money(-50, "USD")).toBe("-$0.50");
    expect(money(1200, "EUR")).toBe("€12.00");
    expect(money(1200, "GBP")).toBe("£12.00");
  });

  it("never prints a wrong sign: an unknown code is written beside the number", () => {
    expect(money(1200, "XYZW")).toBe("12.00 XYZW");
    expect(money(null, "USD")).toBe("—");
  });
});
