/**
 * Session inputs and their activity: when the vehicle was charging, idle or waiting.
 *
 * Two inputs: the charger's meter series (method `meter_values`) or OCPI 2.2.1 charging periods
 * (method `charging_periods`). Both become the same contiguous raw intervals (integer ms, integer
 * Wh, energy spread evenly over each interval's charging time), and the service's rules (spec
 * section 9) classify them, so one physical session prices the same whichever way it arrives:
 * - an interval whose energy increases is charging; one whose energy does not is idle;
 * - idle before the first charging is waiting (charged as neither TIME nor PARKING_TIME);
 * - a run of idle shorter than 2 minutes after charging began counts as charging;
 * - a session drawing less than 1 Wh is all waiting (reason `no_energy`).
 */
import { PricingError } from "./errors";
import { type Rational, exact, int, mul, rat, roundHalfUp } from "./rational";

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

export interface MeterSession {
  method: "meter_values";
  /** The charger's start; null when the core has none (see transaction_start_unknown). */
  started_at: Instant | null;
  /** The charger's stop; defaults to the last reading. */
  stopped_at?: Instant | null;
  readings: readonly MeterReading[];
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

export interface ChargingPeriodsSession {
  method: "charging_periods";
  start_date_time: Instant | null;
  end_date_time: Instant;
  charging_periods: readonly ChargingPeriod[];
}

export type SessionInput = MeterSession | ChargingPeriodsSession;

export type ActivityKind = "charging" | "idle" | "waiting";

/** One contiguous stretch of one activity, as integer ms and Wh. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly kind: ActivityKind;
  readonly energyWh: number;
  readonly currentA: Rational | null;
}

export interface SessionActivity {
  readonly method: SessionInput["method"];
  readonly startKnown: boolean;
  readonly start: number;
  readonly end: number;
  readonly noEnergy: boolean;
  readonly energyWh: number;
  /** In time order, contiguous from start to end; one per meter interval or period part. */
  readonly segments: readonly Segment[];
}

export const IDLE_GRACE_MS = 120_000;
/** Longer than this is taken as a bad clock, not a session. */
export const MAX_SESSION_MS = 31 * 86_400_000;

const ZONED_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

export function instantMs(value: Instant, field: string): number {
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "number") ms = value;
  else ms = ZONED_ISO.test(value) ? Date.parse(value) : NaN;
  if (!Number.isSafeInteger(ms)) {
    throw new PricingError("session_invalid", `${field} is not a valid instant`, { field });
  }
  return ms;
}

function invalid(message: string, field: string): never {
  throw new PricingError("session_invalid", message, { field });
}

function currentOf(value: number | null | undefined): Rational | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : exact(value);
}

interface Raw {
  start: number;
  end: number;
  energyWh: number;
  currentA: Rational | null;
}

function fromMeterValues(session: MeterSession): {
  raws: Raw[];
  start: number;
  end: number;
  known: boolean;
} {
  const readings = session.readings
    .map((r, i) => {
      if (!Number.isSafeInteger(r.energy_wh) || r.energy_wh < 0) {
        invalid("energy_wh must be a non-negative integer", `readings.${i}.energy_wh`);
      }
      return {
        at: instantMs(r.at, `readings.${i}.at`),
        wh: r.energy_wh,
        current: currentOf(r.current_a),
      };
    })
    .sort((a, b) => a.at - b.at);
  const first = readings[0];
  const last = readings[readings.length - 1];
  const known = session.started_at !== null;
  const start =
    session.started_at !== null ? instantMs(session.started_at, "started_at") : (first?.at ?? 0);
  const stopped = session.stopped_at ?? null;
  const end =
    stopped !== null ? instantMs(stopped, "stopped_at") : Math.max(start, last?.at ?? start);
  if (end < start) invalid("stopped_at is before started_at", "stopped_at");
  const clamp = (t: number) => Math.min(end, Math.max(start, t));
  const raws: Raw[] = [];
  let cursor = start;
  let previous: (typeof readings)[number] | undefined;
  for (const r of readings) {
    const at = clamp(r.at);
    const energyWh = previous ? Math.max(0, r.wh - previous.wh) : 0; // nothing known before the first reading
    const currentA = r.current ?? previous?.current ?? null;
    if (at > cursor || energyWh > 0) raws.push({ start: cursor, end: at, energyWh, currentA });
    cursor = at;
    previous = r;
  }
  if (end > cursor) raws.push({ start: cursor, end, energyWh: 0, currentA: null });
  return { raws, start, end, known };
}

function volume(period: ChargingPeriod, type: CdrDimensionType): Rational | null {
  const d = period.dimensions.find((x) => x.type === type);
  return d && Number.isFinite(d.volume) && d.volume >= 0 ? exact(d.volume) : null;
}

const HOUR_MS = rat(3_600_000n);

function fromChargingPeriods(session: ChargingPeriodsSession): {
  raws: Raw[];
  start: number;
  end: number;
  known: boolean;
} {
  const periods = session.charging_periods;
  const end = instantMs(session.end_date_time, "end_date_time");
  const starts = periods.map((p, i) =>
    instantMs(p.start_date_time, `charging_periods.${i}.start_date_time`),
  );
  const known = session.start_date_time !== null;
  const start =
    session.start_date_time !== null
      ? instantMs(session.start_date_time, "start_date_time")
      : (starts[0] ?? end);
  if (end < start) invalid("end_date_time is before start_date_time", "end_date_time");
  const raws: Raw[] = [];
  let cursor = start;
  periods.forEach((period, i) => {
    const from = starts[i] ?? end;
    const to = starts[i + 1] ?? end;
    const field = `charging_periods.${i}.start_date_time`;
    if (from < cursor) invalid("periods must start in order, within the session", field);
    if (to < from || from > end) invalid("periods must start in order, within the session", field);
    if (from > cursor) raws.push({ start: cursor, end: from, energyWh: 0, currentA: null });
    const length = to - from;
    const energyWh = Number(roundHalfUp(mul(volume(period, "ENERGY") ?? rat(0n), rat(1000n))));
    const time = volume(period, "TIME");
    const parking = volume(period, "PARKING_TIME");
    const toMs = (hours: Rational) => Number(roundHalfUp(mul(hours, HOUR_MS)));
    let chargingMs = time
      ? toMs(time)
      : parking
        ? length - toMs(parking)
        : energyWh > 0
          ? length
          : 0;
    chargingMs = Math.min(length, Math.max(0, chargingMs));
    const currentA =
      volume(period, "CURRENT") ?? volume(period, "MAX_CURRENT") ?? volume(period, "MIN_CURRENT");
    if (chargingMs > 0 || energyWh > 0) {
      raws.push({ start: from, end: from + chargingMs, energyWh, currentA });
    }
    if (length > chargingMs)
      raws.push({ start: from + chargingMs, end: to, energyWh: 0, currentA });
    cursor = to;
  });
  if (end > cursor) raws.push({ start: cursor, end, energyWh: 0, currentA: null });
  return { raws, start, end, known };
}

/** Applies the section 9 activity rules to contiguous raw intervals. */
function classify(raws: readonly Raw[]): {
  segments: Segment[];
  noEnergy: boolean;
  energyWh: number;
} {
  const energyWh = raws.reduce((s, r) => s + r.energyWh, 0);
  if (energyWh < 1) {
    const segments = raws.map((r) => ({ ...r, energyWh: 0, kind: "waiting" as const }));
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
  const segments = raws.map((r, i) => ({ ...r, kind: kinds[i] ?? "idle" }));
  return { segments, noEnergy: false, energyWh };
}

export function deriveActivity(session: SessionInput): SessionActivity {
  const source =
    session.method === "meter_values" ? fromMeterValues(session) : fromChargingPeriods(session);
  if (source.end - source.start > MAX_SESSION_MS) {
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
  };
}

/** Average power over charging time, in W; null when the interval has no duration. */
export function averagePowerW(segment: Segment): Rational | null {
  if (segment.kind !== "charging") return rat(0n);
  const ms = segment.end - segment.start;
  return ms > 0 ? mul(int(segment.energyWh), rat(3_600_000n, BigInt(ms))) : null;
}
