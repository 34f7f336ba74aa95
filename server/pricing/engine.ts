/**
 * priceSession: a tariff snapshot and a session in, costs per dimension out, in integer US cents.
 *
 * OCPI 2.2.1 semantics with the service's rules (spec section 9); every choice OCPI leaves open is
 * written down in ./README.md. Arithmetic is exact (./rational.ts) until ./rounding.ts, the one
 * place that rounds: each total the customer pays (excl. and incl. VAT) is rounded once and its
 * cents are allocated back to the dimensions.
 */
import { PricingError } from "./errors";
import { buildPeriods } from "./periods";
import {
  type Rational,
  ONE,
  ZERO,
  add,
  ceilToMultiple,
  div,
  floor,
  isPositive,
  mul,
  sub,
  toFixed,
  toNumber,
} from "./rational";
import { type PeriodContext, restrictionsHold, timeBoundaries } from "./restrictions";
import {
  type DimensionCost,
  type PriceResult,
  type PricedDimension,
  type PricedPeriod,
  PRICED_DIMENSIONS,
  describeActivity,
  describePeriod,
} from "./price-result";
import { allocateCents } from "./rounding";
import { type SessionActivity, type SessionInput, deriveActivity } from "./session";
import { type CompiledComponent, type CompiledTariff, compileTariff } from "./tariff-model";
import type { TariffSnapshot } from "./tariff-schema";
import { DAY_MS, zoneClock } from "./time-zone";

export interface PriceOptions {
  /** Include per-period detail in the result (default true). */
  periods?: boolean;
}

/**
 * What one dimension billed: volume per component (so money is multiplied out once per component,
 * not once per period), the last component that applied and what step rounding added.
 */
interface Accumulator {
  readonly volumes: Map<CompiledComponent, Rational>; // Wh, ms or sessions
  volume: Rational;
  last: CompiledComponent | null;
  rounding: Rational;
}

const accumulator = (): Accumulator => ({
  volumes: new Map(),
  volume: ZERO,
  last: null,
  rounding: ZERO,
});

function bill(acc: Accumulator, c: CompiledComponent, volume: Rational): void {
  acc.volume = add(acc.volume, volume);
  acc.volumes.set(c, add(acc.volumes.get(c) ?? ZERO, volume));
  acc.last = c;
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

/** A dimension's exact cost in cents, excl. and incl. VAT (VAT per component). */
export interface ExactCost {
  readonly excl: Rational;
  readonly incl: Rational;
}

function exactCost(acc: Accumulator): ExactCost {
  let excl = ZERO;
  let incl = ZERO;
  for (const [c, volume] of acc.volumes) {
    const cost = mul(c.unitPrice, volume);
    excl = add(excl, cost);
    incl = add(incl, mul(cost, c.vatFactor));
  }
  return { excl, incl };
}

type Accumulators = Record<PricedDimension, Accumulator>;

function pricePeriods(tariff: CompiledTariff, activity: SessionActivity) {
  const { localTime } = tariff.boundaries;
  const clock = zoneClock(localTime ? tariff.timeZone : "UTC", activity.start, activity.end);
  const instants = timeBoundaries(tariff, clock, activity.start, activity.end);
  const periods = buildPeriods(activity, instants, tariff.boundaries.energiesWh);
  const acc: Accumulators = {
    energy: accumulator(),
    time: accumulator(),
    parking_time: accumulator(),
    flat: accumulator(),
  };
  let lastTimeGroup: Accumulator | null = null;
  const priced: PricedPeriod[] = [];
  const verdicts: (boolean | undefined)[] = [];
  let context: PeriodContext;
  const find = (type: CompiledComponent["type"]): CompiledComponent | null => {
    for (const e of tariff.elements) {
      const c = e.components[type];
      if (!c) continue;
      const holds = (verdicts[e.index] ??= restrictionsHold(e.restrictions, context));
      if (holds) return c;
    }
    return null;
  };

  for (const period of periods) {
    const length = sub(period.end, period.start);
    const wantsEnergy = isPositive(period.energyWh);
    const wantsTime = period.kind === "charging" && isPositive(length);
    const wantsParking = period.kind === "idle" && isPositive(length);
    const wantsFlat = acc.flat.last === null;
    if (!wantsEnergy && !wantsTime && !wantsParking && !wantsFlat) {
      priced.push({ period, energy: null, time: null, parkingTime: null, flat: null });
      continue;
    }
    const startMs = Number(floor(period.start));
    const wall = clock.wallAt(startMs);
    const day = Math.floor(wall / DAY_MS);
    context = {
      day,
      tod: wall - day * DAY_MS,
      elapsedMs: startMs - activity.start,
      energyWh: period.energyBeforeWh,
      powerW: period.powerW,
      currentA: period.currentA,
    };
    verdicts.length = 0;
    const e = wantsEnergy ? find("ENERGY") : null;
    if (e) bill(acc.energy, e, period.energyWh);
    const t = wantsTime ? find("TIME") : null;
    if (t) {
      bill(acc.time, t, length);
      lastTimeGroup = acc.time;
    }
    const p = wantsParking ? find("PARKING_TIME") : null;
    if (p) {
      bill(acc.parking_time, p, length);
      lastTimeGroup = acc.parking_time;
    }
    const f = wantsFlat ? find("FLAT") : null;
    if (f) bill(acc.flat, f, ONE);
    priced.push({ period, energy: e, time: t, parkingTime: p, flat: f });
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

const MS_PER_S = { n: 1000n, d: 1n };

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

/**
 * The dimensions' lines: each column (excl., incl. VAT) rounded once as a whole and allocated back
 * (./rounding.ts), so the lines add up to the rounded totals exactly.
 */
function dimensionLines(acc: Accumulators) {
  const exact = PRICED_DIMENSIONS.map((d) => exactCost(acc[d]));
  const excl = allocateCents(exact.map((c) => c.excl));
  const incl = allocateCents(exact.map((c) => c.incl));
  const lines = {} as Record<PricedDimension, DimensionCost>;
  PRICED_DIMENSIONS.forEach((d, i) => {
    const a = acc[d];
    const inSeconds = d === "time" || d === "parking_time";
    const scale = (v: Rational) => toNumber(inSeconds ? div(v, MS_PER_S) : v);
    const cost = exact[i] ?? { excl: ZERO, incl: ZERO };
    lines[d] = {
      volume: scale(a.volume),
      step_rounding: scale(a.rounding),
      excl_vat_minor: Number(excl.lines[i] ?? 0n),
      incl_vat_minor: Number(incl.lines[i] ?? 0n),
      exact_excl_vat_minor: toFixed(cost.excl, 4),
      exact_incl_vat_minor: toFixed(cost.incl, 4),
    };
  });
  return { lines, excl: Number(excl.total), incl: Number(incl.total) };
}

/** OCPI start_date_time/end_date_time: the tariff prices sessions starting in [from, until). */
function checkValidity(tariff: CompiledTariff, startMs: number): void {
  const v = tariff.validity;
  if (!v) return;
  const before = v.from !== undefined && startMs < v.from;
  const after = v.until !== undefined && startMs >= v.until;
  if (!before && !after) return;
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  const window = [
    v.from !== undefined ? `from ${iso(v.from)}` : null,
    v.until !== undefined ? `until ${iso(v.until)}` : null,
  ].filter(Boolean);
  throw new PricingError(
    "tariff_not_valid_at",
    `The tariff is valid ${window.join(" ")} (end exclusive); the session started at ${iso(startMs)}, ${before ? "before" : "after"} that.`,
    { valid_from: iso(v.from), valid_until: iso(v.until), session_started_at: iso(startMs) },
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
  checkValidity(tariff, activity.start);
  const { priced, acc } = pricePeriods(tariff, activity);
  const { lines, excl, incl } = dimensionLines(acc);
  const bound = applyBounds(tariff, excl, incl);
  return {
    billing_version: tariff.complex ? "elements-v1" : "energy-v1",
    currency: "USD",
    energy_wh: activity.energyWh,
    dimensions: lines,
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
