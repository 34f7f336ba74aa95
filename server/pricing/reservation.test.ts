/**
 * Reservations (OCPI 2.2.1 `reservation` restriction), worked by hand from README decision 15:
 * elements restricted to RESERVATION price a used reservation, RESERVATION_EXPIRES then
 * RESERVATION elements an expired one; no other element prices reserved time, and reservation
 * elements never price the session.
 */
import { describe, expect, it } from "vitest";
import { priceSession } from "./engine";
import { priceSummary, pricingSummary, quoteSession } from "./quote";
import type { ChargingPeriodsSession, MeterSession } from "./session";
import { aMeterSession, aTariff } from "../../testing/pricing";

const reservationTariff = aTariff({
  elements: [
    {
      price_components: [
        { type: "TIME", price: 3, step_size: 300 },
        { type: "FLAT", price: 1.5 },
      ],
      restrictions: { reservation: "RESERVATION" },
    },
    {
      price_components: [
        { type: "ENERGY", price: 0.3 },
        { type: "FLAT", price: 0.4 },
      ],
    },
  ],
});

/** Reserved 10:00-10:18, then 1 h charging 12 kWh from 10:18. */
const reservedThenCharged = (): MeterSession => ({
  ...aMeterSession("2026-10-15T10:18:00Z", [
    [0, 0],
    [60, 12_000],
  ]),
  reservation: { started_at: "2026-10-15T10:00:00Z", expired: false },
});

const expiryTariff = aTariff({
  elements: [
    {
      price_components: [{ type: "FLAT", price: 5 }],
      restrictions: { reservation: "RESERVATION_EXPIRES" },
    },
    {
      price_components: [{ type: "TIME", price: 2, step_size: 600 }],
      restrictions: { reservation: "RESERVATION" },
    },
    {
      price_components: [
        { type: "ENERGY", price: 0.3 },
        { type: "FLAT", price: 0.4 },
      ],
    },
  ],
  min_price: { excl_vat: 10 },
});

const expired = (): MeterSession => ({
  method: "meter_values",
  started_at: null,
  readings: [],
  reservation: {
    started_at: "2026-10-15T09:00:00Z",
    ended_at: "2026-10-15T09:45:00Z",
    expired: true,
  },
});

describe("reservations", () => {
  it("R1. a used reservation: reserved time and fee from RESERVATION elements, apart from the session", () => {
    // reservation 18 min -> 20 min (step 300 s: 1 080 s -> 1 200 s) x 300 c/h = 100 c; fee 150 c
    // session: 12 kWh x 30 c = 360 c; the session's FLAT 40 c. The reservation element's TIME
    // never bills charging time; the session element's FLAT is not the reservation fee.
    // total 100 + 150 + 360 + 40 = 650 c
    const r = priceSession(reservationTariff, reservedThenCharged());
    expect(r.dimensions.reservation).toMatchObject({
      volume: 1200,
      step_rounding: 120,
      excl_vat_minor: 100,
    });
    expect(r.dimensions.reservation_fee).toMatchObject({ volume: 1, excl_vat_minor: 150 });
    expect(r.dimensions.time.excl_vat_minor).toBe(0);
    expect(r.dimensions.flat.excl_vat_minor).toBe(40);
    expect(r.total.excl_vat_minor).toBe(650);
    expect(r.activity.reservation).toEqual({
      status: "used",
      started_at: "2026-10-15T10:00:00.000Z",
      ended_at: "2026-10-15T10:18:00.000Z",
      seconds: 1080,
    });
    expect(r.periods[0]).toMatchObject({
      activity: "reservation",
      elements: { reservation: 0, reservation_fee: 0, flat: null },
    });
    expect(priceSummary(r)).toBe(
      "12 kWh over 1 h (1 h charging) after 18 min reserved: $6.50 incl. VAT, $6.50 excl. VAT. " +
        "Energy $3.60, session fee $0.40, reservation $1.00, reservation fee $1.50.",
    );
  });

  it("R2. an expired reservation: RESERVATION_EXPIRES first, then RESERVATION; no session fee, no minimum", () => {
    // 45 min reserved -> 50 min (step 600 s) x 200 c/h = 166.67 c (RESERVATION: the expiry element
    // has no TIME); expiry fee 500 c. No session, so no session FLAT and no min_price ($10).
    // excl: exact 666.67 -> 667; floors 0 + 166 + 500 = 666, the cent goes to reservation (0.67)
    const r = priceSession(expiryTariff, expired());
    expect(r.dimensions.reservation).toMatchObject({ volume: 3000, excl_vat_minor: 167 });
    expect(r.dimensions.reservation_fee.excl_vat_minor).toBe(500);
    expect(r.dimensions.flat.excl_vat_minor).toBe(0);
    expect(r.price_bound.applied).toBeNull();
    expect(r.total.excl_vat_minor).toBe(667);
    expect(r.activity).toMatchObject({
      reason: "reservation_expired",
      reservation: { status: "expired", seconds: 2700 },
      charging_seconds: 0,
    });
    expect(priceSummary(r)).toBe(
      "Reservation of 45 min expired without charging: $6.67 incl. VAT, $6.67 excl. VAT. " +
        "Reservation $1.67, reservation fee $5.00.",
    );
    // The same reservation used: no expiry fee; 166.67 c reserved + 40 c session fee (no energy
    // drawn in 1 min of waiting), lifted to the $10 minimum -> 1 000 c
    const used: MeterSession = {
      ...aMeterSession("2026-10-15T09:45:00Z", [
        [0, 0],
        [1, 0],
      ]),
      reservation: { started_at: "2026-10-15T09:00:00Z", expired: false },
    };
    const u = priceSession(expiryTariff, used);
    expect(u.dimensions.reservation_fee.excl_vat_minor).toBe(0);
    expect(u.dimensions.reservation.excl_vat_minor).toBe(167);
    expect(u.price_bound).toMatchObject({ applied: "min_price", excl_vat_minor: 1000 - 207 });
  });

  it("R3. expired reservation time is priced by RESERVATION_EXPIRES even when listed after RESERVATION", () => {
    const tariff = aTariff({
      elements: [
        {
          price_components: [{ type: "TIME", price: 2 }],
          restrictions: { reservation: "RESERVATION" },
        },
        {
          price_components: [{ type: "TIME", price: 6 }],
          restrictions: { reservation: "RESERVATION_EXPIRES" },
        },
      ],
    });
    // expired 45 min x 600 c/h = 450 c; used, the same 45 min x 200 c/h = 150 c
    expect(priceSession(tariff, expired()).total.excl_vat_minor).toBe(450);
    const used = priceSession(tariff, {
      ...aMeterSession("2026-10-15T09:45:00Z", [
        [0, 0],
        [10, 1000],
      ]),
      reservation: { started_at: "2026-10-15T09:00:00Z", expired: false },
    });
    expect(used.total.excl_vat_minor).toBe(150);
  });

  it("R4. restrictions on reservation elements are judged per period like any other", () => {
    // reserved 09:30-10:30 UTC: 08:00-10:00 at $6/h, otherwise $2/h -> 30 min x 600 + 30 min x 200
    // = 300 + 100 = 400 c; durations count from the reservation's start (max_duration 3 600 s
    // holds throughout)
    const tariff = aTariff({
      time_zone: "UTC",
      elements: [
        {
          price_components: [{ type: "TIME", price: 6 }],
          restrictions: {
            reservation: "RESERVATION",
            start_time: "08:00",
            end_time: "10:00",
            max_duration: 3600,
          },
        },
        {
          price_components: [{ type: "TIME", price: 2 }],
          restrictions: { reservation: "RESERVATION" },
        },
      ],
    });
    const r = quoteSession(tariff, {
      energy_wh: 1000,
      duration_seconds: 0,
      start_at: "2026-10-15T09:30:00Z",
      reservation_seconds: 3600,
    });
    expect(r.dimensions.reservation.excl_vat_minor).toBe(400);
    expect(
      r.periods.filter((p) => p.activity === "reservation").map((p) => p.elements.reservation),
    ).toEqual([0, 1]);
  });

  it("R5. elements without a reservation restriction never price reserved time", () => {
    // TIME $6/h unrestricted; 30 min reserved, then 30 min charging: only charging, 300 c
    const tariff = aTariff({ elements: [{ price_components: [{ type: "TIME", price: 6 }] }] });
    const r = quoteSession(tariff, {
      energy_wh: 5000,
      duration_seconds: 1800,
      start_at: "2026-10-15T09:00:00Z",
      reservation_seconds: 1800,
    });
    expect(r.dimensions.reservation.excl_vat_minor).toBe(0);
    expect(r.total.excl_vat_minor).toBe(300);
    expect(r.activity).toMatchObject({ waiting_seconds: 0, charging_seconds: 1800 });
  });

  it("R6. OCPI charging periods: RESERVATION_TIME periods price as the meter series' reservation", () => {
    // R1 as a CDR: start_date_time is the reservation's start; 0.3 h reserved = 18 min
    const used: ChargingPeriodsSession = {
      method: "charging_periods",
      start_date_time: "2026-10-15T10:00:00Z",
      end_date_time: "2026-10-15T11:18:00Z",
      charging_periods: [
        {
          start_date_time: "2026-10-15T10:00:00Z",
          dimensions: [{ type: "RESERVATION_TIME", volume: 0.3 }],
        },
        {
          start_date_time: "2026-10-15T10:18:00Z",
          dimensions: [
            { type: "ENERGY", volume: 12 },
            { type: "TIME", volume: 1 },
          ],
        },
      ],
    };
    const meter = priceSession(reservationTariff, reservedThenCharged());
    const cdr = priceSession(reservationTariff, used);
    expect(cdr.total).toEqual(meter.total);
    expect(cdr.dimensions).toEqual(meter.dimensions);
    expect(cdr.activity.reservation).toEqual(meter.activity.reservation);
    // R2 as a CDR: nothing but reservation time, so it expired
    const lapsed: ChargingPeriodsSession = {
      method: "charging_periods",
      start_date_time: "2026-10-15T09:00:00Z",
      end_date_time: "2026-10-15T09:45:00Z",
      charging_periods: [
        {
          start_date_time: "2026-10-15T09:00:00Z",
          dimensions: [{ type: "RESERVATION_TIME", volume: 0.75 }],
        },
      ],
    };
    expect(priceSession(expiryTariff, lapsed).total).toEqual(
      priceSession(expiryTariff, expired()).total,
    );
  });

  it("describes reservation elements in the tariff's words", () => {
    expect(pricingSummary(expiryTariff)).toBe(
      "$5.00 per reservation (expired reservations); $2.00 per hour reserved in steps of 10 min (reservations); " +
        "$0.30 per kWh + $0.40 per session; minimum $10.00 per session excl. VAT.",
    );
  });
});
