import { describe, expect, it } from "vitest";
import { DAY_MS, dayNumber, isIanaTimeZone, weekdayOf, zoneClock } from "./time-zone";

const utc = (iso: string) => Date.parse(iso);

describe("zoneClock", () => {
  it("finds New York's 2026 spring-forward to the millisecond", () => {
    const clock = zoneClock(
      "America/New_York",
      utc("2026-03-07T00:00:00Z"),
      utc("2026-03-09T00:00:00Z"),
    );
    expect(clock.transitions).toContain(utc("2026-03-08T07:00:00Z"));
    expect(clock.offsetAt(utc("2026-03-08T06:59:59.999Z"))).toBe(-5 * 3_600_000);
    expect(clock.offsetAt(utc("2026-03-08T07:00:00Z"))).toBe(-4 * 3_600_000);
  });

  it("has no instant for a wall time in the gap and two in the fall-back overlap", () => {
    const spring = zoneClock(
      "America/New_York",
      utc("2026-03-08T00:00:00Z"),
      utc("2026-03-09T00:00:00Z"),
    );
    expect(spring.instantsOfWall(utc("2026-03-08T02:30:00Z"))).toEqual([]);
    const fall = zoneClock(
      "America/New_York",
      utc("2026-11-01T00:00:00Z"),
      utc("2026-11-02T00:00:00Z"),
    );
    expect(fall.instantsOfWall(utc("2026-11-01T01:30:00Z"))).toEqual([
      utc("2026-11-01T05:30:00Z"),
      utc("2026-11-01T06:30:00Z"),
    ]);
  });

  it("handles a 30-minute DST shift (Lord Howe) and a fixed zone", () => {
    const lh = zoneClock(
      "Australia/Lord_Howe",
      utc("2026-01-10T00:00:00Z"),
      utc("2026-01-11T00:00:00Z"),
    );
    expect(lh.offsetAt(utc("2026-01-10T12:00:00Z"))).toBe(11 * 3_600_000);
    const phoenix = zoneClock(
      "America/Phoenix",
      utc("2026-03-01T00:00:00Z"),
      utc("2026-04-01T00:00:00Z"),
    );
    expect(phoenix.transitions).toEqual([]);
    expect(phoenix.wallAt(utc("2026-03-15T00:00:00Z"))).toBe(utc("2026-03-14T17:00:00Z"));
  });
});

describe("calendar helpers", () => {
  it("day numbers and weekdays (0 = Monday)", () => {
    expect(dayNumber("1970-01-02")).toBe(1);
    expect(weekdayOf(dayNumber("2026-10-16"))).toBe(4); // a Friday
    expect(weekdayOf(Math.floor(utc("2026-10-18T12:00:00Z") / DAY_MS))).toBe(6); // a Sunday
  });

  it("recognizes IANA zones only", () => {
    expect(isIanaTimeZone("Europe/Berlin")).toBe(true);
    expect(isIanaTimeZone("UTC")).toBe(true);
    expect(isIanaTimeZone("EST")).toBe(false);
    expect(isIanaTimeZone("Nowhere/Special")).toBe(false);
  });
});
