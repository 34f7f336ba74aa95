/** Properties of the engine over generated tariffs and sessions (fast-check). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Run,
  meterFromRuns,
  periodsFromRuns,
  reservedArbitrary,
  runsArbitrary,
  startArbitrary,
  tariffArbitrary,
} from "../../testing/pricing-arbitraries";
import { applyAdjustments } from "./adjustments";
import { exactCosts, priceSession } from "./engine";
import { PRICED_DIMENSIONS, type PriceResult } from "./price-result";
import { quoteSession } from "./quote";
import { ONE, ZERO, add, gt, le, lt, rat, sub } from "./rational";
import { deriveActivity } from "./session";
import { compileTariff } from "./tariff-model";

const RUNS = { numRuns: 150 };

/** Everything a bill depends on (period detail legitimately differs with the cuts). */
const billed = (r: PriceResult) => ({
  dimensions: r.dimensions,
  price_bound: r.price_bound,
  total: r.total,
  activity: { ...r.activity, method: null },
});

const cutsArbitrary = fc.func(fc.boolean());

describe("splitting a session's periods differently never changes its price", () => {
  it("extra meter readings on the straight line between two readings", () => {
    fc.assert(
      fc.property(
        tariffArbitrary(),
        startArbitrary,
        runsArbitrary,
        cutsArbitrary,
        reservedArbitrary,
        (tariff, start, runs, cut, reserved) => {
          const coarse = priceSession(tariff, meterFromRuns(start, runs, undefined, reserved));
          const fine = priceSession(
            tariff,
            meterFromRuns(start, runs, (i, m) => cut(i, m), reserved),
          );
          expect(billed(fine)).toEqual(billed(coarse));
        },
      ),
      RUNS,
    );
  });

  it("OCPI charging periods grouped any way price as the meter series", () => {
    fc.assert(
      fc.property(
        tariffArbitrary(),
        startArbitrary,
        runsArbitrary,
        cutsArbitrary,
        reservedArbitrary,
        (tariff, start, runs, cut, reserved) => {
          const meter = priceSession(tariff, meterFromRuns(start, runs, undefined, reserved));
          const periods = priceSession(
            tariff,
            periodsFromRuns(start, runs, (i, m) => cut(i, m), reserved),
          );
          expect(billed(periods)).toEqual(billed(meter));
        },
      ),
      RUNS,
    );
  });

  it("an expired reservation as RESERVATION_TIME periods prices as the meter series' one", () => {
    fc.assert(
      fc.property(
        tariffArbitrary(),
        startArbitrary,
        fc.integer({ min: 1, max: 300 }),
        cutsArbitrary,
        (tariff, start, minutes, cut) => {
          const end = start + minutes * 60_000;
          const meter = priceSession(tariff, {
            method: "meter_values",
            started_at: null,
            readings: [],
            reservation: { started_at: start, ended_at: end, expired: true },
          });
          const cdr = periodsFromRuns(end, [], (i, m) => cut(i, m), minutes);
          const periods = priceSession(tariff, cdr);
          expect(billed(periods)).toEqual(billed(meter));
          expect(meter.activity.reason).toBe("reservation_expired");
        },
      ),
      RUNS,
    );
  });
});

describe("totals", () => {
  it("equal the sum of the dimensions and the min/max adjustment", () => {
    fc.assert(
      fc.property(
        tariffArbitrary(),
        startArbitrary,
        runsArbitrary,
        reservedArbitrary,
        (tariff, start, runs, reserved) => {
          const r = priceSession(tariff, meterFromRuns(start, runs, undefined, reserved));
          const d = Object.values(r.dimensions);
          for (const key of ["excl_vat_minor", "incl_vat_minor"] as const) {
            expect(r.total[key]).toBe(d.reduce((s, x) => s + x[key], 0) + r.price_bound[key]);
            for (const x of d) expect(Number.isSafeInteger(x[key]) && x[key] >= 0).toBe(true);
          }
        },
      ),
      RUNS,
    );
  });

  it("are the exact sum rounded once: never more than half a cent off, each line within a cent", () => {
    const HALF = rat(1n, 2n);
    const whole = (cents: number) => rat(BigInt(cents));
    fc.assert(
      fc.property(
        tariffArbitrary(),
        startArbitrary,
        runsArbitrary,
        reservedArbitrary,
        (tariff, start, runs, reserved) => {
          const session = meterFromRuns(start, runs, undefined, reserved);
          const r = priceSession(tariff, session);
          const exact = exactCosts(compileTariff(tariff), deriveActivity(session));
          for (const [key, column] of [
            ["excl_vat_minor", "excl"],
            ["incl_vat_minor", "incl"],
          ] as const) {
            let sum = ZERO;
            for (const d of PRICED_DIMENSIONS) {
              sum = add(sum, exact[d][column]);
              const off = sub(whole(r.dimensions[d][key]), exact[d][column]);
              expect(lt(off, ONE) && gt(off, rat(-1n))).toBe(true);
            }
            // halves round up: -1/2 < total - exact <= 1/2
            const off = sub(whole(r.total[key] - r.price_bound[key]), sum);
            expect(gt(off, rat(-1n, 2n)) && le(off, HALF)).toBe(true);
          }
        },
      ),
      RUNS,
    );
  });

  it("make a bill whose lines add up, adjustments included", () => {
    const rules = {
      group_discounts: [{ pricing_group: "fleet", percent_off: 12.5 }],
      merchant_validations: [{ code: "CAFE", amount_off_minor: 150 }],
      session_cost_cap_minor: 4000,
    };
    fc.assert(
      fc.property(
        tariffArbitrary(),
        startArbitrary,
        runsArbitrary,
        reservedArbitrary,
        fc.constantFrom(undefined, "fleet"),
        fc.constantFrom(undefined, "CAFE"),
        (tariff, start, runs, reserved, group, code) => {
          const r = priceSession(tariff, meterFromRuns(start, runs, undefined, reserved));
          const a = applyAdjustments(r, { rules, pricing_group: group, merchant_validation: code });
          const priced = PRICED_DIMENSIONS.reduce((s, d) => s + r.dimensions[d].incl_vat_minor, 0);
          const adjustments =
            (a.group_discount?.discount_minor ?? 0) +
            (a.merchant_validation?.discount_minor ?? 0) +
            (a.cost_cap?.reduction_minor ?? 0);
          expect(a.before_minor).toBe(priced + r.price_bound.incl_vat_minor);
          expect(a.total_minor).toBe(priced + r.price_bound.incl_vat_minor - adjustments);
        },
      ),
      RUNS,
    );
  });

  it("stay within min_price and max_price (excl. VAT)", () => {
    fc.assert(
      fc.property(tariffArbitrary(), startArbitrary, runsArbitrary, (tariff, start, runs) => {
        const total = priceSession(tariff, meterFromRuns(start, runs)).total.excl_vat_minor;
        if (tariff.min_price)
          expect(total).toBeGreaterThanOrEqual(Math.round(tariff.min_price.excl_vat * 100));
        if (tariff.max_price)
          expect(total).toBeLessThanOrEqual(Math.round(tariff.max_price.excl_vat * 100));
      }),
      RUNS,
    );
  });
});

describe("price never decreases when energy or time increase (non-negative tariffs)", () => {
  // Holds for restrictions that do not depend on how much or how fast energy flows; README
  // "Monotonicity" shows why power and kWh restrictions can make more energy cheaper.
  // Unit steps: a coarser step on a later element can shrink the one round-up (README, Monotonicity).
  const clockAndDuration = tariffArbitrary({
    restrictions: ["clock", "duration"],
    unitSteps: true,
  });

  it("more energy over the same charging time", () => {
    fc.assert(
      fc.property(
        clockAndDuration,
        startArbitrary,
        fc.integer({ min: 0, max: 80_000 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 0, max: 8 * 3600 }),
        (tariff, start, wh, more, seconds) => {
          const a = quoteSession(tariff, {
            energy_wh: wh,
            duration_seconds: seconds,
            start_at: start,
          });
          const b = quoteSession(tariff, {
            energy_wh: wh + more,
            duration_seconds: seconds,
            start_at: start,
          });
          expect(b.total.excl_vat_minor).toBeGreaterThanOrEqual(a.total.excl_vat_minor);
          expect(b.total.incl_vat_minor).toBeGreaterThanOrEqual(a.total.incl_vat_minor);
        },
      ),
      RUNS,
    );
  });

  it("more energy in each charging minute of a meter series", () => {
    // Unit steps: with a coarser step on a later element, extra energy in an earlier free window
    // can shrink the session's one round-up (see README, Monotonicity).
    fc.assert(
      fc.property(
        tariffArbitrary({ restrictions: ["clock", "duration"], unitSteps: true }),
        startArbitrary,
        runsArbitrary,
        fc.integer({ min: 1, max: 500 }),
        (tariff, start, runs, extra) => {
          const more: Run[] = runs.map((r) => ({
            ...r,
            whPerMinute: r.whPerMinute > 0 ? r.whPerMinute + extra : 0,
          }));
          const a = priceSession(tariff, meterFromRuns(start, runs)).total;
          const b = priceSession(tariff, meterFromRuns(start, more)).total;
          expect(b.excl_vat_minor).toBeGreaterThanOrEqual(a.excl_vat_minor);
          expect(b.incl_vat_minor).toBeGreaterThanOrEqual(a.incl_vat_minor);
        },
      ),
      RUNS,
    );
  });

  it("charging for longer (a session extended by more charging)", () => {
    // Any restriction kind; step size 1 and a fallback element so every second and Wh is billed.
    const anyRestrictions = tariffArbitrary({ unitSteps: true, fallback: true });
    fc.assert(
      fc.property(
        anyRestrictions,
        startArbitrary,
        runsArbitrary,
        runsArbitrary,
        (tariff, start, runs, tail) => {
          const charging = tail.map((r) => ({ ...r, whPerMinute: r.whPerMinute + 1 }));
          const a = priceSession(tariff, meterFromRuns(start, runs)).total;
          const b = priceSession(tariff, meterFromRuns(start, [...runs, ...charging])).total;
          expect(b.excl_vat_minor).toBeGreaterThanOrEqual(a.excl_vat_minor);
          expect(b.incl_vat_minor).toBeGreaterThanOrEqual(a.incl_vat_minor);
        },
      ),
      RUNS,
    );
  });
});
