import { describe, expect, it } from "vitest";
import { PricingError } from "./errors";
import { type ChargingPeriodsSession, type MeterSession, deriveActivity } from "./session";
import { aMeterSession } from "../../testing/pricing";

const kinds = (session: Parameters<typeof deriveActivity>[0]) =>
  deriveActivity(session).segments.map((s) => [s.kind, (s.end - s.start) / 1000, s.energyWh]);

describe("meter series to activity", () => {
  it("an idle run of exactly 2 minutes is idle; just under is charging", () => {
    const at = (idleSeconds: number) =>
      kinds(
        aMeterSession("2026-10-15T10:00:00Z", [
          [0, 0],
          [10, 1000],
          [10 + idleSeconds / 60, 1000],
          [20 + idleSeconds / 60, 2000],
        ]),
      );
    expect(at(120)[1]).toEqual(["idle", 120, 0]);
    expect(at(119)[1]).toEqual(["charging", 119, 0]);
  });

  it("an idle run split over several intervals is judged as one run", () => {
    // 60 s + 60 s idle = 120 s: not shorter than 2 minutes, so both stay idle
    const r = kinds(
      aMeterSession("2026-10-15T10:00:00Z", [
        [0, 0],
        [10, 1000],
        [11, 1000],
        [12, 1000],
        [20, 2000],
      ]),
    );
    expect(r.slice(1, 3)).toEqual([
      ["idle", 60, 0],
      ["idle", 60, 0],
    ]);
  });

  it("time before the first reading is waiting; a register drop counts as no energy", () => {
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [5, 50_000],
      [15, 51_000],
      [20, 10], // meter replaced: no energy, idle
      [30, 1010],
    ]);
    expect(kinds(session)).toEqual([
      ["waiting", 300, 0],
      ["charging", 600, 1000],
      ["idle", 300, 0],
      ["charging", 600, 1000],
    ]);
    expect(deriveActivity(session).energyWh).toBe(2000);
  });

  it("readings outside the charger's start and stop are clamped to them", () => {
    const session = aMeterSession(
      "2026-10-15T10:00:00Z",
      [
        [-5, 0],
        [10, 1000],
        [25, 1500],
      ],
      { stopMinutes: 20 },
    );
    const a = deriveActivity(session);
    expect(a.end - a.start).toBe(20 * 60_000);
    expect(kinds(session)).toEqual([
      ["charging", 600, 1000],
      ["charging", 600, 500],
    ]);
  });

  it("refuses a stop before the start and non-integer registers", () => {
    expect(() =>
      deriveActivity(aMeterSession("2026-10-15T10:00:00Z", [[0, 0]], { stopMinutes: -1 })),
    ).toThrow(PricingError);
    expect(() => deriveActivity(aMeterSession("2026-10-15T10:00:00Z", [[0, 0.5]]))).toThrow(
      /energy_wh/,
    );
    expect(() =>
      deriveActivity({ method: "meter_values", started_at: "2026-10-15 10:00", readings: [] }),
    ).toThrow(/started_at/);
  });
});

describe("charging periods to activity", () => {
  const base = (periods: ChargingPeriodsSession["charging_periods"]): ChargingPeriodsSession => ({
    method: "charging_periods",
    start_date_time: "2026-10-15T10:00:00Z",
    end_date_time: "2026-10-15T11:00:00Z",
    charging_periods: periods,
  });

  it("charging comes first in a period, then the rest is idle", () => {
    // 10:00 period: 0.5 h TIME with 7 kWh, 0.25 h PARKING_TIME; 10:45 period: 2 kWh, no TIME
    const r = kinds(
      base([
        {
          start_date_time: "2026-10-15T10:00:00Z",
          dimensions: [
            { type: "ENERGY", volume: 7 },
            { type: "TIME", volume: 0.5 },
            { type: "PARKING_TIME", volume: 0.25 },
          ],
        },
        { start_date_time: "2026-10-15T10:45:00Z", dimensions: [{ type: "ENERGY", volume: 2 }] },
      ]),
    );
    expect(r).toEqual([
      ["charging", 1800, 7000],
      ["idle", 900, 0],
      ["charging", 900, 2000],
    ]);
  });

  it("refuses periods out of order", () => {
    expect(() =>
      deriveActivity(
        base([
          { start_date_time: "2026-10-15T10:30:00Z", dimensions: [] },
          { start_date_time: "2026-10-15T10:10:00Z", dimensions: [] },
        ]),
      ),
    ).toThrow(PricingError);
  });
});

describe("reservations in the inputs", () => {
  const meter = (reservation: object, readings: [number, number][] = [[0, 0]]) => ({
    ...aMeterSession("2026-10-15T10:00:00Z", readings),
    reservation: { expired: false, ...reservation } as MeterSession["reservation"],
  });

  it("a used reservation ends at the session start unless it says earlier, never later", () => {
    const a = deriveActivity(meter({ started_at: "2026-10-15T09:40:00Z" }));
    expect(a.reservation).toMatchObject({
      start: Date.parse("2026-10-15T09:40:00Z"),
      end: a.start,
    });
    const early = deriveActivity(
      meter({ started_at: "2026-10-15T09:40:00Z", ended_at: "2026-10-15T09:50:00Z" }),
    );
    expect(early.reservation?.end).toBe(Date.parse("2026-10-15T09:50:00Z"));
    expect(() =>
      deriveActivity(
        meter({ started_at: "2026-10-15T09:40:00Z", ended_at: "2026-10-15T10:05:00Z" }),
      ),
    ).toThrow(/ends when the session starts/);
  });

  it("an expired reservation has no session and needs its end", () => {
    const none = {
      method: "meter_values" as const,
      started_at: null,
      readings: [],
      reservation: { started_at: "2026-10-15T09:00:00Z", expired: true },
    };
    expect(() => deriveActivity(none)).toThrow(/needs ended_at/);
    expect(() =>
      deriveActivity(
        meter({
          started_at: "2026-10-15T09:00:00Z",
          ended_at: "2026-10-15T09:30:00Z",
          expired: true,
        }),
      ),
    ).toThrow(/no charging session/);
  });

  it("OCPI reservation time comes first; a period may reserve part and charge after", () => {
    const session: ChargingPeriodsSession = {
      method: "charging_periods",
      start_date_time: "2026-10-15T09:30:00Z",
      end_date_time: "2026-10-15T11:00:00Z",
      charging_periods: [
        {
          start_date_time: "2026-10-15T09:30:00Z",
          dimensions: [{ type: "RESERVATION_TIME", volume: 0.25 }],
        },
        // 0.5 h reserved of the 1 h to the end, then 0.25 h charging 3 kWh, then 0.25 h idle
        {
          start_date_time: "2026-10-15T10:00:00Z",
          dimensions: [
            { type: "RESERVATION_TIME", volume: 0.5 },
            { type: "ENERGY", volume: 3 },
            { type: "TIME", volume: 0.25 },
          ],
        },
      ],
    };
    const a = deriveActivity(session);
    expect(
      a.reservation?.segments.map((s) =>
        [s.start, s.end].map((t) => new Date(t).toISOString().slice(11, 16)),
      ),
    ).toEqual([
      ["09:30", "09:45"],
      ["10:00", "10:30"],
    ]);
    expect(a.reservation?.expired).toBe(false);
    expect(kinds(session)).toEqual([
      ["charging", 900, 3000],
      ["idle", 900, 0],
    ]);
    const backwards: ChargingPeriodsSession = {
      ...session,
      charging_periods: [
        { start_date_time: "2026-10-15T09:30:00Z", dimensions: [{ type: "ENERGY", volume: 1 }] },
        {
          start_date_time: "2026-10-15T10:00:00Z",
          dimensions: [{ type: "RESERVATION_TIME", volume: 0.5 }],
        },
      ],
    };
    expect(() => deriveActivity(backwards)).toThrow(
      /reservation time must come before the session/,
    );
  });
});
