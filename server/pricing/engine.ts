/**
 * priceSession: a tariff snapshot and a session in, costs per dimension out, in integer US cents.
 *
 * OCPI 2.2.1 semantics with the service's rules (spec section 9); every choice OCPI leaves open is
 * written down in ./README.md. Arithmetic is exact (./rational.ts) until `toMinor`, the one place
 * that rounds: each dimension's exact cost, excl. and incl. VAT, goes to whole cents half up.
 */
import { PricingError } from "./errors";
import { type Period, buildPeriods } from "./periods";
import {
  type Rational,
  ZERO,
  add,
  ceilToMultiple,
  div,
  floor,
  isPositive,
  mul,
  rat,
  roundHalfUp,
  sub,
  toNumber,
} from "./rational";
import { type PeriodContext, restrictionsHold, timeBoundaries } from "./restrictions";
import { type PriceResult, describeActivity, describePeriod } from "./price-result";
import { type SessionActivity, type SessionInput, deriveActivity } from "./session";
import { type CompiledComponent, type CompiledTariff, compileTariff } from "./tariff-model";
import type { TariffSnapshot } from "./tariff-schema";
import { DAY_MS, zoneClock } from "./time-zone";

export interface PriceOptions {
  /** Include per-period detail in the result (default true). */
  periods?: boolean;
}

/** The one rounding place: an exact amount in cents to whole cents, exact halves up. */
export function toMinor(amount: Rational): number {
  return Number(roundHalfUp(amount));
}

interface Accumulator {
  volume: Rational; // Wh or ms
  excl: Rational;
  incl: Rational;
  last: CompiledComponent | null;
  rounding: Rational;
}

const accumulator = (): Accumulator => ({
  volume: ZERO,
  excl: ZERO,
  incl: ZERO,
  last: null,
  rounding: ZERO,
});

/** Bills `volume` (Wh, ms or sessions) at a component; returns its exact cost excl. VAT. */
function bill(acc: Accumulator, c: CompiledComponent, volume: Rational): Rational {
  const excl = mul(c.unitPrice, volume);
  acc.volume = add(acc.volume, volume);
  acc.excl = add(acc.excl, excl);
  acc.incl = add(acc.incl, mul(excl, c.vatFactor));
  acc.last = c;
  return excl;
}

/** step_size: the billed total rounded up once, at the last applied component's step and price. */
function roundToStep(acc: Accumulator): void {
  const c = acc.last;
  if (!c) return;
  const extra = sub(ceilToMultiple(acc.volume, c.step), acc.volume);
  if (!isPositive(extra)) return;
  bill(acc, c, extra);
  acc.rounding = extra;
}

export interface PricedPeriod {
  readonly period: Period;
  readonly energy: CompiledComponent | null;
  readonly time: CompiledComponent | null;
  readonly parkingTime: CompiledComponent | null;
  readonly flat: CompiledComponent | null;
  readonly costExcl: Rational;
}

function pricePeriods(tariff: CompiledTariff, activity: SessionActivity) {
  const { localTime } = tariff.boundaries;
  const clock = zoneClock(localTime ? tariff.timeZone : "UTC", activity.start, activity.end);
  const instants = timeBoundaries(tariff, clock, activity.start, activity.end);
  const periods = buildPeriods(activity, instants, tariff.boundaries.energiesWh);
  const energy = accumulator();
  const time = accumulator();
  const parking = accumulator();
  const flat = accumulator();
  let lastTimeGroup: Accumulator | null = null;
  const priced: PricedPeriod[] = [];

  for (const period of periods) {
    const length = sub(period.end, period.start);
    const wantsEnergy = isPositive(period.energyWh);
    const wantsTime = period.kind === "charging" && isPositive(length);
    const wantsParking = period.kind === "idle" && isPositive(length);
    const wantsFlat = flat.last === null;
    const result = {
      period,
      energy: null,
      time: null,
      parkingTime: null,
      flat: null,
      costExcl: ZERO,
    };
    if (!wantsEnergy && !wantsTime && !wantsParking && !wantsFlat) {
      priced.push(result);
      continue;
    }
    const startMs = Number(floor(period.start));
    const wall = clock.wallAt(startMs);
    const day = Math.floor(wall / DAY_MS);
    const context: PeriodContext = {
      day,
      tod: wall - day * DAY_MS,
      elapsedMs: startMs - activity.start,
      energyWh: period.energyBeforeWh,
      powerW: period.powerW,
      currentA: period.currentA,
    };
    const verdicts: (boolean | undefined)[] = [];
    const find = (type: CompiledComponent["type"]): CompiledComponent | null => {
      for (const e of tariff.elements) {
        const c = e.components[type];
        if (!c) continue;
        const holds = (verdicts[e.index] ??= restrictionsHold(e.restrictions, context));
        if (holds) return c;
      }
      return null;
    };
    let costExcl = ZERO;
    const e = wantsEnergy ? find("ENERGY") : null;
    if (e) costExcl = add(costExcl, bill(energy, e, period.energyWh));
    const t = wantsTime ? find("TIME") : null;
    if (t) {
      costExcl = add(costExcl, bill(time, t, length));
      lastTimeGroup = time;
    }
    const p = wantsParking ? find("PARKING_TIME") : null;
    if (p) {
      costExcl = add(costExcl, bill(parking, p, length));
      lastTimeGroup = parking;
    }
    const f = wantsFlat ? find("FLAT") : null;
    if (f) costExcl = add(costExcl, bill(flat, f, rat(1n)));
    priced.push({ period, energy: e, time: t, parkingTime: p, flat: f, costExcl });
  }
  roundToStep(energy);
  // Charging and parking time are one group, rounded once: the part billed last (parking when
  // parking follows charging) is the one rounded.
  if (lastTimeGroup) roundToStep(lastTimeGroup);
  return { priced, energy, time, parking, flat };
}

const MS_PER_S = rat(1000n);

/** Volumes in the result's units: Wh, seconds, sessions. Display only; money stays exact. */
function dimension(acc: Accumulator, unit: "ms" | "as-is") {
  const scale = (v: Rational) => toNumber(unit === "ms" ? div(v, MS_PER_S) : v);
  return {
    volume: scale(acc.volume),
    step_rounding: scale(acc.rounding),
    excl_vat_minor: toMinor(acc.excl),
    incl_vat_minor: toMinor(acc.incl),
  };
}

function applyBounds(tariff: CompiledTariff, excl: number, incl: number) {
  let boundExcl = 0;
  let boundIncl = 0;
  let applied: "min_price" | "max_price" | null = null;
  const apply = (
    bound: { excl: bigint; incl?: bigint } | undefined,
    name: "min_price" | "max_price",
    outside: (value: number, limit: number) => boolean,
  ) => {
    if (!bound) return;
    const limitExcl = Number(bound.excl);
    const currentExcl = excl + boundExcl;
    const currentIncl = incl + boundIncl;
    let changed = false;
    let deltaExcl = 0;
    if (outside(currentExcl, limitExcl)) {
      deltaExcl = limitExcl - currentExcl;
      boundExcl += deltaExcl;
      changed = true;
    }
    if (bound.incl !== undefined) {
      const limitIncl = Number(bound.incl);
      if (outside(currentIncl, limitIncl)) {
        boundIncl += limitIncl - currentIncl;
        changed = true;
      }
    } else {
      boundIncl += deltaExcl; // a bound without incl_vat moves the incl. total by the same amount
    }
    if (changed) applied = name;
  };
  apply(tariff.minPrice, "min_price", (v, limit) => v < limit);
  apply(tariff.maxPrice, "max_price", (v, limit) => v > limit);
  return { applied, excl_vat_minor: boundExcl, incl_vat_minor: boundIncl };
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
  const { priced, energy, time, parking, flat } = pricePeriods(tariff, activity);
  const dimensions = {
    energy: dimension(energy, "as-is"),
    time: dimension(time, "ms"),
    parking_time: dimension(parking, "ms"),
    flat: dimension(flat, "as-is"),
  };
  const dims = Object.values(dimensions);
  const excl = dims.reduce((s, d) => s + d.excl_vat_minor, 0);
  const incl = dims.reduce((s, d) => s + d.incl_vat_minor, 0);
  const bound = applyBounds(tariff, excl, incl);
  return {
    billing_version: tariff.complex ? "elements-v1" : "energy-v1",
    currency: "USD",
    energy_wh: activity.energyWh,
    dimensions,
    price_bound: bound,
    total: {
      excl_vat_minor: excl + bound.excl_vat_minor,
      incl_vat_minor: incl + bound.incl_vat_minor,
    },
    activity: describeActivity(activity),
    periods: options.periods === false ? [] : priced.map(describePeriod),
  };
}

export function priceSession(
  tariff: TariffSnapshot,
  session: SessionInput,
  options: PriceOptions = {},
): PriceResult {
  return priceActivity(compileTariff(tariff), deriveActivity(session), options);
}
