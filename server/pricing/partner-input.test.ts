/**
 * Tariffs and sessions as OCPI partners send them (README, decisions 11 and 14): validity windows
 * and CDR periods starting before the session. Worked by hand, arithmetic in comments.
 */
import { describe, expect, it } from "vitest";
import { priceSession } from "./engine";
import type { PricingError } from "./errors";
import type { ChargingPeriodsSession } from "./session";
import { aMeterSession, aTariff } from "../../testing/pricing";

describe("a tariff's validity window (OCPI start_date_time, end_date_time)", () => {
  const tariff = aTariff({
    rate_minor_per_kwh: 30,
    start_date_time: "2027-01-01T00:00:00Z",
    end_date_time: "2027-02-01T00:00:00Z",
  });
  const at = (startIso: string) =>
    aMeterSession(startIso, [
      [0, 0],
      [120, 10_000],
    ]);
  const refusal = (startIso: string) => {
    try {
      priceSession(tariff, at(startIso));
    } catch (error) {
      return error as PricingError;
    }
    throw new Error("priced");
  };

  it("prices sessions starting inside [start, end), even when they run past the end", () => {
    // 10 kWh x 30 c = 300 c
    expect(priceSession(tariff, at("2027-01-01T00:00:00Z")).total.excl_vat_minor).toBe(300);
    expect(priceSession(tariff, at("2027-01-31T23:00:00Z")).total.excl_vat_minor).toBe(300);
  });

  it("refuses sessions starting before or at the end, saying so", () => {
    const early = refusal("2026-12-31T23:59:59Z");
    expect(early).toMatchObject({
      code: "tariff_not_valid_at",
      details: {
        valid_from: "2027-01-01T00:00:00.000Z",
        valid_until: "2027-02-01T00:00:00.000Z",
        session_started_at: "2026-12-31T23:59:59.000Z",
      },
    });
    expect(early.message).toMatch(/valid from .* until .*; the session started at .*, before that/);
    expect(refusal("2027-02-01T00:00:00Z").code).toBe("tariff_not_valid_at");
  });

  it("needs the session's start", () => {
    const noStart = aMeterSession(
      "2027-01-10T00:00:00Z",
      [
        [0, 0],
        [60, 1000],
      ],
      { startKnown: false },
    );
    expect(() => priceSession(tariff, noStart)).toThrow(/no start time/);
  });
});

describe("CDRs as partners send them", () => {
  it("a charging period stamped before start_date_time is priced as sent, with a warning", () => {
    // start_date_time 10:00:10, first period 10:00:00: 1 h TIME with 10 kWh, then 10 min parking.
    // Priced from 10:00:00: TIME 1 h x 600 c/h = 600 c; ENERGY 10 kWh x 30 c = 300 c;
    // PARKING 10 min x 1 200 c/h = 200 c -> 1 100 c. Refusing it (as before) billed nothing.
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.3 },
            { type: "TIME", price: 6 },
            { type: "PARKING_TIME", price: 12 },
          ],
        },
      ],
    });
    const session: ChargingPeriodsSession = {
      method: "charging_periods",
      start_date_time: "2026-10-15T10:00:10Z",
      end_date_time: "2026-10-15T11:10:00Z",
      charging_periods: [
        {
          start_date_time: "2026-10-15T10:00:00Z",
          dimensions: [
            { type: "ENERGY", volume: 10 },
            { type: "TIME", volume: 1 },
          ],
        },
        {
          start_date_time: "2026-10-15T11:00:00Z",
          dimensions: [{ type: "PARKING_TIME", volume: 1 / 6 }],
        },
      ],
    };
    const r = priceSession(tariff, session);
    expect(r.total.excl_vat_minor).toBe(1100);
    expect(r.activity).toMatchObject({
      started_at: "2026-10-15T10:00:00.000Z",
      charging_seconds: 3600,
      idle_seconds: 600,
    });
    expect(r.warnings).toEqual([
      {
        code: "charging_period_before_start",
        message: expect.stringMatching(
          /^charging_periods\.0\.start_date_time \(.*\) is 10 s before start_date_time/,
        ),
        details: {
          field: "charging_periods.0.start_date_time",
          period_start: "2026-10-15T10:00:00.000Z",
          start_date_time: "2026-10-15T10:00:10.000Z",
          seconds_before: 10,
        },
      },
    ]);
    // an input needing no comment has an empty list
    expect(
      priceSession(tariff, { ...session, start_date_time: "2026-10-15T10:00:00Z" }).warnings,
    ).toEqual([]);
  });
});
