/**
 * The money side of pricing: what each dimension billed (volume per component), step rounding,
 * exact costs, the rounded lines and the min/max price bound.
 */
import {
  type Rational,
  ZERO,
  add,
  ceilToMultiple,
  div,
  gt,
  isPositive,
  lt,
  mul,
  roundHalfUp,
  sub,
  toFixed,
  toNumber,
} from "./rational";
import { type DimensionCost, type PricedDimension, PRICED_DIMENSIONS } from "./price-result";
import { allocateCents } from "./rounding";
import type { CompiledComponent, CompiledTariff } from "./tariff-model";

/**
 * What one dimension billed: volume per component (so money is multiplied out once per component,
 * not once per period), the last component that applied and what step rounding added.
 */
export interface Accumulator {
  /** Settled volume per component (Wh, ms or sessions); the last component's run is `run`. */
  readonly volumes: Map<CompiledComponent, Rational>;
  volume: Rational;
  last: CompiledComponent | null;
  /** Volume billed at `last` since it became the last (periods in a row mostly share one). */
  run: Rational;
  rounding: Rational;
}

export const accumulator = (): Accumulator => ({
  volumes: new Map(),
  volume: ZERO,
  last: null,
  run: ZERO,
  rounding: ZERO,
});

function settle(acc: Accumulator): void {
  if (acc.last && isPositive(acc.run)) {
    acc.volumes.set(acc.last, add(acc.volumes.get(acc.last) ?? ZERO, acc.run));
  }
  acc.run = ZERO;
}

export function bill(acc: Accumulator, c: CompiledComponent, volume: Rational): void {
  if (acc.last !== c) {
    settle(acc);
    acc.last = c;
  }
  acc.volume = add(acc.volume, volume);
  acc.run = add(acc.run, volume);
}

/** step_size: the billed total rounded up once, at the last applied component's step and price. */
export function roundToStep(acc: Accumulator): void {
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

export function exactCost(acc: Accumulator): ExactCost {
  settle(acc);
  let excl = ZERO;
  let incl = ZERO;
  for (const [c, volume] of acc.volumes) {
    const cost = mul(c.unitPrice, volume);
    excl = add(excl, cost);
    incl = add(incl, mul(cost, c.vatFactor));
  }
  return { excl, incl };
}

export type Accumulators = Record<PricedDimension, Accumulator>;

const MS_PER_S = { n: 1000n, d: 1n };

/**
 * min_price/max_price (README, decision 9), applied to the exact totals before their one rounding:
 * a total outside a bound becomes the bound. A bound without `incl_vat` sets the excl. total and
 * keeps the session's exact VAT on top of it (the bound itself carries no VAT). Returns the rounded
 * totals. `minimum: false` when no session took place (an expired reservation): min_price is what
 * a charging session costs at least.
 */
export function boundedTotals(
  tariff: CompiledTariff,
  exact: ExactCost,
  { minimum }: { minimum: boolean },
): { excl: bigint; incl: bigint; applied: "min_price" | "max_price" | null } {
  let { excl, incl } = exact;
  let applied: "min_price" | "max_price" | null = null;
  const apply = (
    bound: { excl: bigint; incl?: bigint } | undefined,
    name: "min_price" | "max_price",
    outside: (value: Rational, limit: Rational) => boolean,
  ) => {
    if (!bound) return;
    const limitExcl = { n: bound.excl, d: 1n };
    if (outside(excl, limitExcl)) {
      if (bound.incl === undefined) incl = add(incl, sub(limitExcl, excl));
      excl = limitExcl;
      applied = name;
    }
    if (bound.incl !== undefined) {
      const limitIncl = { n: bound.incl, d: 1n };
      if (outside(incl, limitIncl)) {
        incl = limitIncl;
        applied = name;
      }
    }
  };
  if (minimum) apply(tariff.minPrice, "min_price", lt);
  apply(tariff.maxPrice, "max_price", gt);
  return { excl: roundHalfUp(excl), incl: roundHalfUp(incl), applied };
}

/**
 * The dimensions' lines: each column (excl., incl. VAT) rounded once as a whole and allocated back
 * (./rounding.ts), so the lines add up to the rounded totals exactly.
 */
export function dimensionLines(acc: Accumulators) {
  const exact = PRICED_DIMENSIONS.map((d) => exactCost(acc[d]));
  const excl = allocateCents(exact.map((c) => c.excl));
  const incl = allocateCents(exact.map((c) => c.incl));
  const lines = {} as Record<PricedDimension, DimensionCost>;
  PRICED_DIMENSIONS.forEach((d, i) => {
    const a = acc[d];
    const inSeconds = d === "time" || d === "parking_time" || d === "reservation";
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
  const sum = exact.reduce((t, c) => ({ excl: add(t.excl, c.excl), incl: add(t.incl, c.incl) }), {
    excl: ZERO,
    incl: ZERO,
  });
  return { lines, exact: sum, excl: Number(excl.total), incl: Number(incl.total) };
}
