/**
 * priceSession: a tariff snapshot and a session in, costs per dimension out, in integer US cents.
 *
 * OCPI 2.2.1 semantics with the service's rules (spec section 9); every choice OCPI leaves open is
 * written down in ./README.md. Arithmetic is exact (./rational.ts) until ./rounding.ts, the one
 * place that rounds: each total the customer pays (excl. and incl. VAT) is rounded once and its
 * cents are allocated back to the dimensions.
 */
import {
  type Accumulator,
  type Accumulators,
  type ExactCost,
  accumulator,
  boundedTotals,
  bill,
  dimensionLines,
  exactCost,
  roundToStep,
} from "./billing";
import { PricingError } from "./errors";
import { iso } from "./iso";
import { type Period, buildPeriods } from "./periods";
import {
  type PricedDimension,
  type PricedPeriod,
  type PriceResult,
  PRICED_DIMENSIONS,
  describeActivity,
  describePeriod,
} from "./price-result";
import { ONE, floor, isPositive, sub } from "./rational";
import { type PeriodContext, restrictionsHold, timeBoundaries } from "./restrictions";
import {
  type ReservationActivity,
  type SessionActivity,
  type SessionInput,
  deriveActivity,
} from "./session";
import {
  type CompiledComponent,
  type CompiledElement,
  type CompiledTariff,
  compileTariff,
} from "./tariff-model";
import type { DimensionType, TariffSnapshot } from "./tariff-schema";
import { DAY_MS, type ZoneClock, zoneClock } from "./time-zone";

export interface PriceOptions {
  /** Include per-period detail in the result (default true). */
  periods?: boolean;
}

/**
 * The first element (in list order) that has a component of a type and whose restrictions hold at
 * the current period's start; each element's verdict is judged once per period.
 */
class Matcher {
  private readonly byType: Readonly<Record<DimensionType, readonly CompiledElement[]>>;
  /** Per element index: the period (generation) its verdict was judged for, and the verdict. */
  private readonly judged: Uint32Array;
  private readonly verdicts: Uint8Array;
  private generation = 0;
  private context: PeriodContext | null = null;

  constructor(elements: readonly CompiledElement[]) {
    const having = (type: DimensionType) => elements.filter((e) => e.components[type]);
    this.byType = {
      ENERGY: having("ENERGY"),
      TIME: having("TIME"),
      PARKING_TIME: having("PARKING_TIME"),
      FLAT: having("FLAT"),
    };
    const size = Math.max(0, ...elements.map((e) => e.index + 1));
    this.judged = new Uint32Array(size);
    this.verdicts = new Uint8Array(size);
  }

  at(context: PeriodContext): void {
    this.context = context;
    this.generation += 1;
  }

  find(type: DimensionType): CompiledComponent | null {
    const context = this.context;
    if (!context) return null;
    for (const e of this.byType[type]) {
      let holds: boolean;
      if (this.judged[e.index] === this.generation) {
        holds = this.verdicts[e.index] === 1;
      } else {
        holds = restrictionsHold(e.restrictions, context);
        this.judged[e.index] = this.generation;
        this.verdicts[e.index] = holds ? 1 : 0;
      }
      if (holds) return e.components[type] ?? null;
    }
    return null;
  }
}

function contextAt(clock: ZoneClock, period: Period, since: number): PeriodContext {
  const startMs = Number(floor(period.start));
  const wall = clock.wallAt(startMs);
  const day = Math.floor(wall / DAY_MS);
  return {
    day,
    tod: wall - day * DAY_MS,
    elapsedMs: startMs - since,
    energyWh: period.energyBeforeWh,
    powerW: period.powerW,
    currentA: period.currentA,
  };
}

const unpriced = (period: Period): PricedPeriod => ({
  period,
  energy: null,
  time: null,
  parkingTime: null,
  flat: null,
  reservation: null,
  reservationFee: null,
});

/**
 * A reservation's periods, priced only by reservation elements: TIME over the reserved time (its
 * own step-size group), FLAT once as the reservation fee. Durations count from the reservation's
 * start.
 */
function priceReservation(
  tariff: CompiledTariff,
  reservation: ReservationActivity,
  clock: ZoneClock,
  acc: Accumulators,
  priced: PricedPeriod[],
): void {
  const { used, expired } = tariff.reservationElements;
  const match = new Matcher(reservation.expired ? expired : used);
  const instants = timeBoundaries(tariff, clock, reservation.start, reservation.end);
  const periods = buildPeriods(reservation.segments, instants, [], tariff.boundaries.power);
  for (const period of periods) {
    const length = sub(period.end, period.start);
    const wantsTime = isPositive(length);
    const wantsFee = acc.reservation_fee.last === null;
    if (!wantsTime && !wantsFee) {
      priced.push(unpriced(period));
      continue;
    }
    match.at(contextAt(clock, period, reservation.start));
    const t = wantsTime ? match.find("TIME") : null;
    if (t) bill(acc.reservation, t, length);
    const f = wantsFee ? match.find("FLAT") : null;
    if (f) bill(acc.reservation_fee, f, ONE);
    priced.push({
      period,
      energy: null,
      time: null,
      parkingTime: null,
      flat: null,
      reservation: t,
      reservationFee: f,
    });
  }
  roundToStep(acc.reservation);
}

function pricePeriods(tariff: CompiledTariff, activity: SessionActivity) {
  const { localTime } = tariff.boundaries;
  const reservation = activity.reservation;
  const first = Math.min(activity.start, reservation?.start ?? activity.start);
  const clock = zoneClock(localTime ? tariff.timeZone : "UTC", first, activity.end);
  const acc = Object.fromEntries(PRICED_DIMENSIONS.map((d) => [d, accumulator()])) as Accumulators;
  const priced: PricedPeriod[] = [];
  if (reservation) priceReservation(tariff, reservation, clock, acc, priced);

  const instants = timeBoundaries(tariff, clock, activity.start, activity.end);
  const { energiesWh, power } = tariff.boundaries;
  const periods = buildPeriods(activity.segments, instants, energiesWh, power);
  const match = new Matcher(tariff.sessionElements);
  const flatDue = !(activity.noEnergy && tariff.waiveFlatWithoutEnergy);
  let lastTimeGroup: Accumulator | null = null;
  for (const period of periods) {
    const length = sub(period.end, period.start);
    const wantsEnergy = isPositive(period.energyWh);
    const wantsTime = period.kind === "charging" && isPositive(length);
    const wantsParking = period.kind === "idle" && isPositive(length);
    const wantsFlat = flatDue && acc.flat.last === null;
    if (!wantsEnergy && !wantsTime && !wantsParking && !wantsFlat) {
      priced.push(unpriced(period));
      continue;
    }
    match.at(contextAt(clock, period, activity.start));
    const e = wantsEnergy ? match.find("ENERGY") : null;
    if (e) bill(acc.energy, e, period.energyWh);
    const t = wantsTime ? match.find("TIME") : null;
    if (t) {
      bill(acc.time, t, length);
      lastTimeGroup = acc.time;
    }
    const p = wantsParking ? match.find("PARKING_TIME") : null;
    if (p) {
      bill(acc.parking_time, p, length);
      lastTimeGroup = acc.parking_time;
    }
    const f = wantsFlat ? match.find("FLAT") : null;
    if (f) bill(acc.flat, f, ONE);
    priced.push({
      period,
      energy: e,
      time: t,
      parkingTime: p,
      flat: f,
      reservation: null,
      reservationFee: null,
    });
  }
  roundToStep(acc.energy);
  // Charging and parking time are one group, rounded once: the part billed last (parking when
  // parking follows charging) is the one rounded.
  if (lastTimeGroup) roundToStep(lastTimeGroup);
  return { priced, acc };
}

/** Exact cost of every dimension, before any rounding (what the rounding property is judged by). */
export function exactCosts(tariff: CompiledTariff, activity: SessionActivity) {
  const { acc } = pricePeriods(tariff, activity);
  return Object.fromEntries(PRICED_DIMENSIONS.map((d) => [d, exactCost(acc[d])])) as Record<
    PricedDimension,
    ExactCost
  >;
}

/** OCPI start_date_time/end_date_time: the tariff prices sessions starting in [from, until). */
function checkValidity(tariff: CompiledTariff, startMs: number): void {
  const v = tariff.validity;
  if (!v) return;
  const before = v.from !== undefined && startMs < v.from;
  const after = v.until !== undefined && startMs >= v.until;
  if (!before && !after) return;
  const orNull = (ms: number | undefined) => (ms === undefined ? null : iso(ms));
  const window = [
    v.from !== undefined ? `from ${iso(v.from)}` : null,
    v.until !== undefined ? `until ${iso(v.until)}` : null,
  ].filter(Boolean);
  throw new PricingError(
    "tariff_not_valid_at",
    `The tariff is valid ${window.join(" ")} (end exclusive); the session started at ${iso(startMs)}, ${before ? "before" : "after"} that.`,
    { valid_from: orNull(v.from), valid_until: orNull(v.until), session_started_at: iso(startMs) },
  );
}

/** Prices an already derived activity against a compiled tariff (used by quotes and tests). */
export function priceActivity(
  tariff: CompiledTariff,
  activity: SessionActivity,
  options: PriceOptions = {},
): PriceResult {
  if (!activity.startKnown && tariff.timeDependent) {
    throw new PricingError(
      "transaction_start_unknown",
      "The transaction has no start time and the tariff depends on time.",
    );
  }
  checkValidity(tariff, activity.reservation?.start ?? activity.start);
  const { priced, acc } = pricePeriods(tariff, activity);
  const { lines, exact, excl, incl } = dimensionLines(acc);
  // min_price is what a session costs at least: not for an expired reservation (no session), nor
  // for a no_energy session whose tariff waives its fees.
  const minimum =
    !activity.reservation?.expired && !(activity.noEnergy && tariff.waiveFlatWithoutEnergy);
  const total = boundedTotals(tariff, exact, { minimum });
  const bound = {
    excl_vat_minor: Number(total.excl) - excl,
    incl_vat_minor: Number(total.incl) - incl,
  };
  return {
    billing_version: tariff.complex ? "elements-v1" : "energy-v1",
    currency: "USD",
    energy_wh: activity.energyWh,
    dimensions: lines,
    price_bound: {
      applied: bound.excl_vat_minor || bound.incl_vat_minor ? total.applied : null,
      ...bound,
    },
    total: { excl_vat_minor: Number(total.excl), incl_vat_minor: Number(total.incl) },
    activity: describeActivity(activity),
    periods: options.periods === false ? [] : priced.map(describePeriod),
    warnings: [...activity.warnings],
  };
}

export function priceSession(
  tariff: TariffSnapshot,
  session: SessionInput,
  options: PriceOptions = {},
): PriceResult {
  return priceActivity(compileTariff(tariff), deriveActivity(session), options);
}
