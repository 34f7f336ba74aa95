/**
 * OCPI 2.2.1 TariffRestrictions, judged at the start of each period (the engine first splits
 * periods wherever a restriction can change state, so a period never straddles a change).
 *
 * Ranges are [min, max): every `min_*` inclusive, every `max_*` exclusive, so adjacent elements
 * (max_kwh 10 / min_kwh 10) partition a quantity without overlap or gap. A restriction on a
 * quantity the session did not report (current, or power over a zero-length interval) does not hold.
 */
import { type Rational, ge, lt } from "./rational";
import type { CompiledRestrictions, CompiledTariff } from "./tariff-model";
import { DAY_MS, type ZoneClock, weekdayOf } from "./time-zone";

export interface PeriodContext {
  /** Local day number and ms after local midnight (wall clock) at the period start. */
  readonly day: number;
  readonly tod: number;
  /** Since the session start (waiting and parking included), floored to ms. */
  readonly elapsedMs: number;
  /** Energy drawn before the period start. */
  readonly energyWh: Rational;
  /** Average power over the period's charging time; 0 when not charging. */
  readonly powerW: Rational | null;
  readonly currentA: Rational | null;
}

function inTimeWindow(r: CompiledRestrictions, tod: number): boolean {
  const { startTod, endTod } = r;
  if (startTod !== undefined && endTod !== undefined) {
    return r.wraps ? tod >= startTod || tod < endTod : tod >= startTod && tod < endTod;
  }
  if (startTod !== undefined) return tod >= startTod; // until midnight
  if (endTod !== undefined) return tod < endTod; // from midnight
  return true;
}

/**
 * A window that wraps midnight belongs to the day it opens: with FRIDAY 22:00-06:00, Friday 23:00
 * and Saturday 01:00 match, Friday 01:00 does not.
 */
function weekdayFor(r: CompiledRestrictions, c: PeriodContext): number {
  const afterMidnight = r.wraps && r.endTod !== undefined && c.tod < r.endTod;
  return weekdayOf(afterMidnight ? c.day - 1 : c.day);
}

function inRange(value: Rational | null, lo: Rational | undefined, hi: Rational | undefined) {
  if (lo === undefined && hi === undefined) return true;
  if (value === null) return false;
  return (lo === undefined || ge(value, lo)) && (hi === undefined || lt(value, hi));
}

export function restrictionsHold(r: CompiledRestrictions | null, c: PeriodContext): boolean {
  if (!r) return true;
  // `reservation` is not judged here: it decides which periods an element may price at all
  // (CompiledTariff.sessionElements, reservationElements).
  if (!inTimeWindow(r, c.tod)) return false;
  if (r.startDay !== undefined && c.day < r.startDay) return false;
  if (r.endDay !== undefined && c.day >= r.endDay) return false;
  if (r.days && !r.days.has(weekdayFor(r, c))) return false;
  if (r.minDurationMs !== undefined && c.elapsedMs < r.minDurationMs) return false;
  if (r.maxDurationMs !== undefined && c.elapsedMs >= r.maxDurationMs) return false;
  if (!inRange(c.energyWh, r.minWh, r.maxWh)) return false;
  if (!inRange(c.powerW, r.minPowerW, r.maxPowerW)) return false;
  return inRange(c.currentA, r.minCurrentA, r.maxCurrentA);
}

/**
 * Instants strictly inside (start, end) where a clock or duration restriction can change state:
 * each start_time/end_time and local midnight on every local day the session touches (both
 * instants when a fall-back repeats the wall time), the zone's offset changes, and the session
 * start plus each min_duration/max_duration. Sorted, without repeats.
 */
export function timeBoundaries(
  tariff: CompiledTariff,
  clock: ZoneClock,
  start: number,
  end: number,
): number[] {
  const found = new Set<number>();
  const keep = (t: number) => {
    if (t > start && t < end) found.add(t);
  };
  const b = tariff.boundaries;
  if (b.localTime) {
    const firstDay = Math.floor(clock.wallAt(start) / DAY_MS) - 1;
    const lastDay = Math.floor(clock.wallAt(end) / DAY_MS) + 1;
    for (let day = firstDay; day <= lastDay; day++) {
      for (const tod of b.timesOfDay) clock.instantsOfWall(day * DAY_MS + tod).forEach(keep);
    }
    clock.transitions.forEach(keep);
  }
  for (const ms of b.durationsMs) keep(start + ms);
  return [...found].sort((x, y) => x - y);
}
