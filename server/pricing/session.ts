/**
 * Session inputs and their activity: when the vehicle was charging, idle or waiting, and when the
 * EVSE was reserved for it.
 *
 * Two inputs: the charger's meter series (method `meter_values`) or OCPI 2.2.1 charging periods
 * (method `charging_periods`). Both become the same contiguous raw intervals (integer ms, integer
 * Wh, energy spread evenly over each interval's charging time; ./session-sources.ts), and the
 * service's rules (spec section 9) classify them, so one physical session prices the same whichever
 * way it arrives:
 * - an interval whose energy increases is charging; one whose energy does not is idle;
 * - idle before the first charging is waiting (charged as neither TIME nor PARKING_TIME);
 * - a run of idle shorter than 2 minutes after charging began counts as charging;
 * - a session drawing less than 1 Wh is all waiting (reason `no_energy`).
 * A reservation before the session (used) or instead of it (expired) is kept apart: only elements
 * restricted to reservations price it (README, decision 15).
 */
import type { PricingWarning } from "./price-result";
import { type Rational, int, mul, rat } from "./rational";
import { type Raw, fromChargingPeriods, fromMeterValues, invalid } from "./session-sources";

export { instantMs } from "./session-sources";

/** ISO-8601 string with a zone designator, epoch milliseconds, or a Date. */
export type Instant = string | number | Date;

export interface MeterReading {
  at: Instant;
  /** Energy register, integer Wh (meter resets are tolerated: a drop counts as no energy). */
  energy_wh: number;
  /** Accepted for completeness; pricing uses average power over charging time (section 9). */
  power_w?: number | null;
  current_a?: number | null;
}

/** A reservation of the EVSE for this driver, before the session or (expired) instead of one. */
export interface ReservationInput {
  started_at: Instant;
  /** Used: defaults to the session start (a reservation ends when charging starts). Expired: required. */
  ended_at?: Instant | null;
  /** True when it expired without a charging session: then the series has no readings. */
  expired: boolean;
}

export interface MeterSession {
  method: "meter_values";
  /** The charger's start; null when the core has none (see transaction_start_unknown). */
  started_at: Instant | null;
  /** The charger's stop; defaults to the last reading. */
  stopped_at?: Instant | null;
  readings: readonly MeterReading[];
  reservation?: ReservationInput | null;
}

export const CDR_DIMENSION_TYPES = [
  "CURRENT",
  "ENERGY",
  "ENERGY_EXPORT",
  "ENERGY_IMPORT",
  "MAX_CURRENT",
  "MIN_CURRENT",
  "MAX_POWER",
  "MIN_POWER",
  "PARKING_TIME",
  "POWER",
  "RESERVATION_TIME",
  "STATE_OF_CHARGE",
  "TIME",
] as const;
export type CdrDimensionType = (typeof CDR_DIMENSION_TYPES)[number];

export interface CdrDimension {
  type: CdrDimensionType;
  /** kWh for energy, hours for times, A for currents, kW for powers, percent for SoC. */
  volume: number;
}

export interface ChargingPeriod {
  start_date_time: Instant;
  dimensions: readonly CdrDimension[];
}

/**
 * OCPI CDR-style input. A reservation is OCPI's: leading periods with `RESERVATION_TIME`, and
 * `start_date_time` is then the reservation's start. It expired when the periods hold nothing but
 * reservation time (README, decision 15).
 */
export interface ChargingPeriodsSession {
  method: "charging_periods";
  start_date_time: Instant | null;
  end_date_time: Instant;
  charging_periods: readonly ChargingPeriod[];
}

export type SessionInput = MeterSession | ChargingPeriodsSession;

export type ActivityKind = "charging" | "idle" | "waiting" | "reservation";

/** One contiguous stretch of one activity, as integer ms and Wh. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly kind: ActivityKind;
  readonly energyWh: number;
  readonly currentA: Rational | null;
}

export interface ReservationActivity {
  readonly start: number;
  readonly end: number;
  readonly expired: boolean;
  /** Reserved stretches in time order (one per reservation period of an OCPI input). */
  readonly segments: readonly Segment[];
}

export interface SessionActivity {
  readonly method: SessionInput["method"];
  readonly startKnown: boolean;
  /** The session's start (the charger's); an expired reservation's end when there was no session. */
  readonly start: number;
  readonly end: number;
  readonly noEnergy: boolean;
  readonly energyWh: number;
  /** In time order, contiguous from start to end; one per meter interval or period part. */
  readonly segments: readonly Segment[];
  readonly reservation: ReservationActivity | null;
  /** Input accepted as partners send it but worth a look (e.g. a period before the start). */
  readonly warnings: readonly PricingWarning[];
}

export const IDLE_GRACE_MS = 120_000;
/** Longer than this is taken as a bad clock, not a session. */
export const MAX_SESSION_MS = 31 * 86_400_000;

const segment = (r: Raw, kind: ActivityKind, energyWh: number): Segment => ({
  start: r.start,
  end: r.end,
  kind,
  energyWh,
  currentA: r.currentA,
});

/** Applies the section 9 activity rules to contiguous raw intervals. */
function classify(raws: readonly Raw[]): {
  segments: Segment[];
  noEnergy: boolean;
  energyWh: number;
} {
  const energyWh = raws.reduce((s, r) => s + r.energyWh, 0);
  if (energyWh < 1) {
    const segments = raws.map((r) => segment(r, "waiting", 0));
    return { segments, noEnergy: true, energyWh: 0 };
  }
  const kinds: ActivityKind[] = raws.map((r) => (r.energyWh > 0 ? "charging" : "idle"));
  const firstCharging = kinds.indexOf("charging");
  for (let i = 0; i < firstCharging; i++) kinds[i] = "waiting";
  // Runs of idle after charging began: shorter than the grace period counts as charging.
  for (let i = firstCharging; i < raws.length;) {
    if (kinds[i] !== "idle") {
      i++;
      continue;
    }
    let j = i;
    while (j < raws.length && kinds[j] === "idle") j++;
    const runMs = (raws[j - 1]?.end ?? 0) - (raws[i]?.start ?? 0);
    if (runMs < IDLE_GRACE_MS) for (let k = i; k < j; k++) kinds[k] = "charging";
    i = j;
  }
  const segments = raws.map((r, i) => segment(r, kinds[i] ?? "idle", r.energyWh));
  return { segments, noEnergy: false, energyWh };
}

export function deriveActivity(session: SessionInput): SessionActivity {
  const source =
    session.method === "meter_values" ? fromMeterValues(session) : fromChargingPeriods(session);
  const first = Math.min(source.start, source.reservation?.start ?? source.start);
  if (source.end - first > MAX_SESSION_MS) {
    invalid("the session is longer than 31 days", "stopped_at");
  }
  const { segments, noEnergy, energyWh } = classify(source.raws);
  return {
    method: session.method,
    startKnown: source.known,
    start: source.start,
    end: source.end,
    noEnergy,
    energyWh,
    segments,
    reservation: source.reservation,
    warnings: source.warnings,
  };
}

/** Average power over charging time, in W; null when the interval has no duration. */
export function averagePowerW(segment: Segment): Rational | null {
  if (segment.kind !== "charging") return rat(0n);
  const ms = segment.end - segment.start;
  return ms > 0 ? mul(int(segment.energyWh), rat(3_600_000n, BigInt(ms))) : null;
}
