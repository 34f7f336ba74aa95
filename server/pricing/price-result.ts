/**
 * The priced result: what a final bill's `cost_breakdown` is built from. Money is integer US cents;
 * volumes and seconds are display numbers (the engine's exact values never leave it as floats that
 * feed back into a price).
 */
import type { Period } from "./periods";
import { iso } from "./iso";
import { type Rational, ONE, floor, sub, toFixed, toNumber } from "./rational";
import type { ActivityKind, SessionActivity, SessionInput } from "./session";
import type { CompiledComponent } from "./tariff-model";

export interface DimensionCost {
  /**
   * Billed volume including step rounding: Wh (energy), seconds (time, parking_time, reservation),
   * count (flat, reservation_fee).
   */
  volume: number;
  /** Volume added by step_size rounding, same unit. */
  step_rounding: number;
  /** Whole cents: this line's share of the rounded total (README, decision 6). */
  excl_vat_minor: number;
  incl_vat_minor: number;
  /** The exact cost before rounding, cents to 4 places (information only). */
  exact_excl_vat_minor: string;
  exact_incl_vat_minor: string;
}

/** The result's lines, in the order rounding ties are broken in (README, decision 6). */
export const PRICED_DIMENSIONS = [
  "energy",
  "time",
  "parking_time",
  "flat",
  "reservation",
  "reservation_fee",
] as const;
export type PricedDimension = (typeof PRICED_DIMENSIONS)[number];

/** Input accepted as partners send it, but worth a look; the price stands. */
export interface PricingWarning {
  code: "charging_period_before_start";
  message: string;
  details: Record<string, unknown>;
}

export interface ActivityInterval {
  kind: ActivityKind;
  start: string;
  end: string;
  seconds: number;
  energy_wh: number;
}

export interface ReservationBreakdown {
  /** `used`: followed by this session (RESERVATION elements); `expired`: no session followed. */
  status: "used" | "expired";
  started_at: string;
  ended_at: string;
  /** Reserved time (the reservation periods of an OCPI input may leave gaps). */
  seconds: number;
}

export interface ActivityBreakdown {
  method: SessionInput["method"];
  /**
   * `no_energy`: the session drew less than 1 Wh and is all waiting; `reservation_expired`: there
   * was no session, only a reservation that expired.
   */
  reason: "no_energy" | "reservation_expired" | null;
  start_known: boolean;
  started_at: string;
  ended_at: string;
  /** TIME is billed over charging, PARKING_TIME over idle; waiting is billed as neither. */
  charging_seconds: number;
  idle_seconds: number;
  waiting_seconds: number;
  reservation: ReservationBreakdown | null;
  /** The reservation's stretches, then the session's; adjacent stretches of one activity merged. */
  intervals: ActivityInterval[];
}

export interface PeriodDetail {
  start: string;
  end: string;
  activity: ActivityKind;
  seconds: number;
  energy_wh: number;
  energy_before_wh: number;
  /** Index (in `elements`) of the element that priced each dimension here; null when free. */
  elements: {
    energy: number | null;
    time: number | null;
    parking_time: number | null;
    flat: number | null;
    reservation: number | null;
    reservation_fee: number | null;
  };
  /** This period's cost excl. VAT before step rounding, in cents to 4 places (information only). */
  cost_excl_vat_minor: string;
}

export interface PriceResult {
  /** `energy-v1` for tariffs a 2026-10-14 client sees in full, `elements-v1` for complex ones. */
  billing_version: "energy-v1" | "elements-v1";
  currency: "USD";
  energy_wh: number;
  dimensions: Record<PricedDimension, DimensionCost>;
  /** What min_price/max_price added (positive) or removed (negative). */
  price_bound: {
    applied: "min_price" | "max_price" | null;
    excl_vat_minor: number;
    incl_vat_minor: number;
  };
  /**
   * Each column's exact sum of the dimensions, bounded by min_price/max_price, rounded once (half
   * up); equals the dimensions' lines plus price_bound.
   */
  total: { excl_vat_minor: number; incl_vat_minor: number };
  activity: ActivityBreakdown;
  /** The reservation's periods, then the session's. */
  periods: PeriodDetail[];
  /** Always present; empty when the input needed no comment. */
  warnings: PricingWarning[];
}

/** Consecutive periods share a boundary: the last instant formatted is kept. */
let lastMs = NaN;
let lastIso = "";
function isoOf(ms: Rational): string {
  const at = Number(floor(ms));
  if (at !== lastMs) {
    lastMs = at;
    lastIso = iso(at);
  }
  return lastIso;
}

export function describeActivity(activity: SessionActivity): ActivityBreakdown {
  const intervals: ActivityInterval[] = [];
  const totals: Record<ActivityKind, number> = { charging: 0, idle: 0, waiting: 0, reservation: 0 };
  let open: { kind: ActivityKind; start: number; end: number; wh: number } | null = null;
  const close = () => {
    if (!open) return;
    const ms = open.end - open.start;
    intervals.push({
      kind: open.kind,
      start: iso(open.start),
      end: iso(open.end),
      seconds: ms / 1000,
      energy_wh: open.wh,
    });
    totals[open.kind] += ms;
  };
  const reservation = activity.reservation;
  for (const s of [...(reservation?.segments ?? []), ...activity.segments]) {
    if (open && open.kind === s.kind && open.end === s.start) {
      open.end = s.end;
      open.wh += s.energyWh;
    } else {
      close();
      open = { kind: s.kind, start: s.start, end: s.end, wh: s.energyWh };
    }
  }
  close();
  return {
    method: activity.method,
    reason: reservation?.expired ? "reservation_expired" : activity.noEnergy ? "no_energy" : null,
    start_known: activity.startKnown,
    started_at: iso(activity.start),
    ended_at: iso(activity.end),
    charging_seconds: totals.charging / 1000,
    idle_seconds: totals.idle / 1000,
    waiting_seconds: totals.waiting / 1000,
    reservation: reservation && {
      status: reservation.expired ? "expired" : "used",
      started_at: iso(reservation.start),
      ended_at: iso(reservation.end),
      seconds: totals.reservation / 1000,
    },
    intervals,
  };
}

/** A pricing period and the component that priced each dimension in it (null: free). */
export interface PricedPeriod {
  readonly period: Period;
  readonly energy: CompiledComponent | null;
  readonly time: CompiledComponent | null;
  readonly parkingTime: CompiledComponent | null;
  readonly flat: CompiledComponent | null;
  readonly reservation: CompiledComponent | null;
  readonly reservationFee: CompiledComponent | null;
}

/**
 * A period's cost excl. VAT before step rounding (information only), as a fraction not reduced to
 * lowest terms: it only feeds `toFixed`, and skipping the reductions matters over many periods.
 */
function periodCostExcl(p: PricedPeriod): Rational {
  const { period } = p;
  const length = sub(period.end, period.start);
  let n = 0n;
  let d = 1n;
  const plus = (price: Rational, volume: Rational) => {
    n = n * price.d * volume.d + price.n * volume.n * d;
    d = d * price.d * volume.d;
  };
  if (p.energy) plus(p.energy.unitPrice, period.energyWh);
  if (p.time) plus(p.time.unitPrice, length);
  if (p.parkingTime) plus(p.parkingTime.unitPrice, length);
  if (p.flat) plus(p.flat.unitPrice, ONE);
  if (p.reservation) plus(p.reservation.unitPrice, length);
  if (p.reservationFee) plus(p.reservationFee.unitPrice, ONE);
  return { n, d };
}

export function describePeriod(p: PricedPeriod): PeriodDetail {
  const { period } = p;
  return {
    start: isoOf(period.start),
    end: isoOf(period.end),
    activity: period.kind,
    seconds: toNumber(sub(period.end, period.start)) / 1000,
    energy_wh: toNumber(period.energyWh),
    energy_before_wh: toNumber(period.energyBeforeWh),
    elements: {
      energy: p.energy?.element ?? null,
      time: p.time?.element ?? null,
      parking_time: p.parkingTime?.element ?? null,
      flat: p.flat?.element ?? null,
      reservation: p.reservation?.element ?? null,
      reservation_fee: p.reservationFee?.element ?? null,
    },
    cost_excl_vat_minor: toFixed(periodCostExcl(p), 4),
  };
}
