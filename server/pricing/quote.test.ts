import { describe, expect, it } from "vitest";
import { PricingError } from "./errors";
import { isComplex, priceSummary, pricingSummary, quoteSession } from "./quote";
import { aTariff } from "../../testing/pricing";

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

describe("pricingSummary rules", () => {
  it("says when a session that never charged pays no fee", () => {
    const t = aTariff({
      elements: [{ price_components: [{ type: "FLAT", price: 1 }] }],
      rules: { flat_fee_without_energy: "waive" },
    });
    expect(pricingSummary(t)).toBe(
      "$1.00 per session; no session fee or minimum when no energy is drawn.",
    );
  });
});

describe("pricingSummary validity", () => {
  it("names the window of session starts the tariff prices", () => {
    const t = aTariff({
      rate_minor_per_kwh: 35,
      start_date_time: "2027-01-01T00:00:00Z",
      end_date_time: "2027-07-01T12:30:15",
    });
    expect(pricingSummary(t)).toBe(
      "$0.35 per kWh. For sessions starting from 2027-01-01 00:00 UTC until 2027-07-01 12:30:15 UTC.",
    );
  });
});

describe("pricingSummary restrictions", () => {
  it("leaves out a zero minimum duration, which restricts nothing", () => {
    const zero = aTariff({
      elements: [
        {
          price_components: [{ type: "PARKING_TIME", price: 6 }],
          restrictions: { min_duration: 0 },
        },
      ],
    });
    expect(pricingSummary(zero)).toBe("$6.00 per hour idle.");
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

describe("priceSummary", () => {
  const at = "2026-10-15T10:00:00Z";

  it("states energy, elapsed time, activity, both totals and each priced dimension", () => {
    // energy 12.5 kWh x $0.40 = 500 c; charging 1 h 30 min x $2.00/h = 300 c; flat 100 c.
    // Excl. VAT 900 c; energy and time carry 10% VAT: 500 + 50 + 300 + 30 + 100 = 980 c.
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.4, vat: 10 },
            { type: "TIME", price: 2, vat: 10 },
            { type: "FLAT", price: 1 },
          ],
        },
      ],
    });
    const r = quoteSession(tariff, { energy_wh: 12_500, duration_seconds: 5400, start_at: at });
    expect(priceSummary(r)).toBe(
      "12.5 kWh over 1 h 30 min (1 h 30 min charging): $9.80 incl. VAT, $9.00 excl. VAT. " +
        "Energy $5.00, charging time $3.00, session fee $1.00.",
    );
  });

  it("names a minimum price that lifted the total and a maximum that capped it", () => {
    // 1 kWh x $0.30 = 30 c, lifted to the $2.00 minimum: +170 c
    const low = aTariff({
      elements: [{ price_components: [{ type: "ENERGY", price: 0.3 }] }],
      min_price: { excl_vat: 2 },
    });
    expect(
      priceSummary(quoteSession(low, { energy_wh: 1000, duration_seconds: 600, start_at: at })),
    ).toBe(
      "1 kWh over 10 min (10 min charging): $2.00 incl. VAT, $2.00 excl. VAT. " +
        "Energy $0.30, minimum price adds $1.70.",
    );
    // 50 kWh x $0.30 = 1500 c, capped at the $10.00 maximum: -500 c
    const high = aTariff({
      elements: [{ price_components: [{ type: "ENERGY", price: 0.3 }] }],
      max_price: { excl_vat: 10 },
    });
    expect(
      priceSummary(quoteSession(high, { energy_wh: 50_000, duration_seconds: 45, start_at: at })),
    ).toBe(
      "50 kWh over 45 s (45 s charging): $10.00 incl. VAT, $10.00 excl. VAT. " +
        "Energy $15.00, maximum price takes off $5.00.",
    );
  });

  it("says when no energy was drawn", () => {
    const tariff = aTariff({ elements: [{ price_components: [{ type: "TIME", price: 6 }] }] });
    const r = quoteSession(tariff, { energy_wh: 0, duration_seconds: 1200, start_at: at });
    expect(priceSummary(r)).toBe(
      "0 kWh over 20 min (20 min waiting): $0.00 incl. VAT, $0.00 excl. VAT. " +
        "No energy drawn, so no charging time.",
    );
  });
});
