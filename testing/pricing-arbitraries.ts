/** fast-check generators of tariffs and sessions for the pricing property tests. */
import fc from "fast-check";
import type { ChargingPeriodsSession, MeterSession } from "../server/pricing/session";
import {
  DAYS_OF_WEEK,
  type PriceComponent,
  type TariffElement,
  type TariffRestrictions,
  type TariffSnapshot,
} from "../server/pricing/tariff-schema";
import { aTariff } from "./pricing";

export const TIME_ZONES = [
  "UTC",
  "America/New_York",
  "America/Phoenix",
  "Europe/Berlin",
  "Asia/Kolkata",
  "Australia/Lord_Howe", // 30-minute DST shift
] as const;

/** Up to 4 decimals, exactly representable as the decimal it prints as. */
const price = fc.integer({ min: 0, max: 200_000 }).map((n) => n / 10_000);
const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`);

export interface TariffShape {
  /** Restriction kinds to draw from. */
  restrictions: readonly ("clock" | "duration" | "energy" | "power" | "current" | "reservation")[];
  /** Only step_size 1. */
  unitSteps: boolean;
  /** Append an unrestricted element pricing ENERGY, TIME and PARKING_TIME. */
  fallback: boolean;
  bounds: boolean;
}

const ALL: TariffShape = {
  restrictions: ["clock", "duration", "energy", "power", "current", "reservation"],
  unitSteps: false,
  fallback: false,
  bounds: true,
};

function component(shape: TariffShape): fc.Arbitrary<PriceComponent> {
  return fc.record({
    type: fc.constantFrom("ENERGY", "TIME", "PARKING_TIME", "FLAT"),
    price,
    vat: fc.option(
      fc.integer({ min: 0, max: 2500 }).map((n) => n / 100),
      { nil: undefined },
    ),
    step_size: shape.unitSteps ? fc.constant(1) : fc.constantFrom(1, 1, 1, 60, 300, 500, 900, 1000),
  });
}

function range(lo: number, hi: number, scale: number) {
  return fc
    .tuple(fc.integer({ min: lo, max: hi }), fc.integer({ min: 1, max: hi }))
    .map(([a, width]) => ({ min: a / scale, max: (a + width) / scale }));
}

function restrictions(shape: TariffShape): fc.Arbitrary<TariffRestrictions> {
  const kinds = new Set(shape.restrictions);
  const opt = <T>(on: boolean, arb: fc.Arbitrary<T>) =>
    on ? fc.option(arb, { nil: undefined, freq: 2 }) : fc.constant(undefined);
  return fc
    .record({
      window: opt(
        kinds.has("clock"),
        fc.tuple(fc.option(hhmm, { nil: undefined }), fc.option(hhmm, { nil: undefined })),
      ),
      days: opt(kinds.has("clock"), fc.subarray([...DAYS_OF_WEEK], { minLength: 1 })),
      kwh: opt(kinds.has("energy"), range(0, 40, 1)),
      power: opt(kinds.has("power"), range(0, 100, 1)),
      current: opt(kinds.has("current"), range(0, 64, 1)),
      duration: opt(kinds.has("duration"), range(0, 14_400, 1)),
      reservation: opt(
        kinds.has("reservation"),
        fc.constantFrom("RESERVATION" as const, "RESERVATION_EXPIRES" as const),
      ),
      halves: fc.tuple(fc.boolean(), fc.boolean()),
    })
    .map(({ window, days, kwh, power, current, duration, reservation, halves: [lower, upper] }) => {
      const r: TariffRestrictions = {};
      if (reservation) r.reservation = reservation;
      const [start, end] = window ?? [];
      if (start) r.start_time = start;
      if (end && end !== start) r.end_time = end;
      if (days) r.day_of_week = days;
      // Drop one side of a range now and then, so open-ended restrictions appear too.
      const put = (
        v: { min: number; max: number } | undefined,
        lo: keyof TariffRestrictions,
        hi: keyof TariffRestrictions,
      ) => {
        if (!v) return;
        if (lower) Object.assign(r, { [lo]: v.min });
        if (upper || !lower) Object.assign(r, { [hi]: v.max });
      };
      put(kwh, "min_kwh", "max_kwh");
      put(power, "min_power", "max_power");
      put(current, "min_current", "max_current");
      put(
        duration && { min: Math.round(duration.min), max: Math.round(duration.max) },
        "min_duration",
        "max_duration",
      );
      return r;
    });
}

function element(shape: TariffShape): fc.Arbitrary<TariffElement> {
  return fc
    .record({
      components: fc.uniqueArray(component(shape), {
        minLength: 1,
        maxLength: 4,
        selector: (c) => c.type,
      }),
      restrictions: fc.option(restrictions(shape), { nil: undefined }),
    })
    .map(({ components, restrictions: r }) => ({
      price_components: components,
      ...(r && Object.keys(r).length > 0 ? { restrictions: r } : {}),
    }));
}

export function tariffArbitrary(partial: Partial<TariffShape> = {}): fc.Arbitrary<TariffSnapshot> {
  const shape = { ...ALL, ...partial };
  const fallback: TariffElement = {
    price_components: [
      { type: "ENERGY", price: 0.25, step_size: 1 },
      { type: "TIME", price: 1.5, step_size: 1 },
      { type: "PARKING_TIME", price: 3, step_size: 1 },
    ],
  };
  return fc
    .record({
      elements: fc.array(element(shape), { minLength: 1, maxLength: 5 }),
      time_zone: fc.constantFrom(...TIME_ZONES),
      min: shape.bounds
        ? fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined })
        : fc.constant(undefined),
      max: shape.bounds
        ? fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined })
        : fc.constant(undefined),
    })
    .map(({ elements, time_zone, min, max }) => {
      const lo = min === undefined || max === undefined ? min : Math.min(min, max);
      const hi = min === undefined || max === undefined ? max : Math.max(min, max);
      return aTariff({
        time_zone,
        elements: shape.fallback ? [...elements, fallback] : elements,
        ...(lo !== undefined ? { min_price: { excl_vat: lo / 100 } } : {}),
        ...(hi !== undefined
          ? { max_price: { excl_vat: hi / 100, incl_vat: (hi * 2) / 100 } }
          : {}),
      });
    });
}

/** A session as runs of whole minutes, each drawing a constant Wh per minute at one current. */
export interface Run {
  minutes: number;
  whPerMinute: number;
  currentA: number;
}

export const runsArbitrary = fc.array(
  fc.record({
    minutes: fc.integer({ min: 1, max: 45 }),
    whPerMinute: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1500 })),
    currentA: fc.integer({ min: 6, max: 63 }),
  }),
  { minLength: 1, maxLength: 8 },
);

/** 2026, whole seconds (so times are whole seconds and step 1 s never rounds). */
export const startArbitrary = fc
  .integer({ min: Date.UTC(2026, 0, 1) / 1000, max: Date.UTC(2026, 11, 31) / 1000 })
  .map((s) => s * 1000);

/** Minutes the EVSE was reserved before the session (used), when there was a reservation. */
export const reservedArbitrary = fc.option(fc.integer({ min: 1, max: 90 }), { nil: null });

/**
 * Meter readings for runs: one at each run boundary, plus one at each interior minute where
 * `fine(run, minute)` says so. Readings on a run's straight line do not change the session.
 */
export function meterFromRuns(
  start: number,
  runs: readonly Run[],
  fine: (run: number, minute: number) => boolean = () => false,
  reservedMinutes: number | null = null,
): MeterSession {
  const readings: MeterSession["readings"][number][] = [
    { at: start, energy_wh: 0, current_a: runs[0]?.currentA ?? null },
  ];
  let t = start;
  let wh = 0;
  runs.forEach((run, i) => {
    for (let m = 1; m <= run.minutes; m++) {
      t += 60_000;
      wh += run.whPerMinute;
      if (m === run.minutes || fine(i, m)) {
        readings.push({ at: t, energy_wh: wh, current_a: run.currentA });
      }
    }
  });
  const reservation =
    reservedMinutes === null
      ? null
      : { started_at: start - reservedMinutes * 60_000, expired: false };
  return { method: "meter_values", started_at: start, stopped_at: t, readings, reservation };
}

/**
 * The same runs as OCPI charging periods, grouping whole minutes of one run as `cut` says; a
 * reservation is leading RESERVATION_TIME periods, grouped as `cut(-1, minute)` says.
 */
export function periodsFromRuns(
  start: number,
  runs: readonly Run[],
  cut: (run: number, minute: number) => boolean = () => false,
  reservedMinutes: number | null = null,
): ChargingPeriodsSession {
  const periods: ChargingPeriodsSession["charging_periods"][number][] = [];
  const reservedFrom = start - (reservedMinutes ?? 0) * 60_000;
  let open = 0;
  for (let m = 1; m <= (reservedMinutes ?? 0); m++) {
    if (m === reservedMinutes || cut(-1, m)) {
      periods.push({
        start_date_time: reservedFrom + open * 60_000,
        dimensions: [{ type: "RESERVATION_TIME", volume: (m - open) / 60 }],
      });
      open = m;
    }
  }
  let t = start;
  runs.forEach((run, i) => {
    let open = 0;
    for (let m = 1; m <= run.minutes; m++) {
      if (m === run.minutes || cut(i, m)) {
        const minutes = m - open;
        const wh = minutes * run.whPerMinute;
        const hours = minutes / 60;
        periods.push({
          start_date_time: t + open * 60_000,
          dimensions: [
            { type: "ENERGY", volume: wh / 1000 },
            { type: wh > 0 ? "TIME" : "PARKING_TIME", volume: hours },
            { type: "CURRENT", volume: run.currentA },
          ],
        });
        open = m;
      }
    }
    t += run.minutes * 60_000;
  });
  return {
    method: "charging_periods",
    start_date_time: reservedFrom,
    end_date_time: t,
    charging_periods: periods,
  };
}
