/**
 * Worked examples, each derived by hand from OCPI 2.2.1 semantics, the service's section 9 rules
 * and the decisions in ./README.md. Prices in tariffs are dollars; results are cents.
 */
import { describe, expect, it } from "vitest";
import { priceSession } from "./engine";
import { PricingError } from "./errors";
import { quoteSession } from "./quote";
import type { ChargingPeriodsSession } from "./session";
import { aMeterSession, aTariff } from "../../testing/pricing";

const energyOnly = (price: number, extra: object = {}) =>
  aTariff({ elements: [{ price_components: [{ type: "ENERGY", price, ...extra }] }] });

describe("worked examples", () => {
  it("1. simple tariff: cents per kWh, rounded once, half up", () => {
    const simple = aTariff({ rate_minor_per_kwh: 30 });
    // 12 345 Wh x 30 c/kWh = 370.35 c -> 370 c
    let r = quoteSession(simple, { energy_wh: 12_345, duration_seconds: 3600, start_at: 0 });
    expect(r.billing_version).toBe("energy-v1");
    expect(r.total).toEqual({ excl_vat_minor: 370, incl_vat_minor: 370 });
    // 1 050 Wh x 30 c/kWh = 31.5 c: an exact half goes up -> 32 c
    r = quoteSession(simple, { energy_wh: 1_050, duration_seconds: 60, start_at: 0 });
    expect(r.total.excl_vat_minor).toBe(32);
  });

  it("2. ENERGY step_size rounds the session's energy up once", () => {
    // $0.30/kWh in steps of 500 Wh; 1 234 Wh -> 1 500 Wh billed (266 Wh added)
    // 1 500 Wh x 30 c/kWh = 45 c
    const r = quoteSession(energyOnly(0.3, { step_size: 500 }), {
      energy_wh: 1_234,
      duration_seconds: 600,
      start_at: 0,
    });
    expect(r.dimensions.energy).toMatchObject({
      volume: 1500,
      step_rounding: 266,
      excl_vat_minor: 45,
    });
  });

  it("3. step_size with two components: last applied step and price", () => {
    // element 0: $0.50/kWh below 10 kWh (step 1 Wh); element 1: $0.20/kWh (step 1 000 Wh)
    // 12 345 Wh: 10 000 Wh x 50 c = 500 c; 2 345 Wh x 20 c = 46.9 c
    // total 12 345 Wh rounded to 13 000 Wh with element 1's step: 655 Wh x 20 c = 13.1 c
    // energy = 500 + 46.9 + 13.1 = 560 c
    const tariff = aTariff({
      elements: [
        { price_components: [{ type: "ENERGY", price: 0.5 }], restrictions: { max_kwh: 10 } },
        { price_components: [{ type: "ENERGY", price: 0.2, step_size: 1000 }] },
      ],
    });
    const r = quoteSession(tariff, { energy_wh: 12_345, duration_seconds: 3600, start_at: 0 });
    expect(r.dimensions.energy).toMatchObject({
      volume: 13_000,
      step_rounding: 655,
      excl_vat_minor: 560,
    });
  });

  it("4. time-of-day boundary inside one meter interval splits it", () => {
    // Peak 17:00-21:00 $0.40/kWh, otherwise $0.20/kWh (UTC). One interval 16:30-17:30, 10 kWh
    // drawn evenly: 5 kWh before 17:00 x 20 c = 100 c; 5 kWh after x 40 c = 200 c -> 300 c
    const tariff = aTariff({
      time_zone: "UTC",
      elements: [
        {
          price_components: [{ type: "ENERGY", price: 0.4 }],
          restrictions: { start_time: "17:00", end_time: "21:00" },
        },
        { price_components: [{ type: "ENERGY", price: 0.2 }] },
      ],
    });
    const session = aMeterSession("2026-10-15T16:30:00Z", [
      [0, 1000],
      [60, 11_000],
    ]);
    const r = priceSession(tariff, session);
    expect(r.total.excl_vat_minor).toBe(300);
    expect(r.periods.map((p) => [p.start.slice(11, 16), p.energy_wh, p.elements.energy])).toEqual([
      ["16:30", 5000, 1],
      ["17:00", 5000, 0],
    ]);
  });

  it("5. kWh threshold inside a period splits energy and time where it is crossed", () => {
    // element 0 (below 10 kWh): $0.50/kWh + $2/h; element 1: $0.25/kWh + $4/h
    // 1 h drawing 15 kWh evenly crosses 10 kWh at 40 min.
    // energy: 10 kWh x 50 c + 5 kWh x 25 c = 500 + 125 = 625 c
    // time: 40 min x 200 c/h = 133.33 c; 20 min x 400 c/h = 133.33 c -> 266.67 -> 267 c
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.5 },
            { type: "TIME", price: 2 },
          ],
          restrictions: { max_kwh: 10 },
        },
        {
          price_components: [
            { type: "ENERGY", price: 0.25 },
            { type: "TIME", price: 4 },
          ],
        },
      ],
    });
    const r = quoteSession(tariff, { energy_wh: 15_000, duration_seconds: 3600, start_at: 0 });
    expect(r.dimensions.energy.excl_vat_minor).toBe(625);
    expect(r.dimensions.time.excl_vat_minor).toBe(267);
    expect(r.periods[1]).toMatchObject({ seconds: 1200, energy_before_wh: 10_000 });
  });

  it("6. max_duration: the first hour at one rate, the rest at another", () => {
    // $1/h for the first 3 600 s of the session, $3/h after. 90 min charging:
    // 60 min x 100 c/h = 100 c; 30 min x 300 c/h = 150 c -> 250 c
    const tariff = aTariff({
      elements: [
        { price_components: [{ type: "TIME", price: 1 }], restrictions: { max_duration: 3600 } },
        { price_components: [{ type: "TIME", price: 3 }] },
      ],
    });
    const r = quoteSession(tariff, { energy_wh: 9_000, duration_seconds: 5400, start_at: 0 });
    expect(r.dimensions.time).toMatchObject({ volume: 5400, excl_vat_minor: 250 });
  });

  it("7. PARKING_TIME is billed over idle time after charging", () => {
    // 10:00-11:00 charging 10 kWh, 11:00-11:30 idle (register flat), stop 11:30.
    // energy 10 kWh x 30 c = 300 c; parking 30 min x 1 200 c/h = 600 c -> 900 c
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.3 },
            { type: "PARKING_TIME", price: 12 },
          ],
        },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0],
      [60, 10_000],
      [90, 10_000],
    ]);
    const r = priceSession(tariff, session);
    expect(r.dimensions.energy.excl_vat_minor).toBe(300);
    expect(r.dimensions.parking_time).toMatchObject({ volume: 1800, excl_vat_minor: 600 });
    expect(r.activity).toMatchObject({
      charging_seconds: 3600,
      idle_seconds: 1800,
      waiting_seconds: 0,
    });
  });

  it("8. idle shorter than 2 minutes counts as charging, also at the end", () => {
    // Registers: 0:00 0, 10:00 2000, 11:30 2000 (90 s idle -> charging), 20:00 4000,
    // 23:00 4000 (180 s idle -> parking), 30:00 5000, stop 31:30 (90 s idle -> charging).
    // charging = 1 200 + 420 + 90 = 1 710 s; idle = 180 s
    // TIME 1 710 s x 600 c/h = 285 c; PARKING 180 s x 6 000 c/h = 300 c -> 585 c
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "TIME", price: 6 },
            { type: "PARKING_TIME", price: 60 },
          ],
        },
      ],
    });
    const session = aMeterSession(
      "2026-10-15T10:00:00Z",
      [
        [0, 0],
        [10, 2000],
        [11.5, 2000],
        [20, 4000],
        [23, 4000],
        [30, 5000],
      ],
      { stopMinutes: 31.5 },
    );
    const r = priceSession(tariff, session);
    expect(r.activity).toMatchObject({ charging_seconds: 1710, idle_seconds: 180 });
    expect(r.dimensions.time.excl_vat_minor).toBe(285);
    expect(r.dimensions.parking_time.excl_vat_minor).toBe(300);
    expect(r.total.excl_vat_minor).toBe(585);
  });

  it("9. waiting before the first charging is billed as neither, but counts as duration", () => {
    // Start 10:00; register flat until 10:15 (waiting), 5 kWh by 10:45, stop 10:45.
    // element 0: $12/h from 1 800 s after the session start; element 1: $6/h; parking $60/h.
    // 10:15-10:30 at 600 c/h = 150 c; 10:30-10:45 at 1 200 c/h = 300 c -> 450 c; no parking.
    const tariff = aTariff({
      elements: [
        { price_components: [{ type: "TIME", price: 12 }], restrictions: { min_duration: 1800 } },
        {
          price_components: [
            { type: "TIME", price: 6 },
            { type: "PARKING_TIME", price: 60 },
          ],
        },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 100],
      [5, 100],
      [15, 100],
      [45, 5100],
    ]);
    const r = priceSession(tariff, session);
    expect(r.activity).toMatchObject({
      waiting_seconds: 900,
      charging_seconds: 1800,
      idle_seconds: 0,
    });
    expect(r.dimensions.time.excl_vat_minor).toBe(450);
    expect(r.dimensions.parking_time.excl_vat_minor).toBe(0);
  });

  it("10. no_energy: under 1 Wh is all waiting; no time, no energy", () => {
    // 1 h plugged in, register flat: all waiting. TIME, ENERGY, PARKING_TIME bill nothing;
    // FLAT is not time or energy and is still due by default (README decision 8) -> 100 c
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.3 },
            { type: "TIME", price: 6 },
            { type: "PARKING_TIME", price: 60 },
            { type: "FLAT", price: 1 },
          ],
        },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 500],
      [60, 500],
    ]);
    const r = priceSession(tariff, session);
    expect(r.activity).toMatchObject({
      reason: "no_energy",
      waiting_seconds: 3600,
      charging_seconds: 0,
    });
    expect(r.dimensions.energy.excl_vat_minor + r.dimensions.time.excl_vat_minor).toBe(0);
    expect(r.dimensions.parking_time.excl_vat_minor).toBe(0);
    expect(r.total.excl_vat_minor).toBe(100);
  });

  it("10b. rules.flat_fee_without_energy waive: a session that never charged bills no fee, no minimum", () => {
    // FLAT $1 + TIME $6/h, min_price $2; 1 h plugged in, register flat (no_energy).
    // charge (default): FLAT 100 c, lifted to the 200 c minimum. waive: 0 c.
    // A reservation before it is still billed: 30 min x 400 c/h = 200 c.
    const elements = [
      {
        price_components: [
          { type: "FLAT" as const, price: 1 },
          { type: "TIME" as const, price: 6 },
        ],
      },
      {
        price_components: [{ type: "TIME" as const, price: 4 }],
        restrictions: { reservation: "RESERVATION" as const },
      },
    ];
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 500],
      [60, 500],
    ]);
    const charge = aTariff({ elements, min_price: { excl_vat: 2 } });
    expect(priceSession(charge, session).total.excl_vat_minor).toBe(200);
    const waive = aTariff({
      elements,
      min_price: { excl_vat: 2 },
      rules: { flat_fee_without_energy: "waive" },
    });
    const r = priceSession(waive, session);
    expect(r.dimensions.flat.excl_vat_minor).toBe(0);
    expect(r.price_bound.applied).toBeNull();
    expect(r.total.excl_vat_minor).toBe(0);
    const reserved = priceSession(waive, {
      ...session,
      reservation: { started_at: "2026-10-15T09:30:00Z", expired: false },
    });
    expect(reserved.total.excl_vat_minor).toBe(200);
    // a session that did charge pays its FLAT either way: 1 Wh, 1 h charging -> 100 + 600 c
    const charged = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 500],
      [60, 501],
    ]);
    expect(priceSession(waive, charged).total.excl_vat_minor).toBe(700);
  });

  it("11. FLAT is charged once per session, from the first period it applies in", () => {
    // element 0: FLAT $2 17:00-21:00; element 1: FLAT $1. Session 16:00-18:00 UTC.
    // 16:00 period: element 1 applies -> $1 once; the 17:00 period adds nothing -> 100 c
    const tariff = aTariff({
      time_zone: "UTC",
      elements: [
        {
          price_components: [{ type: "FLAT", price: 2 }],
          restrictions: { start_time: "17:00", end_time: "21:00" },
        },
        { price_components: [{ type: "FLAT", price: 1 }] },
      ],
    });
    const r = quoteSession(tariff, {
      energy_wh: 10_000,
      duration_seconds: 7200,
      start_at: "2026-10-15T16:00:00Z",
    });
    expect(r.dimensions.flat).toMatchObject({ volume: 1, excl_vat_minor: 100 });
    expect(r.periods.map((p) => p.elements.flat)).toEqual([1, null]);
  });

  it("12. min_price and max_price bound excl. and incl. VAT separately", () => {
    const base = {
      elements: [{ price_components: [{ type: "ENERGY" as const, price: 0.3, vat: 20 }] }],
    };
    // 5 kWh x 30 c = 150 c excl, 180 c incl; min 500/600 -> bound +350/+420 -> 500/600
    const withMin = aTariff({ ...base, min_price: { excl_vat: 5, incl_vat: 6 } });
    let r = quoteSession(withMin, { energy_wh: 5000, duration_seconds: 3600, start_at: 0 });
    expect(r.price_bound).toEqual({
      applied: "min_price",
      excl_vat_minor: 350,
      incl_vat_minor: 420,
    });
    expect(r.total).toEqual({ excl_vat_minor: 500, incl_vat_minor: 600 });
    // 50 kWh x 30 c = 1 500 c excl, 1 800 c incl; max 1 000 excl, no incl bound:
    // excl -500 -> 1 000; incl moves by the same -500 -> 1 300
    const withMax = aTariff({ ...base, max_price: { excl_vat: 10 } });
    r = quoteSession(withMax, { energy_wh: 50_000, duration_seconds: 3600, start_at: 0 });
    expect(r.total).toEqual({ excl_vat_minor: 1000, incl_vat_minor: 1300 });
  });

  it("12b. a bound without incl_vat keeps the session's exact VAT on top of it", () => {
    // ENERGY $0.001/kWh (no VAT), TIME $3.0035/h +10.2% VAT, min_price $20 excl. only; 1 h charging.
    // time 300.35 c excl, 300.35 x 1.102 = 330.9857 c incl
    // 1 kWh: excl 300.45, incl 331.0857; 2 kWh: excl 300.55, incl 331.1857
    // excl: below the minimum both times -> 2 000
    // incl: 2 000 + the exact VAT (30.6357 both times) = 2 030.6357 -> 2 031 both times.
    // (Moving incl by the excl bound's whole cents would give 331 + 1 700 = 2 031 for 1 kWh but
    // 331 + 1 699 = 2 030 for 2 kWh: more energy, a lower price.)
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.001 },
            { type: "TIME", price: 3.0035, vat: 10.2 },
          ],
        },
      ],
      min_price: { excl_vat: 20 },
    });
    const quote = (wh: number) =>
      quoteSession(tariff, { energy_wh: wh, duration_seconds: 3600, start_at: 0 });
    expect(quote(1000).total).toEqual({ excl_vat_minor: 2000, incl_vat_minor: 2031 });
    expect(quote(2000).total).toEqual({ excl_vat_minor: 2000, incl_vat_minor: 2031 });
    expect(quote(2000).price_bound).toEqual({
      applied: "min_price",
      excl_vat_minor: 2000 - 301,
      incl_vat_minor: 2031 - 331,
    });
  });

  it("13. VAT applies per component; each total is rounded once", () => {
    // ENERGY $0.30 +20%, TIME $1/h no VAT, PARKING $6/h +8.25%.
    // 1 h charging 10 kWh, then 20 min idle.
    // energy 300 c excl, 360 c incl; time 100/100; parking 200 c excl, 216.5 c incl
    // totals 600 c excl; 676.5 -> 677 c incl, the missing cent allocated to parking (217)
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.3, vat: 20 },
            { type: "TIME", price: 1 },
            { type: "PARKING_TIME", price: 6, vat: 8.25 },
          ],
        },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0],
      [60, 10_000],
      [80, 10_000],
    ]);
    const r = priceSession(tariff, session);
    expect(r.dimensions.parking_time).toMatchObject({ excl_vat_minor: 200, incl_vat_minor: 217 });
    expect(r.total).toEqual({ excl_vat_minor: 600, incl_vat_minor: 677 });
  });

  it("14. day_of_week uses the local day at each period start", () => {
    // Weekend $0.10/kWh, otherwise $0.30. Friday 2026-10-16 23:00 UTC to Saturday 01:00,
    // 2 kWh per hour: Friday hour 2 kWh x 30 c = 60 c; Saturday hour 2 kWh x 10 c = 20 c -> 80 c
    const tariff = aTariff({
      time_zone: "UTC",
      elements: [
        {
          price_components: [{ type: "ENERGY", price: 0.1 }],
          restrictions: { day_of_week: ["SATURDAY", "SUNDAY"] },
        },
        { price_components: [{ type: "ENERGY", price: 0.3 }] },
      ],
    });
    const r = quoteSession(tariff, {
      energy_wh: 4000,
      duration_seconds: 7200,
      start_at: "2026-10-16T23:00:00Z",
    });
    expect(r.total.excl_vat_minor).toBe(80);
  });

  it("15. a window wrapping midnight belongs to the day it opens", () => {
    // FRIDAY 22:00-06:00 $0.10/kWh, otherwise $0.30; 1 kWh per hour evenly.
    // Friday 05:00-07:00: 05-06 is Thursday night's window -> 30 c; 06-07 -> 30 c = 60 c
    // Friday 21:00 to Saturday 07:00: 21-22 30 c; 22:00-06:00 8 x 10 c = 80 c; 06-07 30 c = 140 c
    const tariff = aTariff({
      time_zone: "UTC",
      elements: [
        {
          price_components: [{ type: "ENERGY", price: 0.1 }],
          restrictions: { start_time: "22:00", end_time: "06:00", day_of_week: ["FRIDAY"] },
        },
        { price_components: [{ type: "ENERGY", price: 0.3 }] },
      ],
    });
    const early = quoteSession(tariff, {
      energy_wh: 2000,
      duration_seconds: 7200,
      start_at: "2026-10-16T05:00:00Z",
    });
    expect(early.total.excl_vat_minor).toBe(60);
    const night = quoteSession(tariff, {
      energy_wh: 10_000,
      duration_seconds: 36_000,
      start_at: "2026-10-16T21:00:00Z",
    });
    expect(night.total.excl_vat_minor).toBe(140);
  });

  it("16. local time in a zone without DST (America/Phoenix, UTC-7)", () => {
    // Peak 17:00-21:00 local = 00:00-04:00 UTC. $4/h peak TIME, $1/h otherwise.
    // 23:00-01:00 UTC = 16:00-18:00 local: 1 h x 100 c + 1 h x 400 c = 500 c
    const tariff = aTariff({
      time_zone: "America/Phoenix",
      elements: [
        {
          price_components: [{ type: "TIME", price: 4 }],
          restrictions: { start_time: "17:00", end_time: "21:00" },
        },
        { price_components: [{ type: "TIME", price: 1 }] },
      ],
    });
    const r = quoteSession(tariff, {
      energy_wh: 20_000,
      duration_seconds: 7200,
      start_at: "2026-07-01T23:00:00Z",
    });
    expect(r.total.excl_vat_minor).toBe(500);
  });

  it("17. local time across a DST change (America/New_York, 2026-03-08)", () => {
    // Night 00:00-06:00 local $1/h TIME, otherwise $2/h. Clocks go 02:00 EST -> 03:00 EDT.
    // Session 04:00-12:00 UTC (23:00 EST to 08:00 EDT). Night = 05:00Z (00:00 EST) to
    // 10:00Z (06:00 EDT) = 5 real hours: 5 x 100 c + 3 x 200 c = 1 100 c
    const tariff = aTariff({
      time_zone: "America/New_York",
      elements: [
        {
          price_components: [{ type: "TIME", price: 1 }],
          restrictions: { start_time: "00:00", end_time: "06:00" },
        },
        { price_components: [{ type: "TIME", price: 2 }] },
      ],
    });
    const r = quoteSession(tariff, {
      energy_wh: 40_000,
      duration_seconds: 8 * 3600,
      start_at: "2026-03-08T04:00:00Z",
    });
    expect(r.total.excl_vat_minor).toBe(1100);
  });

  it("17b. a wall time repeated by the fall-back is in the window both times", () => {
    // 01:30-02:00 local $10/h TIME, otherwise $1/h. On 2026-11-01 01:00-02:00 happens twice
    // (EDT, then EST). Session 05:00-08:00 UTC: windows 05:30-06:00Z and 06:30-07:00Z.
    // 2 x 30 min x 1 000 c/h = 1 000 c; 2 h x 100 c/h = 200 c -> 1 200 c
    const tariff = aTariff({
      time_zone: "America/New_York",
      elements: [
        {
          price_components: [{ type: "TIME", price: 10 }],
          restrictions: { start_time: "01:30", end_time: "02:00" },
        },
        { price_components: [{ type: "TIME", price: 1 }] },
      ],
    });
    const r = quoteSession(tariff, {
      energy_wh: 1000,
      duration_seconds: 3 * 3600,
      start_at: "2026-11-01T05:00:00Z",
    });
    expect(r.total.excl_vat_minor).toBe(1200);
  });

  it("18. time steps: parking after charging rounds only parking; otherwise charging", () => {
    // TIME $6/h and PARKING $12/h, both in 900 s steps.
    // 20 min charging + 5 min idle: TIME 20 min = 200 c; parking 5 -> 15 min = 300 c -> 500 c
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "TIME", price: 6, step_size: 900 },
            { type: "PARKING_TIME", price: 12, step_size: 900 },
          ],
        },
      ],
    });
    const withParking = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0],
      [20, 3000],
      [25, 3000],
    ]);
    let r = priceSession(tariff, withParking);
    expect(r.dimensions.time).toMatchObject({ volume: 1200, excl_vat_minor: 200 });
    expect(r.dimensions.parking_time).toMatchObject({
      volume: 900,
      step_rounding: 600,
      excl_vat_minor: 300,
    });
    // 20 min charging only: TIME rounded to 30 min = 300 c
    r = quoteSession(tariff, { energy_wh: 3000, duration_seconds: 1200, start_at: 0 });
    expect(r.dimensions.time).toMatchObject({ volume: 1800, excl_vat_minor: 300 });
  });

  it("19. power restrictions use average power over charging time", () => {
    // $0.50/kWh at 50 kW or more, otherwise $0.30. 30 min drawing 30 kWh (60 kW average),
    // then 30 min drawing 5 kWh (10 kW): 30 x 50 c + 5 x 30 c = 1 500 + 150 = 1 650 c
    const tariff = aTariff({
      elements: [
        { price_components: [{ type: "ENERGY", price: 0.5 }], restrictions: { min_power: 50 } },
        { price_components: [{ type: "ENERGY", price: 0.3 }] },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0],
      [30, 30_000],
      [60, 35_000],
    ]);
    expect(priceSession(tariff, session).total.excl_vat_minor).toBe(1650);
  });

  it("20. current restrictions use the reading that closes each interval", () => {
    // $0.40/kWh from 32 A, otherwise $0.25. First interval closes at 40 A (4 kWh),
    // second at 16 A (2 kWh): 4 x 40 c + 2 x 25 c = 160 + 50 = 210 c
    const tariff = aTariff({
      elements: [
        { price_components: [{ type: "ENERGY", price: 0.4 }], restrictions: { min_current: 32 } },
        { price_components: [{ type: "ENERGY", price: 0.25 }] },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0, 40],
      [30, 4000, 40],
      [60, 6000, 16],
    ]);
    expect(priceSession(tariff, session).total.excl_vat_minor).toBe(210);
  });

  it("21. OCPI charging_periods price like the same meter series (example 7)", () => {
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.3 },
            { type: "PARKING_TIME", price: 12 },
          ],
        },
      ],
    });
    const session: ChargingPeriodsSession = {
      method: "charging_periods",
      start_date_time: "2026-10-15T10:00:00Z",
      end_date_time: "2026-10-15T11:30:00Z",
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
          dimensions: [{ type: "PARKING_TIME", volume: 0.5 }],
        },
      ],
    };
    const r = priceSession(tariff, session);
    expect(r.activity).toMatchObject({
      method: "charging_periods",
      charging_seconds: 3600,
      idle_seconds: 1800,
    });
    expect(r.total.excl_vat_minor).toBe(900);
  });

  it("22. exact totals: an exact $10.300 bills $10.30, not $10.31", () => {
    // ENERGY $0.30/kWh +10% VAT, TIME $3.435/h, PARKING $3.43/h. 1 h charging 11.45 kWh, 1 h idle.
    // energy 11 450 Wh x 0.03 c/Wh = 343.5 c excl, 377.85 c incl
    // time   1 h x 343.5 c/h       = 343.5 c
    // parking 1 h x 343 c/h        = 343 c
    // excl: exact 1 030 c -> 1 030 (each line rounded half up first would give 344 + 344 + 343 =
    //   1 031). Lines: floors 343 + 343 + 343 = 1 029; the missing cent goes to the largest
    //   remainder, 0.5 for energy and time alike: the tie goes to energy, listed first -> 344/343/343.
    // incl: exact 377.85 + 343.5 + 343 = 1 064.35 -> 1 064 (per line: 378 + 344 + 343 = 1 065).
    //   Floors 377 + 343 + 343 = 1 063; one cent to the largest remainder (energy, 0.85) -> 378.
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.3, vat: 10 },
            { type: "TIME", price: 3.435 },
            { type: "PARKING_TIME", price: 3.43 },
          ],
        },
      ],
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0],
      [60, 11_450],
      [120, 11_450],
    ]);
    const r = priceSession(tariff, session);
    expect(r.total).toEqual({ excl_vat_minor: 1030, incl_vat_minor: 1064 });
    const lines = (key: "excl_vat_minor" | "incl_vat_minor") =>
      [r.dimensions.energy, r.dimensions.time, r.dimensions.parking_time].map((d) => d[key]);
    expect(lines("excl_vat_minor")).toEqual([344, 343, 343]);
    expect(lines("incl_vat_minor")).toEqual([378, 343, 343]);
    expect(r.dimensions.energy).toMatchObject({
      exact_excl_vat_minor: "343.5000",
      exact_incl_vat_minor: "377.8500",
    });
  });
});

describe("edge cases", () => {
  it("energy with no duration still crosses kWh thresholds; its power is unknown", () => {
    // element 0: $0.50/kWh below 1 kWh; element 1: $0.10/kWh. 2 000 Wh at one instant:
    // 1 kWh x 50 c + 1 kWh x 10 c = 60 c
    const kwh = aTariff({
      elements: [
        { price_components: [{ type: "ENERGY", price: 0.5 }], restrictions: { max_kwh: 1 } },
        { price_components: [{ type: "ENERGY", price: 0.1 }] },
      ],
    });
    expect(
      quoteSession(kwh, { energy_wh: 2000, duration_seconds: 0, start_at: 0 }).total.excl_vat_minor,
    ).toBe(60);
    // "below 1 000 kW" cannot be judged without a duration: element 0 is skipped -> 2 x 10 c = 20 c
    const power = aTariff({
      elements: [
        { price_components: [{ type: "ENERGY", price: 0.5 }], restrictions: { max_power: 1000 } },
        { price_components: [{ type: "ENERGY", price: 0.1 }] },
      ],
    });
    expect(
      quoteSession(power, { energy_wh: 2000, duration_seconds: 0, start_at: 0 }).total
        .excl_vat_minor,
    ).toBe(20);
  });

  it("no_energy still pays FLAT and min_price (README decision 8)", () => {
    // FLAT 50 c; 30 min of TIME is not billed; min_price $2 adds 150 c -> 200 c
    const tariff = aTariff({
      elements: [
        {
          price_components: [
            { type: "FLAT", price: 0.5 },
            { type: "TIME", price: 3 },
          ],
        },
      ],
      min_price: { excl_vat: 2 },
    });
    const session = aMeterSession("2026-10-15T10:00:00Z", [
      [0, 0],
      [30, 0],
    ]);
    const r = priceSession(tariff, session);
    expect(r.dimensions.time.excl_vat_minor).toBe(0);
    expect(r.price_bound).toEqual({
      applied: "min_price",
      excl_vat_minor: 150,
      incl_vat_minor: 150,
    });
    expect(r.total.excl_vat_minor).toBe(200);
  });

  it("refuses a session longer than 31 days (a bad clock)", () => {
    const session = aMeterSession("1970-01-01T00:00:00Z", [
      [0, 0],
      [60 * 24 * 40, 1000],
    ]);
    expect(() => priceSession(aTariff({ rate_minor_per_kwh: 30 }), session)).toThrow(/31 days/);
  });
});

describe("sessions without a start time", () => {
  const noStart = aMeterSession(
    "2026-10-15T10:00:00Z",
    [
      [0, 0],
      [60, 10_000],
    ],
    { startKnown: false },
  );

  it("cannot be priced by a time-dependent tariff", () => {
    const timed = aTariff({ elements: [{ price_components: [{ type: "TIME", price: 1 }] }] });
    expect(() => priceSession(timed, noStart)).toThrow(PricingError);
    try {
      priceSession(timed, noStart);
    } catch (error) {
      expect((error as PricingError).code).toBe("transaction_start_unknown");
    }
  });

  it("are priced by energy-only tariffs from the readings", () => {
    // 10 kWh x 30 c = 300 c
    const r = priceSession(aTariff({ rate_minor_per_kwh: 30 }), noStart);
    expect(r.total.excl_vat_minor).toBe(300);
    expect(r.activity.start_known).toBe(false);
    // reservation time prices only reservations, whose instants are always given: 300 c too
    const reservable = aTariff({
      elements: [
        { price_components: [{ type: "ENERGY", price: 0.3 }] },
        {
          price_components: [{ type: "TIME", price: 2 }],
          restrictions: { reservation: "RESERVATION", start_time: "08:00" },
        },
      ],
      time_zone: "UTC",
    });
    expect(priceSession(reservable, noStart).total.excl_vat_minor).toBe(300);
  });
});
