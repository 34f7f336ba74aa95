/**
 * The two session inputs as contiguous raw intervals (integer ms, integer Wh) from the session's
 * start to its end, plus the reservation before it (./session.ts classifies the intervals).
 */
import { PricingError } from "./errors";
import { iso } from "./iso";
import type { PricingWarning } from "./price-result";
import { type Rational, exact, int, mul, rat, roundHalfUp } from "./rational";
import type {
  CdrDimensionType,
  ChargingPeriod,
  ChargingPeriodsSession,
  Instant,
  MeterSession,
  ReservationActivity,
  ReservationInput,
  Segment,
} from "./session";

export interface Raw {
  start: number;
  end: number;
  energyWh: number;
  currentA: Rational | null;
}

export interface Source {
  raws: Raw[];
  start: number;
  end: number;
  known: boolean;
  reservation: ReservationActivity | null;
  warnings: PricingWarning[];
}

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

export function invalid(message: string, field: string): never {
  throw new PricingError("session_invalid", message, { field });
}

function currentOf(value: number | null | undefined): Rational | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return Number.isSafeInteger(value) ? int(value) : exact(value);
}

const reserved = (start: number, end: number): Segment => ({
  start,
  end,
  kind: "reservation",
  energyWh: 0,
  currentA: null,
});

/** A used reservation ends by the session start; `ended_at` defaults to it. */
function usedReservation(r: ReservationInput, sessionStart: number): ReservationActivity {
  const start = instantMs(r.started_at, "reservation.started_at");
  const end =
    r.ended_at === undefined || r.ended_at === null
      ? sessionStart
      : instantMs(r.ended_at, "reservation.ended_at");
  if (end < start) invalid("the reservation ends before it starts", "reservation.ended_at");
  if (end > sessionStart) {
    invalid("a used reservation ends when the session starts, not after", "reservation.ended_at");
  }
  return { start, end, expired: false, segments: [reserved(start, end)] };
}

/** An expired reservation is the whole input: no session, so no readings. */
function expiredReservation(session: MeterSession, r: ReservationInput): Source {
  if (session.readings.length > 0 || session.started_at !== null) {
    invalid("an expired reservation has no charging session: send no meter values", "readings");
  }
  if (r.ended_at === undefined || r.ended_at === null) {
    invalid("an expired reservation needs ended_at (when it expired)", "reservation.ended_at");
  }
  const start = instantMs(r.started_at, "reservation.started_at");
  const end = instantMs(r.ended_at, "reservation.ended_at");
  if (end < start) invalid("the reservation ends before it starts", "reservation.ended_at");
  const reservation = { start, end, expired: true, segments: [reserved(start, end)] };
  return { raws: [], start: end, end, known: true, reservation, warnings: [] };
}

export function fromMeterValues(session: MeterSession): Source {
  if (session.reservation?.expired) return expiredReservation(session, session.reservation);
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
  const reservation = session.reservation ? usedReservation(session.reservation, start) : null;
  return { raws, start, end, known, reservation, warnings: [] };
}

function volume(period: ChargingPeriod, type: CdrDimensionType): Rational | null {
  const d = period.dimensions.find((x) => x.type === type);
  return d && Number.isFinite(d.volume) && d.volume >= 0 ? exact(d.volume) : null;
}

const HOUR_MS = rat(3_600_000n);
const hoursToMs = (hours: Rational) => Number(roundHalfUp(mul(hours, HOUR_MS)));

/** Whether a period reports any session activity (energy, charging or parking time). */
const hasSessionVolume = (p: ChargingPeriod) =>
  (["ENERGY", "TIME", "PARKING_TIME"] as const).some((t) => (volume(p, t)?.n ?? 0n) > 0n);

/**
 * OCPI reservation periods: a leading run of periods with RESERVATION_TIME, each reserved from its
 * start for that long (at most its length). Only the last may also report session activity, which
 * comes after its reserved part.
 */
function reservationPrefix(
  periods: readonly ChargingPeriod[],
  starts: readonly number[],
  end: number,
): { reservation: ReservationActivity; last: number } | null {
  const segments: Segment[] = [];
  periods.forEach((p, i) => {
    const hours = volume(p, "RESERVATION_TIME");
    if (!hours || hours.n === 0n) return;
    const field = `charging_periods.${i}.dimensions`;
    if (segments.length !== i) invalid("reservation time must come before the session", field);
    if (i > 0 && hasSessionVolume(periods[i - 1] as ChargingPeriod)) {
      invalid("reservation time must come before the session", field);
    }
    const from = starts[i] ?? end;
    const length = (starts[i + 1] ?? end) - from;
    segments.push(reserved(from, from + Math.min(length, hoursToMs(hours))));
  });
  const first = segments[0];
  const lastSegment = segments[segments.length - 1];
  if (!first || !lastSegment) return null;
  const expired = segments.length === periods.length && !periods.some(hasSessionVolume);
  return {
    reservation: { start: first.start, end: lastSegment.end, expired, segments },
    last: segments.length - 1,
  };
}

function earlyPeriod(field: string, from: number, declared: number): PricingWarning {
  const seconds = (declared - from) / 1000;
  return {
    code: "charging_period_before_start",
    message: `${field} (${iso(from)}) is ${seconds} s before start_date_time (${iso(declared)}); the period is priced as sent, from its own start.`,
    details: {
      field,
      period_start: iso(from),
      start_date_time: iso(declared),
      seconds_before: seconds,
    },
  };
}

export function fromChargingPeriods(session: ChargingPeriodsSession): Source {
  const periods = session.charging_periods;
  const end = instantMs(session.end_date_time, "end_date_time");
  const starts = periods.map((p, i) =>
    instantMs(p.start_date_time, `charging_periods.${i}.start_date_time`),
  );
  const known = session.start_date_time !== null;
  const declared =
    session.start_date_time !== null
      ? instantMs(session.start_date_time, "start_date_time")
      : (starts[0] ?? end);
  if (end < declared) invalid("end_date_time is before start_date_time", "end_date_time");
  // Partners' CDRs sometimes carry a first period stamped a little before the session's start:
  // it is priced as sent, from its own start, with a warning rather than refused.
  const first = Math.min(declared, starts[0] ?? declared);
  const warnings: PricingWarning[] = [];
  starts.forEach((from, i) => {
    const field = `charging_periods.${i}.start_date_time`;
    if (from < (starts[i - 1] ?? first) || from > end) {
      invalid("periods must start in order, within the session", field);
    }
    if (from < declared) warnings.push(earlyPeriod(field, from, declared));
  });
  const prefix = reservationPrefix(periods, starts, end);
  const reservation = prefix?.reservation ?? null;
  if (reservation?.expired) {
    return {
      raws: [],
      start: reservation.end,
      end: reservation.end,
      known,
      reservation,
      warnings,
    };
  }
  // A reservation ends when the session starts.
  const start = reservation ? reservation.end : first;
  const raws: Raw[] = [];
  let cursor = start;
  periods.forEach((period, i) => {
    if (prefix && i < prefix.last) return; // reserved, and nothing else happened in it
    const from = i === prefix?.last ? start : (starts[i] ?? end);
    const to = starts[i + 1] ?? end;
    if (from > cursor) raws.push({ start: cursor, end: from, energyWh: 0, currentA: null });
    const length = to - from;
    const energyWh = Number(roundHalfUp(mul(volume(period, "ENERGY") ?? rat(0n), rat(1000n))));
    const time = volume(period, "TIME");
    const parking = volume(period, "PARKING_TIME");
    let chargingMs = time
      ? hoursToMs(time)
      : parking
        ? length - hoursToMs(parking)
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
  return { raws, start, end, known, reservation, warnings };
}
