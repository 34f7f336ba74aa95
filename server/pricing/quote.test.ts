import { describe, expect, it } from "vitest";
import { PricingError } from "./errors";
import { isComplex, pricingSummary, quoteSession } from "./quote";
import { aTariff } from "./testing";

describe("isComplex", () => {
  it("is false for a rate or its one-element equivalent, true otherwise", () => {
    expect(isComplex(aTariff({ rate_minor_per_kwh: 30 }))).toBe(false);
    const oneEnergy = { price_components: [{ type: "ENERGY" as const, price: 0.3 }] };
    expect(isComplex(aTariff({ rate_minor_per_kwh: 30, elements: [oneEnergy] }))).toBe(false);
    expect(
      isComplex(aTariff({ elements: [{ price_components: [{ type: "ENERGY", price: 0.305 }] }] })),
    ).toBe(true);
    expect(
      isComplex(
        aTariff({ elements: [{ price_components: [{ type: "ENERGY", price: 0.3, vat: 0 }] }] }),
      ),
    ).toBe(true);
    expect(isComplex(aTariff({ elements: [oneEnergy], min_price: { excl_vat: 1 } }))).toBe(true);
    expect(
      isComplex(aTariff({ elements: [{ price_components: [{ type: "TIME", price: 1 }] }] })),
    ).toBe(true);
  });
});

describe("pricingSummary", () => {
  it("describes a simple tariff", () => {
    expect(pricingSummary(aTariff({ rate_minor_per_kwh: 35 }))).toBe("$0.35 per kWh");
  });

  it("describes elements in order, with restrictions, bounds and the time zone", () => {
    const tariff = aTariff({
      time_zone: "America/Chicago",
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.4, vat: 8.25 },
            { type: "TIME", price: 1.2, step_size: 900 },
          ],
          restrictions: {
            start_time: "17:00",
            end_time: "21:00",
            day_of_week: ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"],
          },
        },
        {
          price_components: [{ type: "PARKING_TIME", price: 6 }],
          restrictions: { min_duration: 7200, min_power: 22 },
        },
        {
          price_components: [
            { type: "ENERGY", price: 0.2125 },
            { type: "FLAT", price: 1 },
          ],
        },
      ],
      min_price: { excl_vat: 2 },
    });
    expect(pricingSummary(tariff)).toBe(
      "$0.40 per kWh +8.25% VAT + $1.20 per hour charging in steps of 15 min (17:00–21:00, Mon–Fri); " +
        "$6.00 per hour idle (from 22 kW, after 2 h); $0.2125 per kWh + $1.00 per session; " +
        "minimum $2.00 per session excl. VAT. Local times in America/Chicago.",
    );
  });
});

describe("quoteSession", () => {
  it("prices energy drawn evenly over the duration", () => {
    // 7 500 Wh x 30 c = 225 c
    const r = quoteSession(aTariff({ rate_minor_per_kwh: 30 }), {
      energy_wh: 7500,
      duration_seconds: 1800,
      start_at: "2026-10-15T10:00:00Z",
    });
    expect(r.total.incl_vat_minor).toBe(225);
    expect(r.activity.charging_seconds).toBe(1800);
  });

  it("accepts energy with no duration for energy-only tariffs", () => {
    const r = quoteSession(aTariff({ rate_minor_per_kwh: 30 }), {
      energy_wh: 1000,
      duration_seconds: 0,
      start_at: 0,
    });
    expect(r.total.excl_vat_minor).toBe(30);
  });

  it("refuses negative or fractional energy", () => {
    const t = aTariff({ rate_minor_per_kwh: 30 });
    expect(() => quoteSession(t, { energy_wh: -1, duration_seconds: 60, start_at: 0 })).toThrow(
      PricingError,
    );
    expect(() => quoteSession(t, { energy_wh: 1.5, duration_seconds: 60, start_at: 0 })).toThrow(
      PricingError,
    );
  });
});
